// Page statistics the pipeline reads before sampling: alpha matte and luminance range.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

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

}  // namespace edgeocr
