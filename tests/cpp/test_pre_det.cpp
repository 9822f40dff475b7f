// det_target_size and the fused det_preprocess against the plain reference.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "check.h"
#include "edgeocr/status.h"
#include "pre_test_util.h"
#include "preprocess/preprocess.h"
#include "preprocess/reference/reference.h"

using namespace edgeocr;

namespace {

// Fused (float, tables) vs reference (double, per pixel), after normalisation.
constexpr double kTol = 1e-4;

using edgeocr_test::make_image;
using edgeocr_test::max_abs_diff;
using edgeocr_test::TestImage;

NormalizeParams imagenet(bool to_rgb) {
  NormalizeParams n;
  const float mean[3] = {0.485f, 0.456f, 0.406f}, std[3] = {0.229f, 0.224f, 0.225f};
  for (int c = 0; c < 3; ++c) n.mean[c] = mean[c], n.std[c] = std[c];
  n.to_rgb = to_rgb;
  return n;
}

const PixelFormat kFormats[] = {PixelFormat::kBGR,  PixelFormat::kRGB,  PixelFormat::kGray,
                                PixelFormat::kBGRA, PixelFormat::kRGBA, PixelFormat::kGrayAlpha};

}  // namespace

TEST(det_target_size_matches_paddleocr) {
  // Expected values from a transcription of PaddleOCR DetResizeForTest type 0 in Python.
  struct Case {
    int w, h;
    DetLimitType t;
    int limit, cap, ew, eh;
  };
  const DetLimitType kMax = DetLimitType::kMax, kMin = DetLimitType::kMin;
  const Case cases[] = {
      {1240, 1675, kMax, 960, 4000, 704, 960}, {1240, 1675, kMin, 960, 4000, 1248, 1664},
      {80, 48, kMax, 960, 4000, 64, 64},  // 2.5 and 1.5 round half to even
      {5, 3, kMax, 960, 4000, 32, 32},         {1, 1, kMax, 960, 4000, 32, 32},
      {5, 3, kMin, 960, 4000, 1600, 960},      {100, 50, kMin, 736, 4000, 1472, 736},
      {100, 10, kMin, 960, 4000, 4000, 384},   {10, 100, kMin, 960, 4000, 384, 4000},
      {500, 300, kMax, 960, 4000, 512, 288},   {8000, 6000, kMax, 5000, 4000, 4000, 3008},
      {3000, 1000, kMax, 960, 4000, 960, 320}, {1000, 3, kMin, 32, 4000, 4000, 32},
  };
  for (const Case& c : cases) {
    DetResizeParams p;
    p.limit_type = c.t;
    p.limit_side_len = c.limit;
    p.max_side_len = c.cap;
    int w = 0, h = 0;
    det_target_size(c.w, c.h, p, &w, &h);
    CHECK(w == c.ew);
    CHECK(h == c.eh);
    if (w != c.ew || h != c.eh)
      std::fprintf(stderr, "  %dx%d -> %dx%d, expected %dx%d\n", c.w, c.h, w, h, c.ew, c.eh);
  }
}

TEST(det_target_size_rejects_bad_arguments) {
  DetResizeParams p;
  int w, h;
  CHECK_THROWS(det_target_size(0, 10, p, &w, &h));
  CHECK_THROWS(det_target_size(10, -1, p, &w, &h));
  CHECK_THROWS(det_target_size(10, 10, p, nullptr, &h));
  p.limit_side_len = 0;
  CHECK_THROWS(det_target_size(10, 10, p, &w, &h));
  p.limit_side_len = 960;
  p.max_side_len = -5;
  CHECK_THROWS(det_target_size(10, 10, p, &w, &h));
}

TEST(det_matches_reference_on_random_images) {
  struct Size {
    int sw, sh, ow, oh;
  };
  const Size sizes[] = {
      {1, 1, 5, 7},       {1, 17, 32, 32},      {17, 1, 32, 64},      {13, 7, 3, 5},
      {2, 3, 200, 150},   {333, 129, 161, 417}, {640, 480, 960, 736}, {1999, 37, 32, 32},
      {37, 1999, 64, 96}, {7, 9, 7, 9},         {300, 200, 1, 1},     {257, 255, 1024, 31},
  };
  std::uint32_t seed = 1;
  for (const Size& s : sizes) {
    for (PixelFormat f : kFormats) {
      for (int pad : {0, 5}) {
        TestImage img = make_image(s.sw, s.sh, f, pad, seed++);
        // Alpha ignored / composited onto white / onto a grey; levels as stored / stretched.
        img.view.matte = seed % 3 == 0 ? -1 : (seed % 3 == 1 ? 255 : 37);
        if (seed % 4 == 1) img.view.black = 40, img.view.white = 90;
        const NormalizeParams norm = (seed % 2) ? NormalizeParams{} : imagenet(seed % 4 == 0);
        const std::size_t n = 3 * static_cast<std::size_t>(s.ow) * s.oh;
        std::vector<float> fused(n, -999.f), ref(n, 999.f);
        det_preprocess(img.view, s.ow, s.oh, norm, fused.data());
        reference::det_preprocess(img.view, s.ow, s.oh, norm, ref.data());
        const double d = max_abs_diff(fused, ref);
        CHECK_NEAR(d, 0.0, kTol);
        if (d > kTol)
          std::fprintf(stderr, "  %dx%d -> %dx%d format %d pad %d\n", s.sw, s.sh, s.ow, s.oh,
                       static_cast<int>(f), pad);
      }
    }
  }
}

