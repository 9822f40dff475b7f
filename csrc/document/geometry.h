// Boxes of the document layer: the one set of helpers every step uses (axis-aligned BoxF in page
// pixels), and the one rule of what a row of boxes is.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "edgeocr/document.h"

namespace edgeocr {
namespace geo {

inline float width(const BoxF& b) {
  return b.x1 - b.x0;
}
inline float height(const BoxF& b) {
  return b.y1 - b.y0;
}
inline float area(const BoxF& b) {
  return std::max(0.f, width(b)) * std::max(0.f, height(b));
}
inline float xc(const BoxF& b) {
  return 0.5f * (b.x0 + b.x1);
}
inline float yc(const BoxF& b) {
  return 0.5f * (b.y0 + b.y1);
}
inline float x_overlap(const BoxF& a, const BoxF& b) {
  return std::min(a.x1, b.x1) - std::max(a.x0, b.x0);
}
inline float y_overlap(const BoxF& a, const BoxF& b) {
  return std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
}
inline float inter(const BoxF& a, const BoxF& b) {
  const float w = x_overlap(a, b), h = y_overlap(a, b);
  return w > 0.f && h > 0.f ? w * h : 0.f;
}
inline BoxF unite(const BoxF& a, const BoxF& b) {
  return {std::min(a.x0, b.x0), std::min(a.y0, b.y0), std::max(a.x1, b.x1), std::max(a.y1, b.y1)};
}
inline bool finite(const BoxF& b) {
  return std::isfinite(b.x0) && std::isfinite(b.y0) && std::isfinite(b.x1) && std::isfinite(b.y1);
}
inline bool contains_point(const BoxF& b, float x, float y) {
  return x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= b.y1;
}
// The share of a's area inside b (0 for an empty a).
inline float share_in(const BoxF& a, const BoxF& b) {
  const float s = area(a);
  return s > 0.f ? inter(a, b) / s : 0.f;
}

// THE row rule: two boxes are on one row when they share half the height of the lower of them.
inline bool same_row(const BoxF& a, const BoxF& b) {
  return y_overlap(a, b) >= 0.5f * std::min(height(a), height(b));
}

// Boxes in rows: sorted by vertical centre, a box joins the last row when it is on one row with
// the row's band (same_row), else it opens a row. Each row lists indices into `boxes` in x order.
std::vector<std::vector<int>> rows_of(const std::vector<BoxF>& boxes);

float median(std::vector<float> v);

}  // namespace geo
}  // namespace edgeocr
