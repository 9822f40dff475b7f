#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "preprocess/preprocess.h"
#include "preprocess/preprocess_internal.h"

namespace edgeocr {

namespace {

// Python 3 round(): half to even.
double round_half_even(double v) {
  const double f = std::floor(v);
  const double d = v - f;
  if (d > 0.5) return f + 1.0;
  if (d < 0.5) return f;
  return std::fmod(f, 2.0) == 0.0 ? f : f + 1.0;
}

int round_to_32(int v) {
  const int r = static_cast<int>(round_half_even(v / 32.0)) * 32;
  return std::max(r, 32);
}

int round_up_to_32(int v) {
  return std::max((v + 31) / 32 * 32, 32);
}

// Grow-only per-thread scratch, so steady-state calls do not allocate.
struct DetScratch {
  std::vector<int> xofs;    // 2 per output column: byte offsets of the left/right source pixel
  std::vector<float> xw;    // weight of the right source pixel
  std::vector<float> rows;  // 2 slots x planes x out_w horizontally interpolated source rows
};

thread_local DetScratch t_det_scratch;

template <typename T>
T* grow(std::vector<T>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

// Horizontal pass over one source row: for each output column, interpolate the colour channels
// (3, or 1 for gray formats) into planar buffers out[p * out_w + x]. With kMatte the two taps are
// first composited onto `matte` by their alpha (the last channel); otherwise alpha is not read.
template <int CN, bool kMatte>
void hresize_row(const std::uint8_t* src_row, const int* xofs, const float* xw, int out_w,
                 float matte, float* out) {
  constexpr int kPlanes = CN >= 3 ? 3 : 1;
  float* __restrict p0 = out;
  float* __restrict p1 = out + out_w;
  float* __restrict p2 = out + 2 * static_cast<std::ptrdiff_t>(out_w);
  for (int x = 0; x < out_w; ++x) {
    const std::uint8_t* a = src_row + xofs[2 * x];
    const std::uint8_t* b = src_row + xofs[2 * x + 1];
    const float w = xw[x];
    if constexpr (kMatte) {
      const float aa = a[CN - 1], ba = b[CN - 1];
      const float a0 = detail::composite(a[0], aa, matte);
      p0[x] = a0 + (detail::composite(b[0], ba, matte) - a0) * w;
      if (kPlanes == 3) {
        const float a1 = detail::composite(a[1], aa, matte),
                    a2 = detail::composite(a[2], aa, matte);
        p1[x] = a1 + (detail::composite(b[1], ba, matte) - a1) * w;
        p2[x] = a2 + (detail::composite(b[2], ba, matte) - a2) * w;
      }
    } else {
      const float a0 = a[0];
      p0[x] = a0 + (static_cast<float>(b[0]) - a0) * w;
      if (kPlanes == 3) {
        const float a1 = a[1], a2 = a[2];
        p1[x] = a1 + (static_cast<float>(b[1]) - a1) * w;
        p2[x] = a2 + (static_cast<float>(b[2]) - a2) * w;
      }
    }
  }
}

// Vertical pass and normalisation for one output row of one plane.
void vblend_row(const float* __restrict r0, const float* __restrict r1, float fy, float scale,
                float bias, int n, float* __restrict out) {
  for (int x = 0; x < n; ++x) out[x] = (r0[x] + (r1[x] - r0[x]) * fy) * scale + bias;
}

// Writes row y of plane c at dst + c * plane + y * pitch (pitch >= out_w, plane >= out_h * pitch).
template <int CN, bool kMatte = false>
void det_resize_impl(const ImageView& src, int frame_w, int frame_h, int x_off, int y_off,
                     int out_w, int out_h, const detail::ChannelPlan& plan, float* dst,
                     std::size_t pitch, std::size_t plane) {
  constexpr int kPlanes = CN >= 3 ? 3 : 1;
  const float matte = static_cast<float>(src.matte);
  DetScratch& s = t_det_scratch;
  int* xofs = grow(s.xofs, 2 * static_cast<std::size_t>(out_w));
  float* xw = grow(s.xw, static_cast<std::size_t>(out_w));
  const std::size_t row_floats = static_cast<std::size_t>(kPlanes) * out_w;
  float* rows = grow(s.rows, 2 * row_floats);

  // Source coordinates are computed in double: in float, sx near 4000 is off by up to 2.4e-4,
  // which a sharp edge turns into ~5e-4 after normalisation.
  const double scale_x = static_cast<double>(src.width) / frame_w;
  for (int x = 0; x < out_w; ++x) {
    double sx = (x + x_off + 0.5) * scale_x - 0.5;
    sx = std::min(std::max(sx, 0.0), static_cast<double>(src.width - 1));
    const int x0 = static_cast<int>(sx);
    const int x1 = std::min(x0 + 1, src.width - 1);
    xofs[2 * x] = x0 * CN;
    xofs[2 * x + 1] = x1 * CN;
    xw[x] = static_cast<float>(sx - x0);
  }

  // Two-slot cache of horizontally interpolated source rows: consecutive output rows usually
  // share a source row (always when upscaling), which is then interpolated only once.
  int cached[2] = {-1, -1};
  auto slot_of = [&](int y) { return cached[0] == y ? 0 : (cached[1] == y ? 1 : -1); };
  auto fill = [&](int slot, int y) {
    hresize_row<CN, kMatte>(src.row(y), xofs, xw, out_w, matte, rows + slot * row_floats);
    cached[slot] = y;
  };

  const double scale_y = static_cast<double>(src.height) / frame_h;
  for (int y = 0; y < out_h; ++y) {
    double sy = (y + y_off + 0.5) * scale_y - 0.5;
    sy = std::min(std::max(sy, 0.0), static_cast<double>(src.height - 1));
    const int y0 = static_cast<int>(sy);
    const int y1 = std::min(y0 + 1, src.height - 1);
    const float fy = static_cast<float>(sy - y0);

    int s0 = slot_of(y0);
    if (s0 < 0) {
      s0 = slot_of(y1) == 0 ? 1 : 0;
      fill(s0, y0);
    }
    int s1 = slot_of(y1);
    if (s1 < 0) {
      s1 = 1 - s0;
      fill(s1, y1);
    }

    for (int c = 0; c < 3; ++c) {
      const int p = kPlanes == 1 ? 0 : plan.src_ch[c];
      const float* r0 = rows + s0 * row_floats + static_cast<std::size_t>(p) * out_w;
      const float* r1 = rows + s1 * row_floats + static_cast<std::size_t>(p) * out_w;
      float* out = dst + c * plane + static_cast<std::size_t>(y) * pitch;
      vblend_row(r0, r1, fy, plan.scale[c], plan.bias[c], out_w, out);
    }
  }
}

}  // namespace

void det_target_size(int src_w, int src_h, const DetResizeParams& p, int* out_w, int* out_h) {
  if (out_w == nullptr || out_h == nullptr)
    fail(StatusCode::kInvalidArgument, "det_target_size: out_w/out_h pointer is null");
  detail::check_positive(src_w, "det_target_size", "src_w");
  detail::check_positive(src_h, "det_target_size", "src_h");
  detail::check_positive(p.limit_side_len, "det_target_size", "limit_side_len");
  detail::check_positive(p.max_side_len, "det_target_size", "max_side_len");
  if (!(p.max_upscale >= 1.f))
    fail(StatusCode::kInvalidArgument,
         "det_target_size: max_upscale must be at least 1, got " + std::to_string(p.max_upscale));

  // Same arithmetic as PaddleOCR (Python floats are doubles, int() truncates).
  double ratio = 1.0;
  if (p.limit_type == DetLimitType::kMax) {
    const int m = std::max(src_w, src_h);
    if (m > p.limit_side_len) ratio = static_cast<double>(p.limit_side_len) / m;
  } else {
    const int m = std::min(src_w, src_h);
    if (m < p.limit_side_len) ratio = static_cast<double>(p.limit_side_len) / m;
  }
  // An enlargement that max_upscale capped (above 1) is rounded up: rounding to the nearest
  // multiple of 32 could undo most of it on a strip (27 px high, 1.5x: 40 -> 32, read at 1.19x,
  // where the text of a (27, 300) label was missed). Uncapped, PaddleOCR's rounding is kept.
  const bool capped = ratio > p.max_upscale && p.max_upscale > 1.f;
  ratio = std::min(ratio, static_cast<double>(p.max_upscale));
  double w = std::trunc(src_w * ratio);
  double h = std::trunc(src_h * ratio);
  const double long_side = std::max(w, h);
  bool shrunk = false;
  if (long_side > p.max_side_len) {
    const double cap = static_cast<double>(p.max_side_len) / long_side;
    w = std::trunc(w * cap);
    h = std::trunc(h * cap);
    shrunk = true;
  }
  auto side = [&](double v) {
    const int n = static_cast<int>(v);
    const int u = round_up_to_32(n);
    return capped && !shrunk && u <= p.max_side_len ? u : round_to_32(n);
  };
  *out_w = side(w);
  *out_h = side(h);
}

void det_preprocess(const ImageView& src, int out_w, int out_h, const NormalizeParams& norm,
                    float* dst) {
  det_preprocess_window(src, out_w, out_h, 0, 0, out_w, out_h, norm, dst);
}

void det_preprocess_window(const ImageView& src, int frame_w, int frame_h, int x0, int y0,
                           int win_w, int win_h, const NormalizeParams& norm, float* dst) {
  validate(src, "det_preprocess: src");
  detail::check_positive(frame_w, "det_preprocess", "out_w");
  detail::check_positive(frame_h, "det_preprocess", "out_h");
  detail::check_positive(win_w, "det_preprocess", "window width");
  detail::check_positive(win_h, "det_preprocess", "window height");
  if (x0 < 0 || y0 < 0 || x0 > frame_w - win_w || y0 > frame_h - win_h)
    fail(StatusCode::kInvalidArgument,
         "det_preprocess: window " + std::to_string(win_w) + "x" + std::to_string(win_h) + " at (" +
             std::to_string(x0) + ", " + std::to_string(y0) + ") is not inside the " +
             std::to_string(frame_w) + "x" + std::to_string(frame_h) + " frame");
  if (dst == nullptr) fail(StatusCode::kInvalidArgument, "det_preprocess: dst is null");
  detail::check_norm(norm, "det_preprocess");
  const std::size_t pitch = static_cast<std::size_t>(win_w);
  detail::resize_into(src, frame_w, frame_h, x0, y0, win_w, win_h, detail::make_plan(src, norm),
                      dst, pitch, pitch * static_cast<std::size_t>(win_h), "det_preprocess");
}

namespace detail {

void resize_into(const ImageView& src, int frame_w, int frame_h, int x0, int y0, int win_w,
                 int win_h, const ChannelPlan& plan, float* dst, std::size_t pitch,
                 std::size_t plane, const char* fn) {
  const bool matte = has_alpha(src.format) && src.matte >= 0;
  switch (src.channels()) {
    case 1:
      det_resize_impl<1>(src, frame_w, frame_h, x0, y0, win_w, win_h, plan, dst, pitch, plane);
      break;
    case 2:
      if (matte)
        det_resize_impl<2, true>(src, frame_w, frame_h, x0, y0, win_w, win_h, plan, dst, pitch,
                                 plane);
      else
        det_resize_impl<2>(src, frame_w, frame_h, x0, y0, win_w, win_h, plan, dst, pitch, plane);
      break;
    case 3:
      det_resize_impl<3>(src, frame_w, frame_h, x0, y0, win_w, win_h, plan, dst, pitch, plane);
      break;
    case 4:
      if (matte)
        det_resize_impl<4, true>(src, frame_w, frame_h, x0, y0, win_w, win_h, plan, dst, pitch,
                                 plane);
      else
        det_resize_impl<4>(src, frame_w, frame_h, x0, y0, win_w, win_h, plan, dst, pitch, plane);
      break;
    default:
      fail(StatusCode::kInvalidArgument, std::string(fn) + ": unsupported pixel format " +
                                             std::to_string(static_cast<int>(src.format)));
  }
}

}  // namespace detail

}  // namespace edgeocr
