// crop_size and the fused crop_preprocess against the plain reference and against det_preprocess.
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

// Fused (closed-form homography, float blend) vs reference (8x8 solve, double), normalised.
constexpr double kTol = 1e-4;

using edgeocr_test::make_image;
using edgeocr_test::max_abs_diff;
using edgeocr_test::TestImage;

Quad quad(float x0, float y0, float x1, float y1, float x2, float y2, float x3, float y3) {
  Quad q;
  q.p[0] = {x0, y0};
  q.p[1] = {x1, y1};
  q.p[2] = {x2, y2};
  q.p[3] = {x3, y3};
  return q;
}

// A w x h rectangle centred at (cx, cy), rotated by angle (radians), corners jittered by up to
// `jitter` pixels so the quad is a general (projective) one.
Quad random_quad(std::mt19937& rng, float cx, float cy, float w, float h, float angle,
                 float jitter) {
  std::uniform_real_distribution<float> j(-jitter, jitter);
  const float c = std::cos(angle), s = std::sin(angle);
  const float local[4][2] = {{-w / 2, -h / 2}, {w / 2, -h / 2}, {w / 2, h / 2}, {-w / 2, h / 2}};
  Quad q;
  for (int i = 0; i < 4; ++i) {
    q.p[i].x = cx + c * local[i][0] - s * local[i][1] + j(rng);
    q.p[i].y = cy + s * local[i][0] + c * local[i][1] + j(rng);
  }
  return q;
}

const PixelFormat kFormats[] = {PixelFormat::kBGR,  PixelFormat::kRGB,  PixelFormat::kGray,
                                PixelFormat::kBGRA, PixelFormat::kRGBA, PixelFormat::kGrayAlpha};

}  // namespace

TEST(crop_size_follows_paddleocr) {
  int w = 0, h = 0;
  crop_size(quad(10, 10, 110, 10, 110, 42, 10, 42), &w, &h);
  CHECK(w == 100 && h == 32);
  // max of the opposite sides, truncated: top 5, bottom 6.02 -> 6; left 3, right 4.29 -> 4.
  crop_size(quad(0, 0, 5, 0, 5.9f, 4.2f, 0, 3), &w, &h);
  CHECK(w == 6);
  CHECK(h == 4);
  crop_size(quad(3, 3, 3, 3, 3, 3, 3, 3), &w, &h);  // a point still gives a 1x1 crop
  CHECK(w == 1 && h == 1);
  CHECK_THROWS(crop_size(quad(0, 0, NAN, 0, 1, 1, 0, 1), &w, &h));
  CHECK_THROWS(crop_size(quad(0, 0, 1, 0, 1, 1, 0, 1), nullptr, &h));
}

TEST(crop_matches_reference_on_random_quads) {
  std::mt19937 rng(2024);
  std::uniform_real_distribution<float> angle(-3.2f, 3.2f);
  struct Shape {
    int out_w, out_h, dst_w;
  };
  const Shape shapes[] = {{320, 48, 320}, {100, 48, 320}, {1, 1, 1}, {7, 3, 9}, {192, 48, 200}};
  int n = 0;
  for (PixelFormat f : kFormats) {
    TestImage img = make_image(203, 151, f, (static_cast<int>(f) * 3) % 7, 100 + n);
    for (const Shape& s : shapes) {
      for (int k = 0; k < 4; ++k, ++n) {
        // Alpha ignored / composited onto white / onto a grey; levels as stored / stretched.
        img.view.matte = n % 3 == 0 ? -1 : (n % 3 == 1 ? 255 : 37);
        img.view.black = n % 4 == 1 ? 40 : 0;
        img.view.white = n % 4 == 1 ? 90 : 255;
        // Small and big crops, some partly outside the image (replicated border).
        const float w = 2 + 180 * std::uniform_real_distribution<float>(0, 1)(rng);
        const float h = 1 + 60 * std::uniform_real_distribution<float>(0, 1)(rng);
        const float cx = std::uniform_real_distribution<float>(-10, 213)(rng);
        const float cy = std::uniform_real_distribution<float>(-10, 161)(rng);
        const Quad q = random_quad(rng, cx, cy, w, h, k == 0 ? 0.f : angle(rng), k < 2 ? 0.f : 3.f);
        NormalizeParams norm;
        norm.to_rgb = (n % 2) == 0;
        norm.mean[0] = 0.485f, norm.std[2] = 0.225f;
        const std::size_t sz = 3 * static_cast<std::size_t>(s.out_h) * s.dst_w;
        std::vector<float> fused(sz, -999.f), ref(sz, 999.f);
        crop_preprocess(img.view, q, s.out_w, s.out_h, s.dst_w, norm, -7.f, fused.data());
        reference::crop_preprocess(img.view, q, s.out_w, s.out_h, s.dst_w, norm, -7.f, ref.data());
        const double d = max_abs_diff(fused, ref);
        CHECK_NEAR(d, 0.0, kTol);
        if (d > kTol)
          std::fprintf(stderr,
                       "  format %d out %dx%d dst_w %d quad (%g,%g) (%g,%g) (%g,%g) (%g,%g)\n",
                       static_cast<int>(f), s.out_w, s.out_h, s.dst_w, q.p[0].x, q.p[0].y, q.p[1].x,
                       q.p[1].y, q.p[2].x, q.p[2].y, q.p[3].x, q.p[3].y);
      }
    }
  }
}

