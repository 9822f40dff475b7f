// Helpers shared by the preprocessing tests: seeded random images and array comparison.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "edgeocr/image.h"

namespace edgeocr_test {

struct TestImage {
  std::vector<std::uint8_t> pixels;
  edgeocr::ImageView view;
};

// Random pixels; each row is followed by pad_bytes of 0xEE, which no output may depend on.
inline TestImage make_image(int w, int h, edgeocr::PixelFormat f, int pad_bytes,
                            std::uint32_t seed) {
  TestImage t;
  const int cn = edgeocr::channels_of(f);
  const std::ptrdiff_t stride = static_cast<std::ptrdiff_t>(w) * cn + pad_bytes;
  t.pixels.assign(static_cast<std::size_t>(stride) * h, 0xEE);
  std::mt19937 rng(seed);
  for (int y = 0; y < h; ++y)
    for (int i = 0; i < w * cn; ++i) t.pixels[y * stride + i] = static_cast<std::uint8_t>(rng());
  t.view.data = t.pixels.data();
  t.view.width = w;
  t.view.height = h;
  t.view.stride = stride;
  t.view.format = f;
  return t;
}

inline double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(double(a[i]) - b[i]));
  return m;
}

}  // namespace edgeocr_test
