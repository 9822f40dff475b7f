#include "postprocess/db.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "edgeocr/status.h"

namespace edgeocr {

namespace {

using detail::DbRun;

constexpr std::uint64_t kAllOnes = 0x0101010101010101ull;

void threshold_row(const float* p, int w, float t, std::uint8_t* out) {
  for (int x = 0; x < w; ++x) out[x] = p[x] > t ? 1 : 0;  // NaN counts as background
}

// Appends the runs of the 0/1 row `m` (width w) to `runs`, skipping 8 pixels
// at a time through long stretches of background or foreground.
void extract_runs(const std::uint8_t* m, int w, int y, std::vector<DbRun>* runs) {
  int x = 0;
  while (x < w) {
    std::uint64_t word;
    while (x + 8 <= w && (std::memcpy(&word, m + x, 8), word == 0)) x += 8;
    while (x < w && !m[x]) ++x;
    if (x >= w) break;
    const int start = x;
    while (x + 8 <= w && (std::memcpy(&word, m + x, 8), word == kAllOnes)) x += 8;
    while (x < w && m[x]) ++x;
    runs->push_back({y, start, x - 1});
  }
}

inline int find_root(std::vector<int>& parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];  // path halving
    i = parent[i];
  }
  return i;
}

// The root of a set is always its smallest run index, i.e. its first run in
// scan order, so components can be numbered in scan order in one pass.
inline void unite(std::vector<int>& parent, int a, int b) {
  a = find_root(parent, a);
  b = find_root(parent, b);
  if (a < b)
    parent[b] = a;
  else if (b < a)
    parent[a] = b;
}

// Labels the 8-connected components of the (optionally dilated) bitmap
// prob > thresh. Fills ws.runs, ws.label, ws.area, ws.offset, ws.sorted_runs.
// Returns the number of components.
int label_components(const float* prob, int w, int h, float thresh, bool dilate, DbWorkspace& ws) {
  const size_t wz = static_cast<size_t>(w);
  if (ws.row_prev.size() < wz) ws.row_prev.resize(wz);
  if (ws.row_cur.size() < wz) ws.row_cur.resize(wz);
  if (ws.row_dil.size() < wz) ws.row_dil.resize(wz);
  std::vector<DbRun>& runs = ws.runs;
  runs.clear();
  std::vector<int>& parent = ws.parent;
  parent.clear();

  int prev_begin = 0, prev_end = 0;
  for (int y = 0; y < h; ++y) {
    const float* row = prob + static_cast<size_t>(y) * wz;
    std::uint8_t* cur = ws.row_cur.data();
    threshold_row(row, w, thresh, cur);
    const std::uint8_t* bits = cur;
    if (dilate) {
      // cv2.dilate with a 2x2 kernel (anchor at its centre, (1,1)) sets a pixel
      // when any of (x-1..x, y-1..y) is set: regions grow right and down by one.
      std::uint8_t* d = ws.row_dil.data();
      const std::uint8_t* up = ws.row_prev.data();
      if (y == 0) {
        d[0] = cur[0];
        for (int x = 1; x < w; ++x) d[x] = cur[x] | cur[x - 1];
      } else {
        d[0] = cur[0] | up[0];
        for (int x = 1; x < w; ++x) d[x] = cur[x] | cur[x - 1] | up[x] | up[x - 1];
      }
      ws.row_prev.swap(ws.row_cur);
      bits = d;
    }
    const int cur_begin = static_cast<int>(runs.size());
    extract_runs(bits, w, y, &runs);
    const int cur_end = static_cast<int>(runs.size());
    for (int i = cur_begin; i < cur_end; ++i) parent.push_back(i);
    // Join with the runs of the row above that touch, diagonals included.
    int j = prev_begin;
    for (int i = cur_begin; i < cur_end; ++i) {
      const int a0 = runs[i].x0 - 1, a1 = runs[i].x1 + 1;
      while (j < prev_end && runs[j].x1 < a0) ++j;
      for (int k = j; k < prev_end && runs[k].x0 <= a1; ++k) unite(parent, i, k);
    }
    prev_begin = cur_begin;
    prev_end = cur_end;
  }

  const int nruns = static_cast<int>(runs.size());
  ws.label.resize(static_cast<size_t>(nruns));
  int ncomp = 0;
  for (int i = 0; i < nruns; ++i) {
    const int r = find_root(parent, i);
    ws.label[i] = r == i ? ncomp++ : ws.label[r];
  }
  // Counting sort of the runs by component; stable, so each component's runs
  // stay in row-major order.
  ws.area.assign(static_cast<size_t>(ncomp), 0);
  ws.offset.assign(static_cast<size_t>(ncomp) + 1, 0);
  for (int i = 0; i < nruns; ++i) {
    ws.area[ws.label[i]] += runs[i].x1 - runs[i].x0 + 1;
    ++ws.offset[ws.label[i] + 1];
  }
  for (int c = 0; c < ncomp; ++c) ws.offset[c + 1] += ws.offset[c];
  ws.sorted_runs.resize(static_cast<size_t>(nruns));
  // parent is no longer needed: reuse it as the fill cursor of each component.
  parent.assign(ws.offset.begin(), ws.offset.end() - 1);
  for (int i = 0; i < nruns; ++i) ws.sorted_runs[parent[ws.label[i]]++] = runs[i];
  return ncomp;
}

