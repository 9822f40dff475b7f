// DB post-processing on synthetic probability maps with known boxes, and the
// geometry underneath it (hull, minimum-area rectangle, corner order).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "check.h"
#include "edgeocr/status.h"
#include "postprocess/db.h"
#include "postprocess/geometry.h"

using namespace edgeocr;

namespace {

constexpr double kPi = 3.14159265358979323846;

struct Map {
  int w, h;
  std::vector<float> p;
  Map(int w_, int h_, float bg = 0.f) : w(w_), h(h_), p(static_cast<size_t>(w_) * h_, bg) {}
  float& at(int x, int y) { return p[static_cast<size_t>(y) * w + x]; }
  // Pixels [x0, x1] x [y0, y1], inclusive.
  void fill(int x0, int y0, int x1, int y1, float v) {
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) at(x, y) = v;
  }
  // Pixels whose centre lies inside the rectangle of size rw x rh centred at
  // (cx, cy), its width axis turned by deg degrees (clockwise on screen, y down).
  void fill_rotated(double cx, double cy, double rw, double rh, double deg, float v) {
    const double c = std::cos(deg * kPi / 180), s = std::sin(deg * kPi / 180);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const double dx = x - cx, dy = y - cy;
        const double u = dx * c + dy * s, n = -dx * s + dy * c;
        if (std::fabs(u) <= rw / 2 && std::fabs(n) <= rh / 2) at(x, y) = v;
      }
  }
};

std::vector<DetBox> run(const Map& m, const DbParams& prm, int src_w = -1, int src_h = -1) {
  return db_postprocess(m.p.data(), m.w, m.h, src_w < 0 ? m.w : src_w, src_h < 0 ? m.h : src_h,
                        prm);
}

// The expected output for an axis-aligned block of pixels [x0, x1] x [y0, y1]:
// the rectangle through the pixel centres grown by d = area * ratio / perimeter.
Quad expected_block(double x0, double y0, double x1, double y1, double ratio, double sx = 1,
                    double sy = 1) {
  const double w = x1 - x0, h = y1 - y0;
  const double d = w * h * ratio / (2 * (w + h));
  Quad q;
  q.p[0] = {float((x0 - d) * sx), float((y0 - d) * sy)};
  q.p[1] = {float((x1 + d) * sx), float((y0 - d) * sy)};
  q.p[2] = {float((x1 + d) * sx), float((y1 + d) * sy)};
  q.p[3] = {float((x0 - d) * sx), float((y1 + d) * sy)};
  return q;
}

Quad clipped(Quad q, int w, int h) {
  for (auto& p : q.p) {
    p.x = std::clamp(p.x, 0.f, float(w - 1));
    p.y = std::clamp(p.y, 0.f, float(h - 1));
  }
  return q;
}

double max_corner_error(const Quad& a, const Quad& b) {
  double e = 0;
  for (int i = 0; i < 4; ++i)
    e = std::max(
        {e, double(std::fabs(a.p[i].x - b.p[i].x)), double(std::fabs(a.p[i].y - b.p[i].y))});
  return e;
}

void print_quad(const char* what, const Quad& q) {
  std::fprintf(stderr, "  %s: (%.1f,%.1f) (%.1f,%.1f) (%.1f,%.1f) (%.1f,%.1f)\n", what, q.p[0].x,
               q.p[0].y, q.p[1].x, q.p[1].y, q.p[2].x, q.p[2].y, q.p[3].x, q.p[3].y);
}

// Corners within tol pixels, in the same order.
#define CHECK_QUAD(got, want, tol)                     \
  do {                                                 \
    const double e_ = max_corner_error((got), (want)); \
    CHECK_NEAR(e_, 0.0, (tol));                        \
    if (e_ > (tol)) {                                  \
      print_quad("got ", (got));                       \
      print_quad("want", (want));                      \
    }                                                  \
  } while (0)

}  // namespace

// ---- geometry ----