TEST(crop_of_axis_aligned_quad_equals_resize_of_subimage) {
  for (PixelFormat f : kFormats) {
    const TestImage img = make_image(97, 61, f, 3, 7 + static_cast<int>(f));
    const int x0 = 11, y0 = 5, w = 70, h = 23;
    ImageView sub = img.view;
    sub.data = img.view.row(y0) + x0 * img.view.channels();
    sub.width = w;
    sub.height = h;
    const Quad q = quad(x0, y0, x0 + w, y0, x0 + w, y0 + h, x0, y0 + h);
    for (int out_w : {320, 70, 13}) {
      const int out_h = 48;
      std::vector<float> crop(3 * out_w * out_h), resized(3 * out_w * out_h);
      crop_preprocess(img.view, q, out_w, out_h, out_w, NormalizeParams{}, 0.f, crop.data());
      det_preprocess(sub, out_w, out_h, NormalizeParams{}, resized.data());
      CHECK_NEAR(max_abs_diff(crop, resized), 0.0, 1e-5);
    }
  }
}

TEST(crop_of_rotated_quad_equals_resize_of_rotated_subimage) {
  // Corners listed from the source's top-right, so the crop is the sub-rectangle turned 90
  // degrees counter-clockwise: crop pixel (i, j) is source pixel (xa - j, ya + i).
  const TestImage img = make_image(80, 90, PixelFormat::kBGR, 0, 42);
  const int xa = 60, ya = 10, cw = 50, ch = 30;
  const Quad q = quad(xa, ya, xa, ya + cw, xa - ch, ya + cw, xa - ch, ya);
  int w = 0, h = 0;
  crop_size(q, &w, &h);
  CHECK(w == cw && h == ch);
  std::vector<std::uint8_t> rot(static_cast<std::size_t>(cw) * ch * 3);
  for (int j = 0; j < ch; ++j)
    for (int i = 0; i < cw; ++i)
      for (int c = 0; c < 3; ++c)
        rot[(j * cw + i) * 3 + c] = img.view.row(ya + i)[(xa - j) * 3 + c];
  ImageView rv;
  rv.data = rot.data();
  rv.width = cw;
  rv.height = ch;
  rv.stride = cw * 3;
  rv.format = PixelFormat::kBGR;
  const int out_w = 160, out_h = 48;
  std::vector<float> crop(3 * out_w * out_h), resized(3 * out_w * out_h);
  crop_preprocess(img.view, q, out_w, out_h, out_w, NormalizeParams{}, 0.f, crop.data());
  det_preprocess(rv, out_w, out_h, NormalizeParams{}, resized.data());
  CHECK_NEAR(max_abs_diff(crop, resized), 0.0, 1e-5);
}

