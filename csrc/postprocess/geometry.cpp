#include "postprocess/geometry.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace edgeocr {

namespace {

inline double cross(const Vec2d& o, const Vec2d& a, const Vec2d& b) {
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

inline double dot(const Vec2d& p, double ux, double uy) {
  return p.x * ux + p.y * uy;
}

}  // namespace

void RotatedRect::corners(Vec2d out[4]) const {
  const double hx = 0.5 * width * axis.x, hy = 0.5 * width * axis.y;
  const double vx = -0.5 * height * axis.y, vy = 0.5 * height * axis.x;
  out[0] = {center.x - hx - vx, center.y - hy - vy};
  out[1] = {center.x + hx - vx, center.y + hy - vy};
  out[2] = {center.x + hx + vx, center.y + hy + vy};
  out[3] = {center.x - hx + vx, center.y - hy + vy};
}

void convex_hull_yx_sorted(const Vec2d* pts, int n, std::vector<Vec2d>* hull) {
  std::vector<Vec2d>& h = *hull;
  h.clear();
  if (n <= 0) return;
  if (n == 1) {
    h.push_back(pts[0]);
    return;
  }
  // Andrew's monotone chain on the (y, x) order: one chain forward, one back.
  h.resize(static_cast<size_t>(2 * n));
  int k = 0;
  for (int i = 0; i < n; ++i) {
    while (k >= 2 && cross(h[k - 2], h[k - 1], pts[i]) <= 0) --k;
    h[k++] = pts[i];
  }
  for (int i = n - 2, lower = k + 1; i >= 0; --i) {
    while (k >= lower && cross(h[k - 2], h[k - 1], pts[i]) <= 0) --k;
    h[k++] = pts[i];
  }
  h.resize(static_cast<size_t>(k - 1));  // the last point repeats the first
  if (h.size() == 2 && h[0].x == h[1].x && h[0].y == h[1].y) h.resize(1);
  if (h.size() >= 3) {
    double area2 = 0.0;
    for (size_t i = 0, j = h.size() - 1; i < h.size(); j = i++)
      area2 += h[j].x * h[i].y - h[i].x * h[j].y;
    if (area2 < 0) std::reverse(h.begin(), h.end());
  }
}

RotatedRect min_area_rect(const Vec2d* hull, int n) {
  RotatedRect best;
  if (n <= 0) return best;
  if (n == 1) {
    best.center = hull[0];
    return best;
  }
  if (n == 2) {
    const double dx = hull[1].x - hull[0].x, dy = hull[1].y - hull[0].y;
    const double len = std::sqrt(dx * dx + dy * dy);
    best.center = {0.5 * (hull[0].x + hull[1].x), 0.5 * (hull[0].y + hull[1].y)};
    if (len > 0) best.axis = {dx / len, dy / len};
    best.width = len;
    return best;
  }
  // Work relative to hull[0] to keep the products small.
  const Vec2d o = hull[0];
  auto P = [&](int i) -> Vec2d {
    const Vec2d& p = hull[i % n];
    return {p.x - o.x, p.y - o.y};
  };
  double best_area = std::numeric_limits<double>::infinity();
  // Caliper indices (kept unbounded, read mod n): r = max along the edge,
  // t = farthest from the edge, l = min along the edge. Each only moves forward
  // as the edge turns, so the whole sweep is O(n).
  int r = 1, t = 1, l = 1;
  for (int i = 0; i < n; ++i) {
    const Vec2d a = P(i), b = P(i + 1);
    const double ex = b.x - a.x, ey = b.y - a.y;
    const double len = std::sqrt(ex * ex + ey * ey);
    if (len == 0) continue;
    const double ux = ex / len, uy = ey / len;
    const double nx = -uy, ny = ux;  // points into the hull (positive orientation)
    if (r < i + 1) r = i + 1;
    for (int s = 0; s < n && dot(P(r + 1), ux, uy) >= dot(P(r), ux, uy); ++s) ++r;
    if (t < r) t = r;
    for (int s = 0; s < n && dot(P(t + 1), nx, ny) >= dot(P(t), nx, ny); ++s) ++t;
    if (l < t) l = t;
    for (int s = 0; s < n && dot(P(l + 1), ux, uy) <= dot(P(l), ux, uy); ++s) ++l;
    const double umin = dot(P(l), ux, uy), umax = dot(P(r), ux, uy);
    const double nmin = dot(a, nx, ny), nmax = dot(P(t), nx, ny);
    const double w = umax - umin, h = nmax - nmin;
    const double area = w * h;
    if (area < best_area) {
      best_area = area;
      const double cu = 0.5 * (umin + umax), cn = 0.5 * (nmin + nmax);
      best.center = {o.x + cu * ux + cn * nx, o.y + cu * uy + cn * ny};
      best.axis = {ux, uy};
      best.width = w;
      best.height = h;
    }
  }
  return best;
}

Quad order_box_points(const Vec2d corners[4]) {
  Vec2d p[4] = {corners[0], corners[1], corners[2], corners[3]};
  std::stable_sort(p, p + 4, [](const Vec2d& a, const Vec2d& b) { return a.x < b.x; });
  const Vec2d& tl = p[1].y > p[0].y ? p[0] : p[1];
  const Vec2d& bl = p[1].y > p[0].y ? p[1] : p[0];
  const Vec2d& tr = p[3].y > p[2].y ? p[2] : p[3];
  const Vec2d& br = p[3].y > p[2].y ? p[3] : p[2];
  Quad q;
  const Vec2d* order[4] = {&tl, &tr, &br, &bl};
  for (int i = 0; i < 4; ++i)
    q.p[i] = {static_cast<float>(order[i]->x), static_cast<float>(order[i]->y)};
  return q;
}

}  // namespace edgeocr