TEST(hull_and_min_area_rect_match_brute_force) {
  std::mt19937 rng(7);
  std::vector<Vec2d> hull;
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 3 + static_cast<int>(rng() % 60);
    std::uniform_int_distribution<int> coord(0, 40);
    std::vector<Vec2d> pts(static_cast<size_t>(n));
    for (auto& p : pts) p = {double(coord(rng)), double(coord(rng))};
    std::sort(pts.begin(), pts.end(),
              [](const Vec2d& a, const Vec2d& b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
    convex_hull_yx_sorted(pts.data(), n, &hull);
    const int m = static_cast<int>(hull.size());
    if (m < 3) continue;
    // Hull is strictly convex with positive orientation and holds every point.
    for (int i = 0; i < m; ++i) {
      const Vec2d &a = hull[i], &b = hull[(i + 1) % m];
      const Vec2d& c = hull[(i + 2) % m];
      CHECK((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x) > 0);
      for (const auto& p : pts)
        CHECK((b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x) >= -1e-9);
    }
    // Brute force: the best rectangle has a side on a hull edge.
    double best = 1e300;
    for (int i = 0; i < m; ++i) {
      const double ex = hull[(i + 1) % m].x - hull[i].x, ey = hull[(i + 1) % m].y - hull[i].y;
      const double len = std::hypot(ex, ey);
      double u0 = 1e300, u1 = -1e300, v0 = 1e300, v1 = -1e300;
      for (const auto& p : hull) {
        const double u = (p.x * ex + p.y * ey) / len, v = (-p.x * ey + p.y * ex) / len;
        u0 = std::min(u0, u), u1 = std::max(u1, u), v0 = std::min(v0, v), v1 = std::max(v1, v);
      }
      best = std::min(best, (u1 - u0) * (v1 - v0));
    }
    const RotatedRect r = min_area_rect(hull.data(), m);
    CHECK_NEAR(r.width * r.height, best, 1e-6 * std::max(1.0, best));
    // Every point lies inside the rectangle.
    const double nx = -r.axis.y, ny = r.axis.x;
    for (const auto& p : pts) {
      const double dx = p.x - r.center.x, dy = p.y - r.center.y;
      CHECK(std::fabs(dx * r.axis.x + dy * r.axis.y) <= r.width / 2 + 1e-6);
      CHECK(std::fabs(dx * nx + dy * ny) <= r.height / 2 + 1e-6);
    }
  }
}

TEST(degenerate_hulls) {
  std::vector<Vec2d> hull;
  const Vec2d one[] = {{3, 4}};
  convex_hull_yx_sorted(one, 1, &hull);
  CHECK(hull.size() == 1);
  CHECK(min_area_rect(hull.data(), 1).short_side() == 0);
  const Vec2d line[] = {{1, 2}, {2, 2}, {5, 2}};
  convex_hull_yx_sorted(line, 3, &hull);
  CHECK(hull.size() == 2);
  const RotatedRect r = min_area_rect(hull.data(), 2);
  CHECK_NEAR(r.width, 4, 1e-12);
  CHECK_NEAR(r.height, 0, 1e-12);
  convex_hull_yx_sorted(line, 0, &hull);
  CHECK(hull.empty());
}

TEST(corner_order_is_paddle_get_mini_boxes) {
  // A rectangle tilted by 20 degrees, corners given in a scrambled cyclic order.
  RotatedRect r;
  r.center = {50, 40};
  r.axis = {std::cos(20 * kPi / 180), std::sin(20 * kPi / 180)};
  r.width = 60;
  r.height = 10;
  Vec2d c[4];
  r.corners(c);  // TL, TR, BR, BL for a tilt below 45 degrees
  const Vec2d scrambled[4] = {c[2], c[3], c[0], c[1]};
  const Quad q = order_box_points(scrambled);
  for (int i = 0; i < 4; ++i) {
    CHECK_NEAR(q.p[i].x, c[i].x, 1e-4);
    CHECK_NEAR(q.p[i].y, c[i].y, 1e-4);
  }
}

// ---- DB post-processing ----

TEST(axis_aligned_boxes) {
  Map m(200, 100, 0.02f);
  m.fill(20, 10, 119, 29, 0.9f);  // 100 x 20 pixels
  m.fill(30, 60, 79, 75, 0.8f);   // 50 x 16 pixels
  DbParams prm;
  const auto boxes = run(m, prm);
  CHECK(boxes.size() == 2);
  if (boxes.size() != 2) return;
  // Rounding to whole pixels: 0.5 px.
  CHECK_QUAD(boxes[0].quad, clipped(expected_block(20, 10, 119, 29, prm.unclip_ratio), 200, 100),
             0.5);
  CHECK_QUAD(boxes[1].quad, expected_block(30, 60, 79, 75, prm.unclip_ratio), 0.5);
  CHECK_NEAR(boxes[0].score, 0.9, 1e-5);
  CHECK_NEAR(boxes[1].score, 0.8, 1e-5);
}

TEST(rotated_boxes_15_and_30_degrees) {
  for (double deg : {15.0, 30.0, -15.0}) {
    Map m(300, 200, 0.f);
    m.fill_rotated(150, 100, 160, 30, deg, 0.9f);
    DbParams prm;
    const auto boxes = run(m, prm);
    CHECK(boxes.size() == 1);
    if (boxes.size() != 1) continue;
    // The pixel centres inside a rw x rh rectangle span about (rw-1) x (rh-1).
    RotatedRect want;
    want.center = {150, 100};
    want.axis = {std::cos(deg * kPi / 180), std::sin(deg * kPi / 180)};
    const double w = 159, h = 29, d = w * h * prm.unclip_ratio / (2 * (w + h));
    want.width = w + 2 * d;
    want.height = h + 2 * d;
    Vec2d c[4];
    want.corners(c);
    Quad q;
    for (int i = 0; i < 4; ++i) q.p[i] = {float(c[i].x), float(c[i].y)};
    // Rasterisation moves the hull by up to a pixel and tilts it a little: 2 px.
    CHECK_QUAD(boxes[0].quad, q, 2.0);
    const Quad& b = boxes[0].quad;
    const double angle = std::atan2(b.p[1].y - b.p[0].y, b.p[1].x - b.p[0].x) * 180 / kPi;
    CHECK_NEAR(angle, deg, 1.0);
    // The fast score covers the rectangle, a few border pixels of it are background.
    CHECK(boxes[0].score > 0.85f && boxes[0].score <= 0.9f);
  }
}

TEST(nearby_boxes_stay_separate_and_dilation_joins_them) {
  Map m(120, 60, 0.f);
  m.fill(10, 10, 49, 29, 0.9f);
  m.fill(51, 10, 90, 29, 0.9f);  // one background column between them
  m.fill(10, 31, 90, 45, 0.9f);  // one background row below both
  DbParams prm;
  auto boxes = run(m, prm);
  CHECK(boxes.size() == 3);
  if (boxes.size() == 3) {
    CHECK_QUAD(boxes[0].quad, expected_block(10, 10, 49, 29, prm.unclip_ratio), 0.5);
    CHECK_QUAD(boxes[1].quad, expected_block(51, 10, 90, 29, prm.unclip_ratio), 0.5);
    CHECK_QUAD(boxes[2].quad, expected_block(10, 31, 90, 45, prm.unclip_ratio), 0.5);
  }
  // Diagonal neighbours are connected (8-connectivity).
  Map diag(60, 60, 0.f);
  diag.fill(5, 5, 20, 20, 0.9f);
  diag.fill(21, 21, 40, 40, 0.9f);
  DbParams loose = prm;
  loose.box_thresh = 0.1f;  // the rectangle around the diagonal pair is half background
  CHECK(run(diag, loose).size() == 1);

  // The 2x2 dilation grows regions right and down by one pixel, which closes
  // one-pixel gaps: the three blocks become one region spanning [10, 91] x [10, 46].
  prm.use_dilation = true;
  boxes = run(m, prm);
  CHECK(boxes.size() == 1);
  if (boxes.size() == 1) {
    CHECK_QUAD(boxes[0].quad, clipped(expected_block(10, 10, 91, 46, prm.unclip_ratio), 120, 60),
               0.5);
    // Score over the rectangle: the dilated pixels and the gaps hold 0.
    CHECK(boxes[0].score > 0.8f && boxes[0].score < 0.9f);
  }
}

TEST(box_touching_the_border_is_clipped) {
  Map m(100, 50, 0.f);
  m.fill(0, 0, 39, 9, 0.9f);
  m.fill(70, 35, 99, 49, 0.9f);
  DbParams prm;
  const auto boxes = run(m, prm);
  CHECK(boxes.size() == 2);
  if (boxes.size() != 2) return;
  CHECK_QUAD(boxes[0].quad, clipped(expected_block(0, 0, 39, 9, prm.unclip_ratio), 100, 50), 0.5);
  CHECK_QUAD(boxes[1].quad, clipped(expected_block(70, 35, 99, 49, prm.unclip_ratio), 100, 50),
             0.5);
  CHECK(boxes[0].quad.p[0].x == 0.f && boxes[0].quad.p[0].y == 0.f);
  CHECK(boxes[1].quad.p[2].x == 99.f && boxes[1].quad.p[2].y == 49.f);
}

TEST(noise_below_thresh_is_ignored) {
  Map m(200, 100);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> noise(0.f, 0.299f);
  for (auto& v : m.p) v = noise(rng);
  m.fill(50, 40, 149, 59, 0.95f);
  DbParams prm;
  const auto boxes = run(m, prm);
  CHECK(boxes.size() == 1);
  if (boxes.size() == 1) {
    CHECK_QUAD(boxes[0].quad, expected_block(50, 40, 149, 59, prm.unclip_ratio), 0.5);
    CHECK_NEAR(boxes[0].score, 0.95, 1e-5);
  }
}

TEST(low_score_region_dropped_by_box_thresh) {
  Map m(200, 100, 0.f);
  m.fill(10, 10, 89, 29, 0.5f);  // above thresh 0.3, below box_thresh 0.6
  m.fill(10, 60, 89, 79, 0.7f);
  DbParams prm;
  for (auto mode : {DbScoreMode::kFast, DbScoreMode::kSlow}) {
    prm.score_mode = mode;
    const auto boxes = run(m, prm);
    CHECK(boxes.size() == 1);
    if (boxes.size() == 1) CHECK_NEAR(boxes[0].score, 0.7, 1e-5);
  }
  prm.box_thresh = 0.45f;
  CHECK(run(m, prm).size() == 2);
}

TEST(slow_score_averages_the_region_fast_the_rectangle) {
  // An L: the rectangle around it is mostly background, the region is not.
  Map m(100, 100, 0.f);
  m.fill(10, 10, 19, 79, 0.9f);
  m.fill(10, 70, 79, 79, 0.9f);
  DbParams prm;
  prm.score_mode = DbScoreMode::kSlow;
  auto boxes = run(m, prm);
  CHECK(boxes.size() == 1);
  if (boxes.size() == 1) CHECK_NEAR(boxes[0].score, 0.9, 1e-5);
  prm.score_mode = DbScoreMode::kFast;
  boxes = run(m, prm);
  CHECK(boxes.empty());  // 0.9 * (10*70 + 60*10) / (70*70) ~ 0.24
  prm.box_thresh = 0.2f;
  boxes = run(m, prm);
  CHECK(boxes.size() == 1);
  if (boxes.size() == 1) CHECK_NEAR(boxes[0].score, 0.9 * 1300.0 / 4900.0, 1e-4);
}

TEST(tiny_regions_dropped_by_min_size) {
  Map m(100, 40, 0.f);
  m.fill(10, 10, 12, 12, 0.9f);  // 3x3 pixels: centres span 2 < 3
  m.fill(30, 10, 79, 11, 0.9f);  // 50x2: short side 1
  m.fill(30, 20, 33, 23, 0.9f);  // 4x4: span 3, kept; grown 3 + 2*1.125 = 5.25 >= 5
  DbParams prm;
  auto boxes = run(m, prm);
  CHECK(boxes.size() == 1);
  if (boxes.size() == 1)
    CHECK_QUAD(boxes[0].quad, expected_block(30, 20, 33, 23, prm.unclip_ratio), 0.5);
  // After unclip the short side must reach min_size + 2: with no unclip 3 < 5.
  prm.unclip_ratio = 0.f;
  CHECK(run(m, prm).empty());
}

TEST(scaled_to_a_source_size_different_from_the_map) {
  Map m(160, 96, 0.f);
  m.fill(20, 30, 99, 49, 0.9f);
  DbParams prm;
  prm.unclip_ratio = 2.0f;
  const int src_w = 500, src_h = 250;  // non-integer scales 3.125 and 2.604
  const auto boxes = run(m, prm, src_w, src_h);
  CHECK(boxes.size() == 1);
  if (boxes.size() != 1) return;
  const Quad want = expected_block(20, 30, 99, 49, 2.0, 500.0 / 160, 250.0 / 96);
  CHECK_QUAD(boxes[0].quad, want, 0.5);
  for (const auto& p : boxes[0].quad.p) {
    CHECK(p.x == std::round(p.x));
    CHECK(p.y == std::round(p.y));
  }
}

TEST(max_candidates_keeps_the_largest_in_scan_order) {
  Map m(200, 100, 0.f);
  m.fill(10, 10, 29, 19, 0.9f);   // small, first in scan order
  m.fill(50, 20, 149, 39, 0.9f);  // large
  m.fill(10, 60, 89, 79, 0.9f);   // medium
  DbParams prm;
  prm.max_candidates = 2;
  const auto boxes = run(m, prm);
  CHECK(boxes.size() == 2);
  if (boxes.size() == 2) {
    CHECK_QUAD(boxes[0].quad, expected_block(50, 20, 149, 39, prm.unclip_ratio), 0.5);
    CHECK_QUAD(boxes[1].quad, clipped(expected_block(10, 60, 89, 79, prm.unclip_ratio), 200, 100),
               0.5);
  }
  prm.max_candidates = 0;
  CHECK(run(m, prm).empty());
}

TEST(region_with_a_hole_gives_one_box) {
  Map m(100, 60, 0.f);
  m.fill(10, 10, 89, 49, 0.9f);
  m.fill(30, 20, 69, 39, 0.f);
  DbParams prm;
  prm.box_thresh = 0.3f;
  CHECK(run(m, prm).size() == 1);
}

TEST(workspace_reuse_gives_the_same_result) {
  DbWorkspace ws;
  DbParams prm;
  prm.use_dilation = true;
  Map big(300, 200, 0.f), small(50, 40, 0.f);
  big.fill(20, 20, 200, 50, 0.9f);
  big.fill_rotated(150, 130, 120, 20, 10, 0.8f);
  small.fill(5, 5, 40, 20, 0.9f);
  for (int round = 0; round < 3; ++round) {
    for (const Map* m : {&big, &small}) {
      const auto a = db_postprocess(m->p.data(), m->w, m->h, m->w, m->h, prm, &ws);
      const auto b = db_postprocess(m->p.data(), m->w, m->h, m->w, m->h, prm);
      CHECK(a.size() == b.size());
      for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        CHECK(max_corner_error(a[i].quad, b[i].quad) == 0);
        CHECK(a[i].score == b[i].score);
      }
    }
  }
}

