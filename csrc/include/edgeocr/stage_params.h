// Parameters of the pipeline's stages that PipelineConfig (edgeocr/pipeline.h) holds: det
// resize and normalisation (implemented in csrc/preprocess/), DB box extraction (in
// csrc/postprocess/db.cpp). Plain values, no behaviour: the kernels' contracts are stated in
// their own headers.
#pragma once

namespace edgeocr {

// out[c] = (pixel[c_src] / 255 - mean[c]) / std[c]. mean/std are indexed by output channel;
// the output channel order is B, G, R unless to_rgb (then R, G, B), whatever the source format.
struct NormalizeParams {
  float mean[3] = {0.5f, 0.5f, 0.5f};
  float std[3] = {0.5f, 0.5f, 0.5f};
  bool to_rgb = false;
};

enum class DetLimitType { kMax, kMin };

// How DocumentParser finds a table's cells (docs/tables.md): the table model's grid unless it is
// unusable (then the grid method), the model's grid whatever it is, or the grid method alone.
enum class TableMethod { kAuto, kModel, kGrid };

struct DetResizeParams {
  DetLimitType limit_type = DetLimitType::kMax;
  int limit_side_len = 960;
  int max_side_len = 4000;  // hard cap on the long side after scaling
  // The most the limit type may enlarge the image (1: never enlarged). PaddleOCR has no such
  // cap; 1000 never binds (the long side is capped at max_side_len).
  float max_upscale = 1000.f;
};

// DB (Differentiable Binarization) box extraction, as PaddleOCR's DBPostProcess.
enum class DbScoreMode { kFast, kSlow };

struct DbParams {
  float thresh = 0.3f;        // binarisation threshold on the probability map
  float box_thresh = 0.6f;    // drop boxes whose score is below
  float unclip_ratio = 1.5f;  // DB offset distance = area * ratio / perimeter
  int max_candidates = 1000;  // keep at most this many regions: the largest by pixel count
  bool use_dilation = false;  // 2x2 dilation of the bitmap (as PaddleOCR's [[1,1],[1,1]] kernel)
  DbScoreMode score_mode = DbScoreMode::kFast;
  float min_size = 3.f;  // drop boxes whose short side (map pixels) is below (before unclip), and
                         // below min_size+2 after
};

}  // namespace edgeocr