TEST(crop_pads_columns_beyond_out_w) {
  const TestImage img = make_image(64, 64, PixelFormat::kRGBA, 0, 8);
  const Quad q = quad(3.5f, 4, 60, 9, 58, 30, 2, 27);
  const int out_w = 37, out_h = 16, dst_w = 50;
  std::vector<float> padded(3 * out_h * dst_w, 123.f), tight(3 * out_h * out_w);
  crop_preprocess(img.view, q, out_w, out_h, dst_w, NormalizeParams{}, -2.5f, padded.data());
  crop_preprocess(img.view, q, out_w, out_h, out_w, NormalizeParams{}, -2.5f, tight.data());
  for (int c = 0; c < 3; ++c)
    for (int v = 0; v < out_h; ++v)
      for (int u = 0; u < dst_w; ++u) {
        const float got = padded[(c * out_h + v) * dst_w + u];
        if (u < out_w)
          CHECK(got == tight[(c * out_h + v) * out_w + u]);
        else
          CHECK(got == -2.5f);
      }
}

TEST(crop_rejects_bad_arguments) {
  const TestImage img = make_image(16, 16, PixelFormat::kBGR, 0, 1);
  const Quad q = quad(1, 1, 10, 1, 10, 5, 1, 5);
  std::vector<float> out(3 * 8 * 20);
  const NormalizeParams norm;
  auto code_of = [&](const ImageView& v, const Quad& qq, int w, int h, int dw, float* d) {
    try {
      crop_preprocess(v, qq, w, h, dw, norm, 0.f, d);
    } catch (const Error& e) {
      return e.code();
    }
    return StatusCode::kOk;
  };
  CHECK(code_of(img.view, q, 20, 8, 20, out.data()) == StatusCode::kOk);
  CHECK(code_of(img.view, q, 0, 8, 20, out.data()) == StatusCode::kInvalidArgument);
  CHECK(code_of(img.view, q, 20, 0, 20, out.data()) == StatusCode::kInvalidArgument);
  CHECK(code_of(img.view, q, 20, 8, 19, out.data()) == StatusCode::kInvalidArgument);
  CHECK(code_of(img.view, q, 20, 8, 20, nullptr) == StatusCode::kInvalidArgument);
  ImageView bad = img.view;
  bad.data = nullptr;
  CHECK(code_of(bad, q, 20, 8, 20, out.data()) == StatusCode::kInvalidArgument);
  const Quad nan_q = quad(1, 1, 10, 1, 10, INFINITY, 1, 5);
  CHECK(code_of(img.view, nan_q, 20, 8, 20, out.data()) == StatusCode::kInvalidArgument);
  // Collinear, not a parallelogram: no homography exists.
  const Quad line = quad(0, 0, 4, 0, 10, 0, 1, 0);
  CHECK(code_of(img.view, line, 20, 8, 20, out.data()) == StatusCode::kInvalidArgument);
  NormalizeParams zero_std;
  zero_std.std[0] = 0.f;
  CHECK_THROWS(crop_preprocess(img.view, q, 20, 8, 20, zero_std, 0.f, out.data()));
}

TEST(crop_of_degenerate_parallelogram_is_defined) {
  // A zero-height box (tl == bl, tr == br) is affine: a 1-pixel-high crop along the segment.
  const TestImage img = make_image(30, 30, PixelFormat::kGray, 0, 4);
  const Quad seg = quad(2, 7, 22, 7, 22, 7, 2, 7);
  std::vector<float> fused(3 * 4 * 20), ref(3 * 4 * 20);
  crop_preprocess(img.view, seg, 20, 4, 20, NormalizeParams{}, 0.f, fused.data());
  for (float v : fused) CHECK(std::isfinite(v));
  // Sampled points are source pixels (2 + cx, 7): compare with a resize of that row.
  ImageView row = img.view;
  row.data = img.view.row(7) + 2;
  row.width = 20;
  row.height = 1;
  det_preprocess(row, 20, 4, NormalizeParams{}, ref.data());
  CHECK_NEAR(max_abs_diff(fused, ref), 0.0, 1e-5);
}

TEST_MAIN()
