// Plain reference versions of the fused preprocessing kernels, for tests only: double precision,
// one output pixel at a time, no tables, no caches. Same contracts as preprocess/preprocess.h.
#pragma once

#include <cstdint>

#include "edgeocr/image.h"
#include "preprocess/preprocess.h"

namespace edgeocr {
namespace reference {

void det_preprocess(const ImageView& src, int out_w, int out_h, const NormalizeParams& norm,
                    float* dst);

// The homography is found by solving the 8x8 linear system of the four correspondences (as
// cv2.getPerspectiveTransform does), independently of the closed form the fused kernel uses.
void crop_preprocess(const ImageView& src, const Quad& q, int out_w, int out_h, int dst_w,
                     const NormalizeParams& norm, float pad_value, float* dst);

void table_preprocess(const ImageView& src, int x, int y, int w, int h, int side,
                      const NormalizeParams& norm, float pad_value, float* dst);

// Luminance in double ((77 R + 150 G + 29 B) / 256 of the composited colour, levels stretched),
// rounded and clamped to 0..255, min over each cell.
void luminance_min_map(const ImageView& src, int x, int y, int w, int h, int cell,
                       std::uint8_t* dst);

}  // namespace reference
}  // namespace edgeocr