// x-range of the convex polygon v[0..3] on the horizontal line at height y.
inline void slice(const Vec2d v[4], double y, double* xl, double* xr) {
  for (int i = 0; i < 4; ++i) {
    const Vec2d& p = v[i];
    const Vec2d& q = v[(i + 1) & 3];
    if ((y < p.y && y < q.y) || (y > p.y && y > q.y)) continue;
    if (p.y == q.y) {
      *xl = std::min(*xl, std::min(p.x, q.x));
      *xr = std::max(*xr, std::max(p.x, q.x));
    } else {
      const double x = p.x + (y - p.y) * (q.x - p.x) / (q.y - p.y);
      *xl = std::min(*xl, x);
      *xr = std::max(*xr, x);
    }
  }
}

// PaddleOCR's box_score_fast: the mean of prob over the pixels cv2.fillPoly sets
// for the box with its corners truncated to integers (relative to the clipped
// bounding box). fillPoly sets the pixels whose centre is inside and also draws
// the outline as 8-connected lines, which reach the pixels within half a pixel
// of an edge along the row: so row y takes the polygon's x-range over the strip
// [y - 0.5, y + 0.5], rounded to the nearest pixels.
float box_score_fast(const float* prob, int w, int h, const Vec2d c[4]) {
  double minx = c[0].x, maxx = c[0].x, miny = c[0].y, maxy = c[0].y;
  for (int i = 1; i < 4; ++i) {
    minx = std::min(minx, c[i].x);
    maxx = std::max(maxx, c[i].x);
    miny = std::min(miny, c[i].y);
    maxy = std::max(maxy, c[i].y);
  }
  const int xmin = std::clamp(static_cast<int>(std::floor(minx)), 0, w - 1);
  const int xmax = std::clamp(static_cast<int>(std::ceil(maxx)), 0, w - 1);
  const int ymin = std::clamp(static_cast<int>(std::floor(miny)), 0, h - 1);
  const int ymax = std::clamp(static_cast<int>(std::ceil(maxy)), 0, h - 1);
  Vec2d v[4];
  double vy0 = std::numeric_limits<double>::infinity(), vy1 = -vy0;
  for (int i = 0; i < 4; ++i) {
    v[i].x = xmin + std::trunc(c[i].x - xmin);
    v[i].y = ymin + std::trunc(c[i].y - ymin);
    vy0 = std::min(vy0, v[i].y);
    vy1 = std::max(vy1, v[i].y);
  }
  double sum = 0.0;
  long count = 0;
  const int y_begin = std::max(ymin, static_cast<int>(vy0)),
            y_end = std::min(ymax, static_cast<int>(vy1));
  for (int y = y_begin; y <= y_end; ++y) {
    const double ya = std::max(y - 0.5, vy0), yb = std::min(y + 0.5, vy1);
    double xl = std::numeric_limits<double>::infinity(), xr = -xl;
    slice(v, ya, &xl, &xr);
    slice(v, yb, &xl, &xr);
    for (const Vec2d& p : v)
      if (p.y >= ya && p.y <= yb) {
        xl = std::min(xl, p.x);
        xr = std::max(xr, p.x);
      }
    if (!(xl <= xr)) continue;
    const int x0 = std::max(xmin, static_cast<int>(std::ceil(xl - 0.5)));
    const int x1 = std::min(xmax, static_cast<int>(std::floor(xr + 0.5)));
    const float* row = prob + static_cast<size_t>(y) * static_cast<size_t>(w);
    float s = 0.f;
    for (int x = x0; x <= x1; ++x) s += row[x];
    sum += s;
    count += x1 >= x0 ? x1 - x0 + 1 : 0;
  }
  return count > 0 ? static_cast<float>(sum / static_cast<double>(count)) : 0.f;
}

float region_score(const float* prob, int w, const DbRun* r, const DbRun* end) {
  double sum = 0.0;
  long count = 0;
  for (; r != end; ++r) {
    const float* row = prob + static_cast<size_t>(r->y) * static_cast<size_t>(w);
    float s = 0.f;
    for (int x = r->x0; x <= r->x1; ++x) s += row[x];
    sum += s;
    count += r->x1 - r->x0 + 1;
  }
  return count > 0 ? static_cast<float>(sum / static_cast<double>(count)) : 0.f;
}