TEST(det_matches_reference_on_large_downscale) {
  // 16x down on a 4000-wide source: the coordinate tables must not lose precision.
  const TestImage img = make_image(4000, 3000, PixelFormat::kBGR, 3, 77);
  const int ow = 250, oh = 187;
  std::vector<float> fused(3 * ow * oh), ref(3 * ow * oh);
  for (bool to_rgb : {false, true}) {
    det_preprocess(img.view, ow, oh, imagenet(to_rgb), fused.data());
    reference::det_preprocess(img.view, ow, oh, imagenet(to_rgb), ref.data());
    CHECK_NEAR(max_abs_diff(fused, ref), 0.0, kTol);
  }
}

TEST(det_composites_alpha_onto_the_matte) {
  // Two opaque black pixels and two fully transparent ones: the transparent ones read as the matte.
  const std::uint8_t la[] = {0, 255, 0, 0, 0, 255, 0, 0};  // gray, alpha
  ImageView v;
  v.data = la;
  v.width = 2;
  v.height = 2;
  v.stride = 4;
  v.format = PixelFormat::kGrayAlpha;
  NormalizeParams unit;  // out = v / 255 with mean 0, std 1
  for (int c = 0; c < 3; ++c) unit.mean[c] = 0.f, unit.std[c] = 1.f;
  std::vector<float> out(3 * 4);
  for (int matte : {255, 0, 128}) {
    v.matte = matte;
    det_preprocess(v, 2, 2, unit, out.data());
    for (int c = 0; c < 3; ++c) {
      CHECK_NEAR(out[c * 4 + 0], 0.0, 1e-6);
      CHECK_NEAR(out[c * 4 + 1], matte / 255.0, 1e-6);
    }
  }
  v.matte = -1;  // alpha ignored: the stored grey (0)
  det_preprocess(v, 2, 2, unit, out.data());
  CHECK_NEAR(out[1], 0.0, 1e-6);
  // Levels: black 100, white 150 maps 125 to the middle of the range.
  const std::uint8_t g[] = {125};
  ImageView one;
  one.data = g;
  one.width = one.height = 1;
  one.stride = 1;
  one.format = PixelFormat::kGray;
  one.black = 100;
  one.white = 150;
  det_preprocess(one, 1, 1, unit, out.data());
  CHECK_NEAR(out[0], 0.5, 1e-6);
  one.black = 150;  // black >= white is refused
  CHECK_THROWS(det_preprocess(one, 1, 1, unit, out.data()));
}

TEST(det_same_size_is_exact_per_pixel_normalisation) {
  const TestImage img = make_image(31, 17, PixelFormat::kRGB, 1, 9);
  NormalizeParams norm = imagenet(false);  // output B, G, R from an RGB source
  std::vector<float> out(3 * 31 * 17);
  det_preprocess(img.view, 31, 17, norm, out.data());
  for (int y = 0; y < 17; ++y)
    for (int x = 0; x < 31; ++x)
      for (int c = 0; c < 3; ++c) {
        const int src_c = 2 - c;
        const double v = img.view.row(y)[x * 3 + src_c];
        CHECK_NEAR(out[(c * 17 + y) * 31 + x], (v / 255.0 - norm.mean[c]) / norm.std[c], 1e-5);
      }
}

TEST(det_gray_replicates_and_channel_order_follows_to_rgb) {
  const TestImage gray = make_image(9, 4, PixelFormat::kGray, 2, 5);
  NormalizeParams norm;  // same mean/std on all channels: the three planes must be equal
  std::vector<float> out(3 * 20 * 11);
  det_preprocess(gray.view, 20, 11, norm, out.data());
  for (int i = 0; i < 20 * 11; ++i) {
    CHECK(out[i] == out[220 + i]);
    CHECK(out[i] == out[440 + i]);
  }
  // A BGR image and the same pixels as RGB give the same output when to_rgb flips with them.
  TestImage bgr = make_image(23, 19, PixelFormat::kBGR, 0, 6);
  std::vector<std::uint8_t> rgb_pixels = bgr.pixels;
  for (std::size_t i = 0; i < rgb_pixels.size(); i += 3)
    std::swap(rgb_pixels[i], rgb_pixels[i + 2]);
  ImageView rgb = bgr.view;
  rgb.data = rgb_pixels.data();
  rgb.format = PixelFormat::kRGB;
  std::vector<float> a(3 * 40 * 30), b(3 * 40 * 30);
  det_preprocess(bgr.view, 40, 30, imagenet(true), a.data());
  det_preprocess(rgb, 40, 30, imagenet(true), b.data());
  CHECK(a == b);
}

