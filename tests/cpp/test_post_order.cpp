// Reading order, including the cases where PaddleOCR's sorted_boxes fails.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "check.h"
#include "postprocess/order.h"

using namespace edgeocr;

namespace {

constexpr double kPi = 3.14159265358979323846;

Quad box(float x0, float y0, float x1, float y1) {
  Quad q;
  q.p[0] = {x0, y0};
  q.p[1] = {x1, y0};
  q.p[2] = {x1, y1};
  q.p[3] = {x0, y1};
  return q;
}

// A w x h box centred at (cx, cy), tilted by deg degrees (clockwise on screen).
Quad tilted(double cx, double cy, double w, double h, double deg) {
  const double c = std::cos(deg * kPi / 180), s = std::sin(deg * kPi / 180);
  const double du[2] = {w / 2 * c, w / 2 * s}, dn[2] = {-h / 2 * s, h / 2 * c};
  Quad q;
  q.p[0] = {float(cx - du[0] - dn[0]), float(cy - du[1] - dn[1])};
  q.p[1] = {float(cx + du[0] - dn[0]), float(cy + du[1] - dn[1])};
  q.p[2] = {float(cx + du[0] + dn[0]), float(cy + du[1] + dn[1])};
  q.p[3] = {float(cx - du[0] + dn[0]), float(cy - du[1] + dn[1])};
  return q;
}

// RapidOCR 1.4.4 / PaddleOCR sorted_boxes: sort by the top-left (y, x), then an
// insertion pass that swaps neighbours less than 10 px apart in y.
std::vector<int> paddle_sorted_boxes(const std::vector<Quad>& q) {
  std::vector<int> idx(q.size());
  for (size_t i = 0; i < q.size(); ++i) idx[i] = static_cast<int>(i);
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
    return q[a].p[0].y != q[b].p[0].y ? q[a].p[0].y < q[b].p[0].y : q[a].p[0].x < q[b].p[0].x;
  });
  for (int i = 0; i + 1 < static_cast<int>(idx.size()); ++i)
    for (int j = i; j >= 0; --j) {
      const Quad &a = q[idx[j]], &b = q[idx[j + 1]];
      if (std::fabs(b.p[0].y - a.p[0].y) < 10 && b.p[0].x < a.p[0].x)
        std::swap(idx[j], idx[j + 1]);
      else
        break;
    }
  return idx;
}

// The older single pass: only adjacent swaps, no bubbling back.
std::vector<int> paddle_single_pass(const std::vector<Quad>& q) {
  std::vector<int> idx(q.size());
  for (size_t i = 0; i < q.size(); ++i) idx[i] = static_cast<int>(i);
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
    return q[a].p[0].y != q[b].p[0].y ? q[a].p[0].y < q[b].p[0].y : q[a].p[0].x < q[b].p[0].x;
  });
  for (int i = 0; i + 1 < static_cast<int>(idx.size()); ++i) {
    const Quad &a = q[idx[i]], &b = q[idx[i + 1]];
    if (std::fabs(b.p[0].y - a.p[0].y) < 10 && b.p[0].x < a.p[0].x) std::swap(idx[i], idx[i + 1]);
  }
  return idx;
}

using Ids = std::vector<int>;

}  // namespace

TEST(empty_and_single) {
  CHECK(reading_order({}).empty());
  CHECK(reading_order({box(0, 0, 10, 10)}) == Ids({0}));
}

TEST(three_boxes_on_a_line_with_jitter) {
  // One line of 30 px boxes; top edges jitter by a few px, decreasing to the right.
  const std::vector<Quad> q = {box(200, 100, 290, 130), box(100, 103, 190, 133),
                               box(0, 106, 90, 136)};
  const Ids want = {2, 1, 0};
  CHECK(paddle_single_pass(q) != want);  // adjacent swaps only: ends as 1, 2, 0
  CHECK(reading_order(q) == want);
  // Jitter larger between the ends than between neighbours breaks the insertion
  // pass too: its 10 px test is not transitive.
  const std::vector<Quad> q2 = {box(100, 100, 190, 130), box(200, 106, 290, 136),
                                box(0, 112, 90, 142)};
  const Ids want2 = {2, 0, 1};
  CHECK(paddle_sorted_boxes(q2) != want2);  // 0, 2, 1
  CHECK(reading_order(q2) == want2);
}

TEST(scale_large_text_with_jitter_over_10px) {
  // 120 px high title words whose tops differ by 25 px: one line.
  const std::vector<Quad> q = {box(700, 0, 1000, 120), box(0, 25, 300, 145),
                               box(350, 12, 650, 132)};
  const Ids want = {1, 2, 0};
  CHECK(paddle_sorted_boxes(q) != want);
  CHECK(reading_order(q) == want);
}

