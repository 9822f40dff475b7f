// DB (Differentiable Binarization) text-detection post-processing, as in
// PaddleOCR's DBPostProcess / RapidOCR, without OpenCV.
#pragma once

#include <cstdint>
#include <vector>

#include "edgeocr/image.h"
#include "edgeocr/stage_params.h"  // DbParams
#include "postprocess/geometry.h"

namespace edgeocr {

struct DetBox {
  Quad quad;
  float score = 0.f;
};

namespace detail {
struct DbRun {  // a horizontal run of foreground pixels [x0, x1] in row y
  int y, x0, x1;
};
}  // namespace detail

// Reusable scratch buffers so that steady-state calls do not allocate: every
// buffer only grows. Not thread-safe: use one per caller. Contents are internal.
struct DbWorkspace {
  std::vector<std::uint8_t> row_prev, row_cur, row_dil;  // thresholded / dilated rows
  std::vector<detail::DbRun> runs;                       // all runs, row-major
  std::vector<int> parent;                               // union-find over runs
  std::vector<int> label;                                // component of each run
  std::vector<int> offset;                               // first sorted run of each component
  std::vector<detail::DbRun> sorted_runs;                // runs grouped by component
  std::vector<int> area;                                 // pixels per component
  std::vector<int> candidates;                           // components kept (max_candidates)
  std::vector<Vec2d> points, hull;
};

// Turns a DB probability map into scored text quadrilaterals.
//
// prob: map_h x map_w row-major probabilities (not owned, only read).
// Returns boxes in source-image pixels: map coordinates scaled by src_w/map_w
// and src_h/map_h, rounded half-to-even (numpy's round, as PaddleOCR), clipped
// to [0, src_w-1] x [0, src_h-1]; each quad in PaddleOCR's get_mini_boxes order
// (clockwise from the top-left for boxes tilted by less than 45 degrees).
// Boxes come in scan order of their regions (by the first pixel met in a
// row-major scan). Throws Error(kInvalidArgument) on a null map, non-positive
// sizes or invalid parameters.
//
// Differences from PaddleOCR, all deliberate:
//  - Regions are 8-connected components of the bitmap instead of
//    cv2.findContours(RETR_LIST) contours: a region with a hole yields one box,
//    not an extra box for the hole's inner contour. The minimum-area rectangle of
//    a region's pixel centres equals that of its outer contour's points.
//  - max_candidates keeps the largest regions (PaddleOCR keeps the first
//    contours in findContours order, noise included).
//  - kSlow averages over the region's own pixels (PaddleOCR fills the contour,
//    so holes count too).
//  - Unclip: PaddleOCR offsets the rectangle with pyclipper (round joins, integer
//    coordinates) and takes the minimum-area rectangle of the result. For a
//    rectangle that is exactly the rectangle grown by d on every side, which is
//    what is computed here (no integer snapping).
std::vector<DetBox> db_postprocess(const float* prob, int map_w, int map_h, int src_w, int src_h,
                                   const DbParams& params, DbWorkspace* ws = nullptr);

}  // namespace edgeocr
