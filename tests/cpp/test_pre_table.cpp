// table_input_size, table_preprocess and luminance_min_map against the plain reference.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "check.h"
#include "pre_test_util.h"
#include "preprocess/preprocess.h"
#include "preprocess/reference/reference.h"

using namespace edgeocr;

namespace {

constexpr double kTol = 1e-4;  // fused (float, tables) vs reference (double), after normalising

using edgeocr_test::make_image;
using edgeocr_test::max_abs_diff;
using edgeocr_test::TestImage;

NormalizeParams imagenet() {  // rapid_table's SLANet normalisation, in B, G, R order
  NormalizeParams n;
  const float mean[3] = {0.485f, 0.456f, 0.406f}, std[3] = {0.229f, 0.224f, 0.225f};
  for (int c = 0; c < 3; ++c) n.mean[c] = mean[c], n.std[c] = std[c];
  return n;
}

const PixelFormat kFormats[] = {PixelFormat::kBGR,  PixelFormat::kRGB,  PixelFormat::kGray,
                                PixelFormat::kBGRA, PixelFormat::kRGBA, PixelFormat::kGrayAlpha};

}  // namespace

TEST(table_input_size_matches_rapid_table) {
  // rapid_table ResizeTableImage(488): ratio = 488 / max(h, w), int(w * ratio), int(h * ratio).
  struct Case {
    int w, h, side, ew, eh;
  };
  const Case cases[] = {{738, 294, 488, 488, 194}, {294, 738, 488, 194, 488},
                        {594, 300, 488, 488, 246}, {100, 100, 488, 488, 488},
                        {1, 1, 488, 488, 488},     {5000, 1, 488, 488, 1},
                        {1, 5000, 488, 1, 488},    {702, 196, 320, 320, 89}};
  for (const Case& c : cases) {
    int w = 0, h = 0;
    table_input_size(c.w, c.h, c.side, &w, &h);
    CHECK(w == c.ew && h == c.eh);
    if (w != c.ew || h != c.eh)
      std::fprintf(stderr, "  %dx%d side %d -> %dx%d\n", c.w, c.h, c.side, w, h);
  }
  int w, h;
  CHECK_THROWS(table_input_size(0, 5, 488, &w, &h));
  CHECK_THROWS(table_input_size(5, 5, 0, &w, &h));
  CHECK_THROWS(table_input_size(5, 5, 488, nullptr, &h));
}

TEST(table_preprocess_matches_reference_on_random_images) {
  struct Case {
    int sw, sh, x, y, w, h, side;
  };
  const Case cases[] = {
      {40, 30, 0, 0, 40, 30, 64},          {40, 30, 5, 3, 20, 10, 64},
      {300, 200, 17, 9, 250, 61, 488},     {1, 1, 0, 0, 1, 1, 16},
      {700, 90, 3, 2, 690, 80, 96},        {90, 700, 2, 3, 80, 690, 96},
      {64, 64, 63, 63, 1, 1, 8},           {513, 257, 0, 0, 513, 257, 488},
      {1200, 900, 100, 50, 900, 700, 488},
  };
  std::uint32_t seed = 11;
  for (const Case& c : cases) {
    for (PixelFormat f : kFormats) {
      TestImage img = make_image(c.sw, c.sh, f, seed % 2 ? 3 : 0, seed);
      ++seed;
      img.view.matte = seed % 3 == 0 ? -1 : 200;
      if (seed % 4 == 1) img.view.black = 30, img.view.white = 220;
      const std::size_t n = 3 * static_cast<std::size_t>(c.side) * c.side;
      std::vector<float> fused(n, -999.f), ref(n, 999.f);
      table_preprocess(img.view, c.x, c.y, c.w, c.h, c.side, imagenet(), 0.f, fused.data());
      reference::table_preprocess(img.view, c.x, c.y, c.w, c.h, c.side, imagenet(), 0.f,
                                  ref.data());
      const double d = max_abs_diff(fused, ref);
      CHECK_NEAR(d, 0.0, kTol);
      if (d > kTol)
        std::fprintf(stderr, "  %dx%d rect %d,%d %dx%d side %d format %d\n", c.sw, c.sh, c.x, c.y,
                     c.w, c.h, c.side, static_cast<int>(f));
    }
  }
}