TEST(det_steady_state_reuses_scratch_across_sizes) {
  // Alternate big and small outputs on one thread: stale scratch must never leak into results.
  const TestImage img = make_image(120, 90, PixelFormat::kBGRA, 4, 11);
  for (int ow : {400, 8, 96, 3, 400}) {
    const int oh = ow / 2 + 1;
    std::vector<float> fused(3 * ow * oh), ref(3 * ow * oh);
    det_preprocess(img.view, ow, oh, NormalizeParams{}, fused.data());
    reference::det_preprocess(img.view, ow, oh, NormalizeParams{}, ref.data());
    CHECK_NEAR(max_abs_diff(fused, ref), 0.0, kTol);
  }
}

TEST(det_window_is_exactly_that_window_of_the_frame) {
  // Tiled det runs (memory budget) sample each tile as the whole frame would.
  const TestImage img = make_image(333, 129, PixelFormat::kBGR, 3, 99);
  const int fw = 416, fh = 160;
  std::vector<float> frame(3 * static_cast<std::size_t>(fw) * fh);
  det_preprocess(img.view, fw, fh, NormalizeParams{}, frame.data());
  struct Win {
    int x, y, w, h;
  };
  for (const Win& win :
       {Win{0, 0, fw, fh}, Win{64, 32, 128, 96}, Win{fw - 32, fh - 32, 32, 32}, Win{5, 7, 1, 1}}) {
    std::vector<float> out(3 * static_cast<std::size_t>(win.w) * win.h);
    det_preprocess_window(img.view, fw, fh, win.x, win.y, win.w, win.h, NormalizeParams{},
                          out.data());
    bool same = true;
    for (int c = 0; c < 3; ++c)
      for (int y = 0; y < win.h; ++y)
        for (int x = 0; x < win.w; ++x)
          same = same && out[(static_cast<std::size_t>(c) * win.h + y) * win.w + x] ==
                             frame[(static_cast<std::size_t>(c) * fh + win.y + y) * fw + win.x + x];
    CHECK(same);
  }
  std::vector<float> out(32 * 32 * 3);
  auto code_of = [&](int x, int y, int w, int h) {
    try {
      det_preprocess_window(img.view, fw, fh, x, y, w, h, NormalizeParams{}, out.data());
    } catch (const Error& e) {
      return e.code();
    }
    return StatusCode::kOk;
  };
  CHECK(code_of(fw - 31, 0, 32, 32) == StatusCode::kInvalidArgument);  // past the right edge
  CHECK(code_of(-1, 0, 32, 32) == StatusCode::kInvalidArgument);
  CHECK(code_of(0, fh, 32, 1) == StatusCode::kInvalidArgument);
  CHECK(code_of(0, 0, 0, 32) == StatusCode::kInvalidArgument);
}

TEST(det_rejects_bad_arguments) {
  const TestImage img = make_image(8, 8, PixelFormat::kBGR, 0, 3);
  std::vector<float> out(3 * 8 * 8);
  const NormalizeParams norm;
  auto code_of = [&](ImageView v, int w, int h, NormalizeParams n, float* d) {
    try {
      det_preprocess(v, w, h, n, d);
    } catch (const Error& e) {
      return e.code();
    }
    return StatusCode::kOk;
  };
  CHECK(code_of(img.view, 0, 8, norm, out.data()) == StatusCode::kInvalidArgument);
  CHECK(code_of(img.view, 8, -1, norm, out.data()) == StatusCode::kInvalidArgument);
  CHECK(code_of(img.view, 8, 8, norm, nullptr) == StatusCode::kInvalidArgument);
  ImageView bad = img.view;
  bad.data = nullptr;
  CHECK(code_of(bad, 8, 8, norm, out.data()) == StatusCode::kInvalidArgument);
  bad = img.view;
  bad.stride = 8 * 3 - 1;
  CHECK(code_of(bad, 8, 8, norm, out.data()) == StatusCode::kInvalidArgument);
  bad = img.view;
  bad.width = 0;
  CHECK(code_of(bad, 8, 8, norm, out.data()) == StatusCode::kInvalidArgument);
  NormalizeParams zero_std;
  zero_std.std[1] = 0.f;
  CHECK(code_of(img.view, 8, 8, zero_std, out.data()) == StatusCode::kInvalidArgument);
  NormalizeParams nan_mean;
  nan_mean.mean[2] = std::nanf("");
  CHECK(code_of(img.view, 8, 8, nan_mean, out.data()) == StatusCode::kInvalidArgument);
}

TEST_MAIN()
