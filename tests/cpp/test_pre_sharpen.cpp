// unsharp_planes (the blurred-page det run) against a direct 2-D reference, and edge_sharpness.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "check.h"
#include "edgeocr/status.h"
#include "preprocess/preprocess.h"

using namespace edgeocr;

namespace {

// x + amount * (x - G(x)) with the 2-D gaussian summed directly (borders replicated), clamped.
std::vector<double> reference(const std::vector<float>& x, int w, int h, double sigma,
                              double amount, double lo, double hi) {
  const int rad = static_cast<int>(std::ceil(3 * sigma));
  std::vector<double> k(2 * rad + 1);
  double sum = 0;
  for (int i = -rad; i <= rad; ++i) sum += k[i + rad] = std::exp(-0.5 * i * i / (sigma * sigma));
  for (double& v : k) v /= sum;
  std::vector<double> out(x.size());
  for (int y = 0; y < h; ++y)
    for (int xx = 0; xx < w; ++xx) {
      double g = 0;
      for (int j = -rad; j <= rad; ++j)
        for (int i = -rad; i <= rad; ++i) {
          const int sy = std::clamp(y + j, 0, h - 1), sx = std::clamp(xx + i, 0, w - 1);
          g += k[j + rad] * k[i + rad] * x[static_cast<std::size_t>(sy) * w + sx];
        }
      const double v = x[static_cast<std::size_t>(y) * w + xx];
      out[static_cast<std::size_t>(y) * w + xx] = std::clamp(v + amount * (v - g), lo, hi);
    }
  return out;
}

}  // namespace

TEST(unsharp_matches_direct_reference) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (int shape = 0; shape < 3; ++shape) {
    const int w = shape == 0 ? 37 : (shape == 1 ? 5 : 64),
              h = shape == 0 ? 29 : (shape == 1 ? 40 : 3);
    const int planes = 2;
    std::vector<float> data(static_cast<std::size_t>(planes) * w * h);
    for (float& v : data) v = u(rng);
    std::vector<float> orig = data;
    const float lo[2] = {-1.f, -0.8f}, hi[2] = {1.f, 0.9f};
    unsharp_planes(data.data(), planes, w, h, 2.5f, 2.f, lo, hi);
    for (int c = 0; c < planes; ++c) {
      std::vector<float> plane(orig.begin() + static_cast<std::ptrdiff_t>(c) * w * h,
                               orig.begin() + static_cast<std::ptrdiff_t>(c + 1) * w * h);
      const std::vector<double> want = reference(plane, w, h, 2.5, 2.0, lo[c], hi[c]);
      double worst = 0;
      for (std::size_t i = 0; i < want.size(); ++i)
        worst = std::max(worst, std::fabs(want[i] - data[static_cast<std::size_t>(c) * w * h + i]));
      CHECK(worst < 1e-4);
    }
  }
}

TEST(unsharp_leaves_flat_planes_and_checks_arguments) {
  std::vector<float> flat(20 * 10, 0.25f);
  const float lo = -1.f, hi = 1.f;
  unsharp_planes(flat.data(), 1, 20, 10, 4.f, 2.f, &lo, &hi);
  for (float v : flat) CHECK_NEAR(v, 0.25f, 1e-6);
  bool threw = false;
  try {
    unsharp_planes(flat.data(), 1, 20, 10, 0.f, 2.f, &lo, &hi);
  } catch (const Error&) {
    threw = true;
  }
  CHECK(threw);
}

TEST(edge_sharpness_sharp_vs_blurred) {
  const int w = 200, h = 120;
  std::vector<std::uint8_t> px(static_cast<std::size_t>(w) * h, 230);
  for (int y = 20; y < 100; ++y)
    for (int x = 10; x < 190; ++x)
      if ((x / 6) % 3 == 0) px[static_cast<std::size_t>(y) * w + x] = 30;
  ImageView v;
  v.data = px.data();
  v.width = w;
  v.height = h;
  v.stride = w;
  v.format = PixelFormat::kGray;
  CHECK(edge_sharpness(v, 30, 230, 1) > 0.5);
  // The same bars blurred along x (box of 9): steps of about 200 / 9 levels per pixel.
  std::vector<std::uint8_t> soft(px.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int s = 0;
      for (int i = -4; i <= 4; ++i)
        s += px[static_cast<std::size_t>(y) * w + std::clamp(x + i, 0, w - 1)];
      soft[static_cast<std::size_t>(y) * w + x] = static_cast<std::uint8_t>(s / 9);
    }
  v.data = soft.data();
  CHECK(edge_sharpness(v, 30, 230, 1) < 0.15);
  CHECK(edge_sharpness(v, 100, 110, 1) == 1.0);  // under 16 levels: nothing to judge
}

TEST_MAIN()
