// Page statistics the pipeline reads before sampling: alpha matte and luminance range.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "preprocess/preprocess.h"
#include "preprocess/preprocess_internal.h"

namespace edgeocr {

namespace {

constexpr double kMaxSamples = 65536.0;

// Calls f(luminance, alpha) for pixels on an even grid (alpha 255 for formats without one).
// Luminance is of the stored colour, not composited.
template <typename F>
void for_samples(const ImageView& src, F&& f) {
  const double n = static_cast<double>(src.width) * src.height;
  const int step = std::max(1, static_cast<int>(std::ceil(std::sqrt(n / kMaxSamples))));
  const int cn = src.channels();
  int b = 0, g = 1, r = 2;
  if (src.format == PixelFormat::kRGB || src.format == PixelFormat::kRGBA) b = 2, r = 0;
  const bool alpha = has_alpha(src.format);
  // Start half a step in, so a small grid does not sit on the image's edge.
  for (int y = step / 2; y < src.height; y += step) {
    const std::uint8_t* row = src.row(y);
    for (int x = step / 2; x < src.width; x += step) {
      const std::uint8_t* p = row + static_cast<std::ptrdiff_t>(x) * cn;
      const int lum = cn <= 2 ? p[0] : (77 * p[r] + 150 * p[g] + 29 * p[b] + 128) >> 8;
      f(lum, alpha ? p[cn - 1] : 255);
    }
  }
}

// The level below which `share` of the histogram's count lies.
int quantile(const std::array<std::uint32_t, 256>& hist, std::uint64_t total, double share) {
  const double target = share * static_cast<double>(total);
  std::uint64_t acc = 0;
  for (int v = 0; v < 256; ++v) {
    acc += hist[v];
    if (static_cast<double>(acc) > target) return v;
  }
  return 255;
}

}  // namespace

int choose_matte(const ImageView& src) {
  validate(src, "choose_matte: src");
  if (!has_alpha(src.format)) return -1;
  std::array<std::uint32_t, 256> hist{};
  std::uint64_t opaque = 0, transparent = 0, ink_sum = 0;
  for_samples(src, [&](int lum, int a) {
    if (a >= 128) {
      ++hist[lum];
      ++opaque;
      ink_sum += lum;
    } else {
      ++transparent;
    }
  });
  if (opaque == 0) return 255;
  if (transparent >= opaque) return static_cast<double>(ink_sum) / opaque < 128.0 ? 255 : 0;
  return quantile(hist, opaque, 0.5);
}

void luminance_range(const ImageView& src, double low_share, double high_share, int* lo, int* hi) {
  validate(src, "luminance_range: src");
  if (lo == nullptr || hi == nullptr)
    fail(StatusCode::kInvalidArgument, "luminance_range: lo/hi is null");
  if (!(low_share >= 0.0 && high_share >= 0.0 && low_share + high_share < 1.0))
    fail(StatusCode::kInvalidArgument, "luminance_range: shares " + std::to_string(low_share) +
                                           ", " + std::to_string(high_share) +
                                           " must be >= 0 with a sum < 1");
  std::array<std::uint32_t, 256> hist{};
  std::uint64_t total = 0;
  const bool matte = has_alpha(src.format) && src.matte >= 0;
  const float m = static_cast<float>(src.matte);
  for_samples(src, [&](int lum, int a) {
    if (matte)
      lum = static_cast<int>(std::lround(detail::composite(static_cast<float>(lum), a, m)));
    ++hist[lum];
    ++total;
  });
  *lo = quantile(hist, total, low_share);
  *hi = std::max(*lo, quantile(hist, total, 1.0 - high_share));
}

double edge_sharpness(const ImageView& src, int lo, int hi, int d) {
  validate(src, "edge_sharpness: src");
  if (d < 1) fail(StatusCode::kInvalidArgument, "edge_sharpness: d must be >= 1");
  const int range = hi - lo;
  if (range < 16) return 1.0;
  const double n = static_cast<double>(src.width) * src.height;
  const int step = std::max(1, static_cast<int>(std::ceil(std::sqrt(n / kMaxSamples))));
  const int cn = src.channels();
  int b = 0, g = 1, r = 2;
  if (src.format == PixelFormat::kRGB || src.format == PixelFormat::kRGBA) b = 2, r = 0;
  const bool matte = has_alpha(src.format) && src.matte >= 0;
  const float m = static_cast<float>(src.matte);
  auto lum = [&](const std::uint8_t* p) {
    int v = cn <= 2 ? p[0] : (77 * p[r] + 150 * p[g] + 29 * p[b] + 128) >> 8;
    if (matte)
      v = static_cast<int>(std::lround(detail::composite(static_cast<float>(v), p[cn - 1], m)));
    return v;
  };
  // The middle half of the range, and the smallest step that counts as an edge.
  const int mid_lo = lo + range / 4, mid_hi = hi - range / 4, min_step = (range + 15) / 16;
  std::array<std::uint32_t, 256> hist{};
  std::uint64_t total = 0;
  for (int y = step / 2; y + d < src.height; y += step) {
    const std::uint8_t* row = src.row(y);
    const std::uint8_t* below = src.row(y + d);
    for (int x = step / 2; x + d < src.width; x += step) {
      const std::ptrdiff_t o = static_cast<std::ptrdiff_t>(x) * cn;
      const int v = lum(row + o);
      if (v <= mid_lo || v >= mid_hi) continue;
      const int s = std::max(std::abs(lum(row + o + static_cast<std::ptrdiff_t>(d) * cn) - v),
                             std::abs(lum(below + o) - v));
      if (s < min_step) continue;
      ++hist[s];
      ++total;
    }
  }
  if (total < 64) return 1.0;
  return static_cast<double>(quantile(hist, total, 0.5)) / range;
}

void unsharp_planes(float* data, int planes, int width, int height, float sigma, float amount,
                    const float* lo, const float* hi) {
  if (data == nullptr || lo == nullptr || hi == nullptr)
    fail(StatusCode::kInvalidArgument, "unsharp_planes: null pointer");
  if (planes < 1 || width < 1 || height < 1)
    fail(StatusCode::kInvalidArgument, "unsharp_planes: empty planes");
  if (!(sigma > 0.f && sigma <= 64.f) || !std::isfinite(amount))
    fail(StatusCode::kInvalidArgument, "unsharp_planes: sigma must be in (0, 64], amount finite");
  const int rad = static_cast<int>(std::ceil(3.f * sigma));
  std::vector<float> k(2 * rad + 1);
  double sum = 0.0;
  for (int i = -rad; i <= rad; ++i) {
    k[i + rad] = static_cast<float>(std::exp(-0.5 * i * i / (static_cast<double>(sigma) * sigma)));
    sum += k[i + rad];
  }
  for (float& v : k) v = static_cast<float>(v / sum);
  const std::size_t w = static_cast<std::size_t>(width);
  const int rows = 2 * rad + 1;
  // Ring of horizontally blurred rows y - rad .. y + rad (rows clamped to the plane).
  std::vector<float> ring(w * rows), out(w);
  auto clampi = [](int v, int a, int b) { return v < a ? a : (v > b ? b : v); };
  for (int c = 0; c < planes; ++c) {
    float* plane = data + static_cast<std::size_t>(c) * w * height;
    auto hblur = [&](int y) {  // row y (clamped) blurred along x, into its ring slot
      const float* src = plane + w * clampi(y, 0, height - 1);
      float* dst = ring.data() + w * static_cast<std::size_t>(((y % rows) + rows) % rows);
      for (int x = 0; x < width; ++x) {
        float acc = 0.f;
        for (int i = -rad; i <= rad; ++i) acc += k[i + rad] * src[clampi(x + i, 0, width - 1)];
        dst[x] = acc;
      }
    };
    // Rows above the top replicate row 0; a ring slot holds the row that is y mod rows.
    for (int y = -rad; y < rad; ++y) hblur(y);
    for (int y = 0; y < height; ++y) {
      hblur(y + rad);  // row y + rad is still original: only rows < y were written
      std::fill(out.begin(), out.end(), 0.f);
      for (int i = -rad; i <= rad; ++i) {
        const float* r = ring.data() + w * static_cast<std::size_t>(((y + i) % rows + rows) % rows);
        const float kv = k[i + rad];
        for (int x = 0; x < width; ++x) out[x] += kv * r[x];
      }
      float* row = plane + w * y;
      for (int x = 0; x < width; ++x) {
        const float v = row[x] + amount * (row[x] - out[x]);
        row[x] = v < lo[c] ? lo[c] : (v > hi[c] ? hi[c] : v);
      }
    }
  }
}

}  // namespace edgeocr