// Hull candidates of a component: per row only the leftmost and rightmost
// pixel centres can be hull vertices. Output is sorted by (y, x).
void region_extremes(const DbRun* r, const DbRun* end, std::vector<Vec2d>* pts) {
  pts->clear();
  while (r != end) {
    const int y = r->y, x0 = r->x0;
    int x1 = r->x1;
    for (++r; r != end && r->y == y; ++r) x1 = r->x1;
    pts->push_back({static_cast<double>(x0), static_cast<double>(y)});
    if (x1 != x0) pts->push_back({static_cast<double>(x1), static_cast<double>(y)});
  }
}

void check_args(const float* prob, int map_w, int map_h, int src_w, int src_h, const DbParams& p) {
  auto bad = [](const std::string& what) {
    fail(StatusCode::kInvalidArgument, "db_postprocess: " + what);
  };
  if (prob == nullptr) bad("prob is null");
  if (map_w <= 0 || map_h <= 0)
    bad("map size must be positive, got " + std::to_string(map_w) + "x" + std::to_string(map_h));
  if (static_cast<long long>(map_w) * map_h > std::numeric_limits<int>::max())
    bad("map of " + std::to_string(map_w) + "x" + std::to_string(map_h) + " is too large");
  if (src_w <= 0 || src_h <= 0)
    bad("source size must be positive, got " + std::to_string(src_w) + "x" + std::to_string(src_h));
  if (!std::isfinite(p.thresh)) bad("thresh must be finite");
  if (!std::isfinite(p.box_thresh)) bad("box_thresh must be finite");
  if (!std::isfinite(p.unclip_ratio) || p.unclip_ratio < 0)
    bad("unclip_ratio must be finite and >= 0, got " + std::to_string(p.unclip_ratio));
  if (p.max_candidates < 0)
    bad("max_candidates must be >= 0, got " + std::to_string(p.max_candidates));
  if (!std::isfinite(p.min_size)) bad("min_size must be finite");
  if (p.score_mode != DbScoreMode::kFast && p.score_mode != DbScoreMode::kSlow)
    bad("unknown score_mode");
}

}  // namespace

std::vector<DetBox> db_postprocess(const float* prob, int map_w, int map_h, int src_w, int src_h,
                                   const DbParams& params, DbWorkspace* ws) {
  check_args(prob, map_w, map_h, src_w, src_h, params);
  DbWorkspace local;
  DbWorkspace& w = ws != nullptr ? *ws : local;

  const int ncomp = label_components(prob, map_w, map_h, params.thresh, params.use_dilation, w);

  std::vector<int>& cand = w.candidates;
  cand.resize(static_cast<size_t>(ncomp));
  for (int c = 0; c < ncomp; ++c) cand[c] = c;
  if (ncomp > params.max_candidates) {
    const std::vector<int>& area = w.area;
    auto larger = [&area](int a, int b) { return area[a] != area[b] ? area[a] > area[b] : a < b; };
    std::nth_element(cand.begin(), cand.begin() + params.max_candidates, cand.end(), larger);
    cand.resize(static_cast<size_t>(params.max_candidates));
    std::sort(cand.begin(), cand.end());
  }

  const double max_x = src_w - 1, max_y = src_h - 1;
  std::vector<DetBox> out;
  for (int c : cand) {
    const DbRun* rb = w.sorted_runs.data() + w.offset[c];
    const DbRun* re = w.sorted_runs.data() + w.offset[c + 1];
    region_extremes(rb, re, &w.points);
    convex_hull_yx_sorted(w.points.data(), static_cast<int>(w.points.size()), &w.hull);
    const RotatedRect rect = min_area_rect(w.hull.data(), static_cast<int>(w.hull.size()));
    if (rect.short_side() < params.min_size) continue;

    Vec2d corners[4];
    rect.corners(corners);
    const float score = params.score_mode == DbScoreMode::kFast
                            ? box_score_fast(prob, map_w, map_h, corners)
                            : region_score(prob, map_w, rb, re);
    if (params.box_thresh > score) continue;

    const double perimeter = 2.0 * (rect.width + rect.height);
    if (!(perimeter > 0)) continue;
    const double d = rect.width * rect.height * params.unclip_ratio / perimeter;
    RotatedRect grown = rect;
    grown.width += 2 * d;
    grown.height += 2 * d;
    if (grown.short_side() < params.min_size + 2) continue;

    grown.corners(corners);
    DetBox box{order_box_points(corners), score};  // ordered in map coordinates, as PaddleOCR
    for (Point2f& p : box.quad.p) {
      // x / map_w * src_w, rounded half-to-even like np.round.
      p.x = static_cast<float>(
          std::clamp(std::nearbyint(static_cast<double>(p.x) / map_w * src_w), 0.0, max_x));
      p.y = static_cast<float>(
          std::clamp(std::nearbyint(static_cast<double>(p.y) / map_h * src_h), 0.0, max_y));
    }
    out.push_back(box);
  }
  return out;
}

}  // namespace edgeocr