TEST(scale_small_text_lines_closer_than_10px) {
  // 7 px high text, lines 9 px apart: two lines, not one.
  const std::vector<Quad> q = {box(50, 0, 90, 7), box(150, 0, 190, 7), box(0, 9, 40, 16),
                               box(100, 9, 140, 16)};
  const Ids want = {0, 1, 2, 3};
  CHECK(paddle_sorted_boxes(q) != want);
  CHECK(reading_order(q) == want);
  // The same page at 10x still reads the same: no pixel threshold.
  std::vector<Quad> big = q;
  for (auto& b : big)
    for (auto& p : b.p) p = {p.x * 10, p.y * 10};
  CHECK(reading_order(big) == want);
}

TEST(tall_box_does_not_swallow_two_lines) {
  // Lines of 20 px boxes at y 10..30 and 40..60; a 50 px box spans both.
  const std::vector<Quad> q = {box(120, 40, 220, 60), box(0, 10, 100, 30), box(240, 10, 300, 60),
                               box(0, 40, 100, 60), box(120, 10, 220, 30)};
  // Line 1, the tall box on its own (its centre is between the lines), line 2.
  CHECK(reading_order(q) == Ids({1, 4, 2, 3, 0}));
  // A tall box aligned with the first line joins it, and only it.
  const std::vector<Quad> q2 = {box(120, 40, 220, 60), box(0, 10, 100, 30), box(240, 8, 300, 46),
                                box(0, 40, 100, 60), box(120, 10, 220, 30)};
  CHECK(reading_order(q2) == Ids({1, 4, 2, 3, 0}));
}

TEST(slightly_different_heights_share_a_line) {
  // Baseline at y = 130: boxes 30, 22, 12 (punctuation) and 34 px high; a second line below.
  const std::vector<Quad> q = {box(300, 96, 400, 130),  box(0, 100, 100, 130),
                               box(230, 118, 245, 130), box(120, 108, 220, 130),
                               box(0, 150, 150, 180),   box(170, 150, 300, 180)};
  CHECK(reading_order(q) == Ids({1, 3, 2, 0, 4, 5}));
}

TEST(tilted_lines) {
  // Two lines tilted by 6 degrees, four words each over 800 px: along a line the
  // centres drop by ~80 px, more than the 45 px line pitch.
  for (double deg : {6.0, -6.0}) {
    std::vector<Quad> q;
    Ids want;
    const double c = std::cos(deg * kPi / 180), s = std::sin(deg * kPi / 180);
    for (int line = 0; line < 2; ++line)
      for (int word = 0; word < 4; ++word) {
        const double u = word * 220.0, v = line * 45.0;  // along / across the line
        q.push_back(tilted(100 + u * c - v * s, 300 + u * s + v * c, 180, 30, deg));
        want.push_back(line * 4 + word);
      }
    std::vector<int> perm = want;
    std::mt19937 rng(deg > 0 ? 1 : 2);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<Quad> shuffled;
    for (int i : perm) shuffled.push_back(q[i]);
    Ids got;
    for (int i : reading_order(shuffled)) got.push_back(perm[i]);
    CHECK(got == want);
  }
}

TEST(two_columns_read_row_by_row) {
  // A left and a right column of boxes with different heights and a few px of
  // jitter: each row reads left then right (no column detection, see order.h).
  std::vector<Quad> q;
  Ids want;
  for (int row = 0; row < 5; ++row) {
    const float y = 40.f * row;
    q.push_back(box(0, y + (row % 2) * 3, 300, y + 24 + (row % 2) * 3));
    q.push_back(box(400, y + 5 - (row % 3) * 2, 700, y + 25 - (row % 3) * 2));
  }
  for (int i = 0; i < 10; ++i) want.push_back(i);
  std::reverse(q.begin(), q.end());
  Ids got;
  for (int i : reading_order(q)) got.push_back(9 - i);
  CHECK(got == want);
}

TEST(shuffled_grid_gives_the_same_order) {
  // 6 rows x 5 columns with jitter of a few px and varying widths.
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> jitter(-4.f, 4.f);
  std::vector<Quad> grid;
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 5; ++c) {
      const float x = 150.f * c + jitter(rng), y = 50.f * r + jitter(rng);
      grid.push_back(box(x, y, x + 100 + 5 * ((r + c) % 4), y + 28 + jitter(rng) / 2));
    }
  Ids want(grid.size());
  for (size_t i = 0; i < want.size(); ++i) want[i] = static_cast<int>(i);
  for (int trial = 0; trial < 50; ++trial) {
    Ids perm = want;
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<Quad> shuffled;
    for (int i : perm) shuffled.push_back(grid[i]);
    const Ids order = reading_order(shuffled);
    Ids got;
    for (int i : order) got.push_back(perm[i]);
    CHECK(got == want);
    if (got != want) break;
  }
}

TEST(result_is_a_permutation_for_random_boxes) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> pos(0.f, 1000.f), size(2.f, 80.f);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<Quad> q;
    for (int i = 0; i < 200; ++i) {
      const float x = pos(rng), y = pos(rng);
      q.push_back(box(x, y, x + size(rng) * 3, y + size(rng)));
    }
    Ids order = reading_order(q);
    std::sort(order.begin(), order.end());
    Ids id(q.size());
    for (size_t i = 0; i < id.size(); ++i) id[i] = static_cast<int>(i);
    CHECK(order == id);
  }
}

TEST_MAIN()
