#include "postprocess/order.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace edgeocr {

namespace {

struct BoxGeom {
  double cx, cy;  // centre
  double w, h;    // text width and height
  double slope;   // dy/dx of the centre line, clamped to [-1, 1]
};

double dist(const Point2f& a, const Point2f& b) {
  const double dx = static_cast<double>(a.x) - b.x, dy = static_cast<double>(a.y) - b.y;
  return std::sqrt(dx * dx + dy * dy);
}

BoxGeom describe(const Quad& q) {
  BoxGeom g;
  g.cx = 0.25 * (static_cast<double>(q.p[0].x) + q.p[1].x + q.p[2].x + q.p[3].x);
  g.cy = 0.25 * (static_cast<double>(q.p[0].y) + q.p[1].y + q.p[2].y + q.p[3].y);
  g.w = 0.5 * (dist(q.p[0], q.p[1]) + dist(q.p[3], q.p[2]));
  g.h = std::max(0.5 * (dist(q.p[0], q.p[3]) + dist(q.p[1], q.p[2])), 1e-6);
  const double lx = 0.5 * (static_cast<double>(q.p[0].x) + q.p[3].x);
  const double ly = 0.5 * (static_cast<double>(q.p[0].y) + q.p[3].y);
  const double rx = 0.5 * (static_cast<double>(q.p[1].x) + q.p[2].x);
  const double ry = 0.5 * (static_cast<double>(q.p[1].y) + q.p[2].y);
  g.slope = rx - lx > 1e-6 ? std::clamp((ry - ly) / (rx - lx), -1.0, 1.0) : 0.0;
  if (!std::isfinite(g.cx) || !std::isfinite(g.cy)) g.cx = g.cy = 0.0;
  if (!std::isfinite(g.slope)) g.slope = 0.0;
  return g;
}

// Vertical distance between the centre lines of a and b, measured along their
// width-weighted mean slope (a wide box's orientation is the reliable one).
double centre_gap(const BoxGeom& a, const BoxGeom& b) {
  const double wsum = a.w + b.w;
  const double s = wsum > 0 ? (a.slope * a.w + b.slope * b.w) / wsum : 0.0;
  return std::fabs((b.cy - a.cy) - s * (b.cx - a.cx));
}

int find_root(std::vector<int>& parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

}  // namespace

std::vector<int> reading_order(const std::vector<Quad>& quads) {
  const int n = static_cast<int>(quads.size());
  std::vector<BoxGeom> g(static_cast<size_t>(n));
  double h_max = 0, s_max = 0, x_lo = 0, x_hi = 0, x_mean = 0;
  for (int i = 0; i < n; ++i) {
    g[i] = describe(quads[i]);
    h_max = std::max(h_max, g[i].h);
    s_max = std::max(s_max, std::fabs(g[i].slope));
    x_lo = i == 0 ? g[i].cx : std::min(x_lo, g[i].cx);
    x_hi = i == 0 ? g[i].cx : std::max(x_hi, g[i].cx);
    x_mean += g[i].cx / n;
  }
  // Boxes sorted by centre y; a pair further apart in y than `reach` cannot match.
  std::vector<int> by_y(static_cast<size_t>(n));
  std::iota(by_y.begin(), by_y.end(), 0);
  std::sort(by_y.begin(), by_y.end(),
            [&](int a, int b) { return g[a].cy != g[b].cy ? g[a].cy < g[b].cy : a < b; });
  const double reach = 0.5 * h_max + s_max * (x_hi - x_lo) + 1e-9;

  std::vector<int> parent(static_cast<size_t>(n));
  std::iota(parent.begin(), parent.end(), 0);
  for (int ii = 0; ii < n; ++ii) {
    const int a = by_y[ii];
    for (int jj = ii + 1; jj < n && g[by_y[jj]].cy - g[a].cy <= reach; ++jj) {
      const int b = by_y[jj];
      if (centre_gap(g[a], g[b]) <= 0.5 * std::min(g[a].h, g[b].h)) {
        const int ra = find_root(parent, a), rb = find_root(parent, b);
        if (ra != rb) parent[std::max(ra, rb)] = std::min(ra, rb);
      }
    }
  }
  std::vector<int> line(static_cast<size_t>(n)), size(static_cast<size_t>(n), 0);
  for (int i = 0; i < n; ++i) ++size[line[i] = find_root(parent, i)];

  // Attach boxes left alone to the line of the box whose band holds their
  // centre best (smallest gap relative to that box's height). Decided against
  // the grouping above only, so one singleton cannot pull in another.
  std::vector<int> attach(line);
  for (int ii = 0; ii < n; ++ii) {
    const int a = by_y[ii];
    if (size[line[a]] != 1) continue;
    double best = 0.5;
    for (int dir = -1; dir <= 1; dir += 2) {
      for (int jj = ii + dir; jj >= 0 && jj < n && std::fabs(g[by_y[jj]].cy - g[a].cy) <= reach;
           jj += dir) {
        const int b = by_y[jj];
        if (size[line[b]] == 1) continue;
        const double rel = centre_gap(g[a], g[b]) / g[b].h;
        if (rel <= best) {
          if (rel < best || line[b] < attach[a]) attach[a] = line[b];
          best = rel;
        }
      }
    }
  }

  // Line keys: centre-line height at x_mean (width-weighted slope of the line).
  std::vector<double> wsum(static_cast<size_t>(n), 0.0), swsum(static_cast<size_t>(n), 0.0);
  std::vector<double> key_sum(static_cast<size_t>(n), 0.0);
  std::vector<int> count(static_cast<size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    wsum[attach[i]] += g[i].w;
    swsum[attach[i]] += g[i].w * g[i].slope;
  }
  std::vector<double> slope(static_cast<size_t>(n), 0.0);
  for (int l = 0; l < n; ++l) slope[l] = wsum[l] > 0 ? swsum[l] / wsum[l] : 0.0;
  for (int i = 0; i < n; ++i) {
    const int l = attach[i];
    key_sum[l] += g[i].cy + slope[l] * (x_mean - g[i].cx);
    ++count[l];
  }

  std::vector<int> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  auto line_y = [&](int i) { return key_sum[attach[i]] / count[attach[i]]; };
  auto along = [&](int i) { return g[i].cx + slope[attach[i]] * g[i].cy; };
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if (attach[a] != attach[b]) {
      const double ya = line_y(a), yb = line_y(b);
      if (ya != yb) return ya < yb;
      return attach[a] < attach[b];
    }
    const double xa = along(a), xb = along(b);
    if (xa != xb) return xa < xb;
    return a < b;
  });
  return order;
}

}  // namespace edgeocr