TEST(empty_and_full_maps) {
  Map empty(64, 32, 0.f);
  DbParams prm;
  CHECK(run(empty, prm).empty());
  Map full(64, 32, 1.f);
  const auto boxes = run(full, prm);
  CHECK(boxes.size() == 1);
  if (boxes.size() == 1)
    CHECK_QUAD(boxes[0].quad, clipped(expected_block(0, 0, 63, 31, 1.5), 64, 32), 0.5);
  Map nan_map(16, 16, std::nanf(""));
  CHECK(run(nan_map, prm).empty());
}

TEST(bad_arguments_throw) {
  Map m(10, 10, 0.f);
  DbParams prm;
  auto code_of = [&](const float* p, int mw, int mh, int sw, int sh, const DbParams& pr) {
    try {
      db_postprocess(p, mw, mh, sw, sh, pr);
    } catch (const Error& e) {
      return e.code();
    }
    return StatusCode::kOk;
  };
  CHECK(code_of(nullptr, 10, 10, 10, 10, prm) == StatusCode::kInvalidArgument);
  CHECK(code_of(m.p.data(), 0, 10, 10, 10, prm) == StatusCode::kInvalidArgument);
  CHECK(code_of(m.p.data(), 10, -1, 10, 10, prm) == StatusCode::kInvalidArgument);
  CHECK(code_of(m.p.data(), 10, 10, 0, 10, prm) == StatusCode::kInvalidArgument);
  CHECK(code_of(m.p.data(), 10, 10, 10, -5, prm) == StatusCode::kInvalidArgument);
  CHECK(code_of(m.p.data(), 1 << 16, 1 << 16, 10, 10, prm) == StatusCode::kInvalidArgument);
  DbParams bad = prm;
  bad.unclip_ratio = -1.f;
  CHECK(code_of(m.p.data(), 10, 10, 10, 10, bad) == StatusCode::kInvalidArgument);
  bad = prm;
  bad.max_candidates = -1;
  CHECK(code_of(m.p.data(), 10, 10, 10, 10, bad) == StatusCode::kInvalidArgument);
  bad = prm;
  bad.thresh = std::nanf("");
  CHECK(code_of(m.p.data(), 10, 10, 10, 10, bad) == StatusCode::kInvalidArgument);
  CHECK(code_of(m.p.data(), 10, 10, 10, 10, prm) == StatusCode::kOk);
}

