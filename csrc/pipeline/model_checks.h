// Checks of what a model declares and what it returns, before the pipeline
// reads it. A model is untrusted input: a mismatch is StatusCode::kInvalidModel
// naming the model, the output and both shapes, never a read past a tensor.
#pragma once

#include <cstdint>
#include <vector>

#include "edgeocr/model.h"
#include "edgeocr/tensor.h"

namespace edgeocr {

// The det probability map: output 0 of rank 4, [batch, >= 1, H > 0, W > 0]
// with batch as given; DB post-processing reads the H x W plane of channel 0.
struct DetMap {
  const float* data;
  int width;
  int height;
};
DetMap checked_det_output(const Model& m, const std::vector<Tensor>& out, std::int64_t batch);

// cls probabilities: output 0 of shape [n, classes >= 2]; returns classes.
int checked_cls_output(const Model& m, const std::vector<Tensor>& out, std::int64_t n);

// rec probabilities: output 0 of shape [n, T > 0, C] with C = the
// dictionary's class count (blank + characters [+ space]); returns T.
int checked_rec_output(const Model& m, const std::vector<Tensor>& out, std::int64_t n,
                       std::size_t classes);

}  // namespace edgeocr
