// The table-structure model's input (crop + resize + normalise + pad) and the darkness map the
// grid method finds ruled lines in. Contracts in preprocess/preprocess.h.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "preprocess/preprocess.h"
#include "preprocess/preprocess_internal.h"

namespace edgeocr {

namespace {

void check_rect(const ImageView& src, int x, int y, int w, int h, const char* fn) {
  detail::check_positive(w, fn, "width");
  detail::check_positive(h, fn, "height");
  if (x < 0 || y < 0 || x > src.width - w || y > src.height - h)
    fail(StatusCode::kInvalidArgument,
         std::string(fn) + ": rectangle " + std::to_string(w) + "x" + std::to_string(h) + " at (" +
             std::to_string(x) + ", " + std::to_string(y) + ") is not inside the " +
             std::to_string(src.width) + "x" + std::to_string(src.height) + " image");
}

// The view of the rectangle: same rows, shifted start.
ImageView sub_view(const ImageView& src, int x, int y, int w, int h) {
  ImageView v = src;
  v.data = src.data + static_cast<std::ptrdiff_t>(y) * src.stride +
           static_cast<std::ptrdiff_t>(x) * src.channels();
  v.width = w;
  v.height = h;
  return v;
}

}  // namespace

void table_input_size(int w, int h, int side, int* out_w, int* out_h) {
  if (out_w == nullptr || out_h == nullptr)
    fail(StatusCode::kInvalidArgument, "table_input_size: out_w/out_h pointer is null");
  detail::check_positive(w, "table_input_size", "w");
  detail::check_positive(h, "table_input_size", "h");
  detail::check_positive(side, "table_input_size", "side");
  // rapid_table: ratio = side / max(h, w); int(h * ratio), int(w * ratio) (doubles, truncated).
  const double ratio = static_cast<double>(side) / std::max(w, h);
  *out_w = std::min(side, std::max(1, static_cast<int>(w * ratio)));
  *out_h = std::min(side, std::max(1, static_cast<int>(h * ratio)));
}

void table_preprocess(const ImageView& src, int x, int y, int w, int h, int side,
                      const NormalizeParams& norm, float pad_value, float* dst) {
  validate(src, "table_preprocess: src");
  check_rect(src, x, y, w, h, "table_preprocess");
  if (dst == nullptr) fail(StatusCode::kInvalidArgument, "table_preprocess: dst is null");
  detail::check_norm(norm, "table_preprocess");
  int out_w = 0, out_h = 0;
  table_input_size(w, h, side, &out_w, &out_h);
  const std::size_t pitch = static_cast<std::size_t>(side);
  const std::size_t plane = pitch * pitch;
  const ImageView crop = sub_view(src, x, y, w, h);
  detail::resize_into(crop, out_w, out_h, 0, 0, out_w, out_h, detail::make_plan(crop, norm), dst,
                      pitch, plane, "table_preprocess");
  // The padding: right of the resized crop on its rows, then the rows below it.
  for (int c = 0; c < 3; ++c) {
    float* p = dst + c * plane;
    for (int r = 0; r < out_h; ++r)
      std::fill(p + r * pitch + out_w, p + (r + 1) * pitch, pad_value);
    std::fill(p + out_h * pitch, p + plane, pad_value);
  }
}

void luminance_min_map(const ImageView& src, int x, int y, int w, int h, int cell,
                       std::uint8_t* dst) {
  validate(src, "luminance_min_map: src");
  check_rect(src, x, y, w, h, "luminance_min_map");
  detail::check_positive(cell, "luminance_min_map", "cell");
  if (dst == nullptr) fail(StatusCode::kInvalidArgument, "luminance_min_map: dst is null");
  const int mw = (w - 1) / cell + 1;
  const int mh = (h - 1) / cell + 1;
  std::fill(dst, dst + static_cast<std::size_t>(mw) * mh, std::uint8_t{255});
  const int cn = src.channels();
  int b = 0, g = 1, r = 2;
  if (src.format == PixelFormat::kRGB || src.format == PixelFormat::kRGBA) b = 2, r = 0;
  const bool matte = has_alpha(src.format) && src.matte >= 0;
  // Levels as a 256-entry table of the stored (composited) luminance: one lookup per pixel.
  std::uint8_t levels[256];
  for (int v = 0; v < 256; ++v) {
    const double s = (v - src.black) * 255.0 / (src.white - src.black);
    levels[v] = static_cast<std::uint8_t>(std::min(255.0, std::max(0.0, s + 0.5)));
  }
  for (int yy = 0; yy < h; ++yy) {
    const std::uint8_t* row = src.row(y + yy) + static_cast<std::ptrdiff_t>(x) * cn;
    std::uint8_t* out = dst + static_cast<std::size_t>(yy / cell) * mw;
    for (int xx = 0; xx < w; ++xx) {
      const std::uint8_t* p = row + static_cast<std::ptrdiff_t>(xx) * cn;
      int lum = cn <= 2 ? p[0] : (77 * p[r] + 150 * p[g] + 29 * p[b] + 128) >> 8;
      if (matte) lum = src.matte + (lum - src.matte) * p[cn - 1] / 255;
      const std::uint8_t v = levels[lum];
      std::uint8_t& o = out[xx / cell];
      if (v < o) o = v;
    }
  }
}

}  // namespace edgeocr
