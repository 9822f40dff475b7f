// Prints the speed of the fused kernels; nothing is asserted (build type and machine vary).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "check.h"
#include "preprocess/preprocess.h"

using namespace edgeocr;

namespace {

std::vector<std::uint8_t> random_pixels(std::size_t n, std::uint32_t seed) {
  std::vector<std::uint8_t> p(n);
  std::mt19937 rng(seed);
  for (auto& b : p) b = static_cast<std::uint8_t>(rng());
  return p;
}

template <typename F>
double best_ms(int reps, F&& f) {
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return best;
}

}  // namespace

TEST(timing_det_preprocess_1240x1675_to_960x1312) {
  const int sw = 1240, sh = 1675, ow = 960, oh = 1312;
  const auto pixels = random_pixels(static_cast<std::size_t>(sw) * sh * 3, 1);
  ImageView v;
  v.data = pixels.data();
  v.width = sw;
  v.height = sh;
  v.stride = sw * 3;
  std::vector<float> out(3 * static_cast<std::size_t>(ow) * oh);
  const double ms = best_ms(20, [&] { det_preprocess(v, ow, oh, NormalizeParams{}, out.data()); });
  std::printf("det_preprocess %dx%d BGR -> %dx%d: %.2f ms (best of 20)\n", sw, sh, ow, oh, ms);
}

TEST(timing_crop_preprocess_50_crops_48x320) {
  const int sw = 1240, sh = 1675;
  const auto pixels = random_pixels(static_cast<std::size_t>(sw) * sh * 3, 2);
  ImageView v;
  v.data = pixels.data();
  v.width = sw;
  v.height = sh;
  v.stride = sw * 3;
  std::vector<Quad> quads(50);
  for (int i = 0; i < 50; ++i) {
    const float x = 40.f + 7 * i, y = 30.f + 30 * i;  // slightly skewed text lines ~600x32
    quads[i].p[0] = {x, y};
    quads[i].p[1] = {x + 600, y + 12};
    quads[i].p[2] = {x + 598, y + 46};
    quads[i].p[3] = {x - 2, y + 33};
  }
  std::vector<float> out(50 * 3 * 48 * 320);
  const double ms = best_ms(20, [&] {
    for (int i = 0; i < 50; ++i)
      crop_preprocess(v, quads[i], 320, 48, 320, NormalizeParams{}, 0.f,
                      out.data() + static_cast<std::size_t>(i) * 3 * 48 * 320);
  });
  std::printf("crop_preprocess 50 crops -> 48x320: %.2f ms total (best of 20)\n", ms);
}

TEST_MAIN()