// Printed, not asserted: a 960x960 map with 50 text-like boxes and background noise.
TEST(timing_960x960_50_boxes) {
  Map m(960, 960);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> noise(0.f, 0.1f);
  for (auto& v : m.p) v = noise(rng);
  int placed = 0;
  for (int row = 0; row < 25; ++row)
    for (int col = 0; col < 2; ++col) {
      const int x0 = 20 + col * 470, y0 = 15 + row * 37;
      if (row % 5 == 2) {
        m.fill_rotated(x0 + 200, y0 + 12, 380, 14, col == 0 ? 3 : -3, 0.9f);
      } else {
        m.fill(x0, y0, x0 + 150 + 30 * ((row + col) % 7), y0 + 17, 0.85f);
      }
      ++placed;
    }
  DbParams prm;
  prm.use_dilation = true;
  prm.box_thresh = 0.5f;
  DbWorkspace ws;
  std::vector<DetBox> boxes;
  for (int i = 0; i < 3; ++i) boxes = db_postprocess(m.p.data(), 960, 960, 1920, 1920, prm, &ws);
  CHECK(static_cast<int>(boxes.size()) == placed);
  for (auto mode : {DbScoreMode::kFast, DbScoreMode::kSlow}) {
    prm.score_mode = mode;
    const int iters = 100;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i)
      boxes = db_postprocess(m.p.data(), 960, 960, 1920, 1920, prm, &ws);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
        iters;
    std::printf("db_postprocess 960x960, %zu boxes, dilation on, %s score: %.3f ms/call\n",
                boxes.size(), mode == DbScoreMode::kFast ? "fast" : "slow", ms);
  }
}

TEST_MAIN()