TEST(table_preprocess_pads_right_and_below) {
  TestImage img = make_image(50, 20, PixelFormat::kBGR, 0, 5);
  const int side = 32;
  std::vector<float> out(3 * side * side, 0.f);
  table_preprocess(img.view, 0, 0, 50, 20, side, imagenet(), -7.f, out.data());
  int ow, oh;
  table_input_size(50, 20, side, &ow, &oh);
  CHECK(ow == 32 && oh == 12);
  int pads = 0;
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < side; ++y)
      for (int x = 0; x < side; ++x) pads += out[(c * side + y) * side + x] == -7.f ? 1 : 0;
  CHECK(pads == 3 * side * (side - oh));
}

TEST(table_preprocess_refuses_rectangles_outside_the_image) {
  TestImage img = make_image(20, 10, PixelFormat::kBGR, 0, 1);
  std::vector<float> out(3 * 16 * 16);
  CHECK_THROWS(table_preprocess(img.view, -1, 0, 5, 5, 16, imagenet(), 0.f, out.data()));
  CHECK_THROWS(table_preprocess(img.view, 16, 0, 5, 5, 16, imagenet(), 0.f, out.data()));
  CHECK_THROWS(table_preprocess(img.view, 0, 6, 5, 5, 16, imagenet(), 0.f, out.data()));
  CHECK_THROWS(table_preprocess(img.view, 0, 0, 0, 5, 16, imagenet(), 0.f, out.data()));
  CHECK_THROWS(table_preprocess(img.view, 0, 0, 5, 5, 0, imagenet(), 0.f, out.data()));
  CHECK_THROWS(table_preprocess(img.view, 0, 0, 5, 5, 16, imagenet(), 0.f, nullptr));
}

TEST(luminance_min_map_matches_reference) {
  struct Case {
    int sw, sh, x, y, w, h, cell;
  };
  const Case cases[] = {{31, 17, 0, 0, 31, 17, 1},
                        {31, 17, 2, 3, 20, 11, 3},
                        {200, 120, 10, 5, 181, 97, 4},
                        {5, 5, 4, 4, 1, 1, 7}};
  std::uint32_t seed = 3;
  for (const Case& c : cases) {
    for (PixelFormat f : kFormats) {
      TestImage img = make_image(c.sw, c.sh, f, 2, seed++);
      img.view.matte = seed % 2 ? 255 : -1;
      if (seed % 3 == 0) img.view.black = 20, img.view.white = 200;
      const int mw = (c.w + c.cell - 1) / c.cell, mh = (c.h + c.cell - 1) / c.cell;
      std::vector<std::uint8_t> fused(mw * mh), ref(mw * mh);
      luminance_min_map(img.view, c.x, c.y, c.w, c.h, c.cell, fused.data());
      reference::luminance_min_map(img.view, c.x, c.y, c.w, c.h, c.cell, ref.data());
      int worst = 0;
      for (std::size_t i = 0; i < fused.size(); ++i)
        worst = std::max(worst, std::abs(int(fused[i]) - int(ref[i])));
      // Integer luminance and compositing in the fused kernel, double in the reference.
      CHECK(worst <= 2);
      if (worst > 2) std::fprintf(stderr, "  format %d cell %d: %d\n", int(f), c.cell, worst);
    }
  }
}

TEST(luminance_min_map_keeps_a_one_pixel_rule) {
  std::vector<std::uint8_t> px(40 * 40, 255);
  for (int x = 0; x < 40; ++x) px[17 * 40 + x] = 0;
  ImageView v;
  v.data = px.data();
  v.width = v.height = 40;
  v.stride = 40;
  v.format = PixelFormat::kGray;
  std::vector<std::uint8_t> map(10 * 10);
  luminance_min_map(v, 0, 0, 40, 40, 4, map.data());
  for (int x = 0; x < 10; ++x) {
    CHECK(map[4 * 10 + x] == 0);
    CHECK(map[3 * 10 + x] == 255);
  }
}

TEST_MAIN()
