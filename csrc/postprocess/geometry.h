// Plane geometry used by the DB post-processing: convex hull, minimum-area
// rectangle (rotating calipers) and PaddleOCR's corner order. Plain C++17.
#pragma once

#include <vector>

#include "edgeocr/image.h"

namespace edgeocr {

struct Vec2d {
  double x = 0.0;
  double y = 0.0;
};

// A rectangle of any rotation: `axis` is the unit vector along `width`; the
// height runs along the axis turned by +90 degrees, (-axis.y, axis.x).
struct RotatedRect {
  Vec2d center;
  Vec2d axis{1.0, 0.0};
  double width = 0.0;
  double height = 0.0;

  double short_side() const { return width < height ? width : height; }
  // The four corners in cyclic order (a simple, non-self-intersecting polygon).
  void corners(Vec2d out[4]) const;
};

// Convex hull of `n` points given sorted lexicographically by (y, x), which is
// the order a row-major scan produces. Collinear points are dropped; the hull is
// written to `hull` with positive shoelace area. n == 0, 1, 2 and all-collinear
// inputs give 0, 1 or 2 points. `hull` is cleared first; its capacity is reused.
void convex_hull_yx_sorted(const Vec2d* pts, int n, std::vector<Vec2d>* hull);

// Minimum-area rectangle enclosing a convex polygon as returned by
// convex_hull_yx_sorted, by rotating calipers in O(n). One point gives a
// zero-size rectangle, two points a zero-height one along their segment.
RotatedRect min_area_rect(const Vec2d* hull, int n);

// The corner order of PaddleOCR's get_mini_boxes: sort the corners by x; of the
// two leftmost the upper is top-left and the lower bottom-left, of the two
// rightmost the upper is top-right and the lower bottom-right. Returns
// (top-left, top-right, bottom-right, bottom-left): clockwise from the top-left
// for rectangles tilted by less than 45 degrees.
Quad order_box_points(const Vec2d corners[4]);

}  // namespace edgeocr
