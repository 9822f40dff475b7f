// PicoDet (GFL head) layout post-processing: score maps and box distributions of each stride to
// region boxes, per-class score threshold and NMS, a cap on the regions.
#pragma once

#include <cstdint>
#include <vector>

#include "edgeocr/document.h"

namespace edgeocr {

// One stride's outputs: `scores` [cells, classes] (probabilities: the exported head applies the
// sigmoid) and `dist` [cells, 4 * bins] (left, top, right, bottom distances as distributions over
// bins 0..bins-1, in stride units), cells in row-major order over a grid_w-wide grid of centres
// ((col + 0.5) * stride, (row + 0.5) * stride) in model input pixels.
struct LayoutLevel {
  const float* scores = nullptr;
  const float* dist = nullptr;
  std::int64_t cells = 0;
  int stride = 0;
  int grid_w = 0;
};

struct LayoutParams {
  float score_thresh = 0.5f;   // a candidate's class score must exceed it
  float nms_iou = 0.5f;        // per class, a box overlapping a kept one by more is dropped
  int max_regions = 300;       // the highest-scoring regions kept at most, all classes together
  int top_k_per_level = 1000;  // candidates per stride (by best class score) before NMS
  int nms_candidates = 200;    // per class, the highest-scoring candidates NMS reads
};

struct LayoutBox {
  BoxF box;  // source pixels, clipped to the image
  int cls = 0;
  float score = 0.f;
};

// The grid of a stride over an in_w x in_h input: ceil(in / stride) cells per side (PicoDet's
// feature maps). The stride of a level of `cells` cells is the one of {8, 16, 32, 64, 128} whose
// grid has that many cells; 0 when none has.
int layout_stride_for(std::int64_t cells, int in_w, int in_h);

// Decodes the levels (classes per cell, bins per side), maps boxes from the in_w x in_h model
// input to the src_w x src_h image (x * src_w / in_w), clips them to it, drops empty boxes and
// non-finite scores or distances, runs per-class NMS and keeps the max_regions best, highest
// score first (ties: lower class, then position). Bounded work whatever the scores: at most
// top_k_per_level candidates per level, nms_candidates per class. Thread-safe.
std::vector<LayoutBox> layout_boxes(const std::vector<LayoutLevel>& levels, int classes, int bins,
                                    int in_w, int in_h, int src_w, int src_h,
                                    const LayoutParams& params);

}  // namespace edgeocr
