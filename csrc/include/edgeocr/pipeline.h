// The OCR pipeline: det -> cls -> rec on one image, in the C++ core.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "edgeocr/image.h"
#include "edgeocr/model.h"
#include "edgeocr/stage_params.h"
#include "pipeline/budget.h"

namespace edgeocr {

struct DetBox;       // postprocess/db.h
struct DbWorkspace;  // postprocess/db.h

// Every parameter of every stage, with the defaults documented in
// docs/pipeline-config.md (which also says where they differ from PaddleOCR
// and RapidOCR). A bundle stores all of them, so one bundle gives one answer.
inline std::vector<int> default_rec_buckets() {
  std::vector<int> v;
  for (int w = 320; w <= 3200; w += 64) v.push_back(w);
  return v;
}

// How far a rec line is padded: to its own width bucket (a batch holds lines of one bucket, so a
// line reads the same whatever the other lines of the page), or to the bucket of the widest line
// of its batch of rec_batch lines in width order (PaddleOCR's and RapidOCR's batching).
enum class RecPadTo { kLine, kBatch };

// What sends a line to the recheck model (rec_recheck_trigger), compared with rec_recheck_below:
// rec's line score (the mean of its characters' probabilities), its weakest word's score (a word:
// the text between spaces, so a Chinese line without spaces is one word), or its weakest
// character's probability. An empty reading is always rechecked.
enum class RecheckTrigger { kLine, kWord, kChar };

struct PipelineConfig {
  // Detection. 'min' 736 reads a page at a 736 px short side at least, but enlarged at most 1.5x:
  // a label, a screenshot or a strip is read near its own size (docs/pipeline-config.md).
  DetResizeParams det_resize{DetLimitType::kMin, 736, 2000, 1.5f};
  // A det input of more pixels than this runs in overlapping tiles of at most this many pixels
  // (64 pixels of context beside each tile's core; the probability map is stitched from the
  // cores): ONNX Runtime's det activations (~150-180 bytes per input pixel, kept by its arena)
  // are what a large page's peak RSS is made of. 0: one run whatever the size. 2^21 (a 1448 px
  // square): the default set's peak RSS on the 3 largest of 24 dev pages 748 -> 507 MiB, det
  // H-mean, line accuracy and 1-NED on the dev set as high or higher (docs/pipeline-config.md).
  int det_tile_pixels = 2097152;
  NormalizeParams det_norm{{0.5f, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}, false};
  DbParams db{0.3f, 0.5f, 1.6f, 1000, true, DbScoreMode::kFast, 3.f};
  // Direction classification.
  bool use_cls = true;
  int cls_height = 48;
  int cls_width = 192;
  int cls_batch = 6;
  float cls_thresh = 0.9f;
  // A 180-degree flip is kept only when the recogniser is more confident on
  // the turned crop than on the crop as detected (costs one extra rec pass
  // for flipped lines only).
  bool cls_verify = true;
  NormalizeParams cls_norm{};
  // Recognition.
  int rec_height = 48;
  int rec_batch = 6;
  // Input widths a batch is padded to (each batch takes the smallest bucket
  // that fits its widest crop), so tensor shapes repeat across calls while
  // padding stays under 64 columns. Default: 320, 384, ..., 3200.
  std::vector<int> rec_width_buckets = default_rec_buckets();
  // The most columns (crops x padded width) one rec run reads; a wider batch
  // runs in parts padded to the same width, so every line reads the same. What
  // the runtime holds per run grows with it (and its shared arena keeps the
  // most a run held): 3840 = 6 lines of 640. 0: the whole batch in one run.
  int rec_batch_columns = 3840;
  RecPadTo rec_pad_to = RecPadTo::kBatch;
  NormalizeParams rec_norm{};
  float rotate_ratio = 1.5f;  // crops with h/w >= this are turned 90 degrees
  // Lines whose recognition score is below are dropped (model sets may set
  // their own: PP-OCRv4 mobile uses 0.65, measured on the dev set).
  float drop_score = 0.5f;
  // CTC decoding writes a space between two characters when the space class
  // reaches this probability on a blank frame between them (0: plain greedy;
  // see CtcSpaces in csrc/postprocess/ctc.h). Only spaces change.
  float rec_space_gap = 0.1f;
  // With a recheck model (a second, stronger recogniser: Pipeline's `recheck`): a line the rec
  // model reads with a score below this is read again by the recheck model, whose reading
  // replaces the first (0: never). A fast rec model reads most lines sure and right; the few it
  // is unsure of cost the strong model's time (docs/model-ladder.md, "Recheck").
  float rec_recheck_below = 0.95f;
  RecheckTrigger rec_recheck_trigger = RecheckTrigger::kLine;
  // Faded, washed-out and low-contrast captures. The page's luminance range
  // (its 0.5th to 99.5th percentile, on a sparse grid) is measured once per
  // call; when it spans fewer grey levels than this, the stage reads the page
  // with that range stretched to 0..255 (0: never). Measured on the dev set
  // (docs/pipeline-config.md).
  int det_stretch_below = 128;
  int rec_stretch_below = 64;  // cls and rec
  // Blurred captures. When the page's edge sharpness at the det input's
  // scale (edge_sharpness in csrc/preprocess/preprocess.h: the median step
  // across an edge over the luminance range) is below this, the detector
  // reads the page a second time unsharp-masked (gaussian sigma 4 det
  // pixels, amount 2) and adds the lines only that run found (0: never).
  // Sharper pages are read bit-identically.
  float det_sharpen_below = 0.15f;
  // Layout analysis (DocumentParser, docs/document-parsing.md). The layout model's input when
  // the model does not fix it (PicoDet CDLA fixes 800 x 608).
  int layout_height = 800;
  int layout_width = 608;
  // A region candidate's class score must exceed this (rapid_layout's and PaddleOCR's 0.5).
  float layout_score_thresh = 0.5f;
  // Per class, a candidate overlapping a kept region by more than this IoU is dropped.
  float layout_nms_iou = 0.5f;
  // The most regions a page keeps, the best-scoring first: a hostile model or page gives a
  // bounded result.
  int layout_max_regions = 300;
  // Tables (DocumentParser, docs/tables.md): the method, the table model's input side when the
  // model does not fix it (SLANet-plus: 488), and when "auto" leaves the model's grid for the
  // grid method: a mean token probability below table_min_score, or less than table_min_fit of
  // the region's text (by area) inside the cells it is assigned to.
  TableMethod table_method = TableMethod::kAuto;
  int table_side = 488;
  float table_min_score = 0.5f;
  float table_min_fit = 0.5f;
};

// A word of a line: its text split at spaces (Chinese or Japanese text without spaces: one word
// per run between spaces). Its box lies on the line's box, from the recogniser's own timesteps
// (ctc_words in csrc/postprocess/ctc.h) mapped through the crop's homography: the corners are in
// the order of the line's box (so for a flipped line the words run from its right side).
struct OcrWord {
  std::string text;   // UTF-8, no spaces
  float score = 0.f;  // mean max probability of its characters
  Quad box;           // source pixels
};

struct OcrLine {
  std::string text;   // UTF-8
  float score = 0.f;  // recognition confidence
  float det_score = 0.f;
  Quad box;                    // source pixels, clockwise from top-left
  bool flipped = false;        // the classifier turned the crop 180 degrees
  std::vector<OcrWord> words;  // in text order
  // Quarter turns (0-3) from the image's frame to the frame the text was read in: the line's
  // box corners starting `turns` corners later are the text's top-left, top-right,
  // bottom-right, bottom-left. 1 for a vertical line (rotate_ratio), plus 2 when flipped.
  int turns = 0;
};

struct OcrTimings {
  double det = 0, cls = 0, rec = 0, total = 0;         // seconds, per stage
  double det_model = 0, cls_model = 0, rec_model = 0;  // of which inside the runtime
  // Of rec (and rec_model): the recheck model's pass over the lines rec was unsure of.
  double recheck = 0, recheck_model = 0;
};

// The work a call gave the models, counted: the same on any machine and under any load, so
// configurations can be compared where times cannot (benchmarks/default_sweep.py).
struct OcrWork {
  std::int64_t det_pixels = 0;     // det input pixels run: every tile (with its context), every run
  std::int64_t cls_lines = 0;      // crops the direction classifier read
  std::int64_t rec_lines = 0;      // crops the rec model read (a flip verified: twice)
  std::int64_t rec_columns = 0;    // rec input columns run: lines x padded width
  std::int64_t recheck_lines = 0;  // crops the recheck model read
  std::int64_t recheck_columns = 0;  // its input columns run
};

struct OcrResult {
  std::vector<OcrLine> lines;  // reading order
  OcrTimings timings;
  OcrWork work;
  int det_width = 0, det_height = 0;  // the det input size used
};

// Thread-safe: run() may be called from several threads at once; models and
// pool are shared, per-call scratch is taken from a small free list.
class Pipeline {
 public:
  // det or rec may be null, not both: without det, run() reads the whole
  // image as one line (recognize()) and keeps it if it has text; without rec
  // it detects only. cls may be null (no direction classification).
  // charset: rec classes, charset[0] = blank.
  // recheck (optional, needs rec): a second recogniser with its own charset that re-reads the
  // lines rec reads with a score below rec_recheck_below. It takes crops of rec's height and any
  // batch and width.
  Pipeline(std::shared_ptr<Model> det, std::shared_ptr<Model> cls, std::shared_ptr<Model> rec,
           std::vector<std::string> charset, PipelineConfig config,
           std::shared_ptr<MemoryPool> pool, std::shared_ptr<Model> recheck = nullptr,
           std::vector<std::string> recheck_charset = {});
  ~Pipeline();  // in pipeline.cpp, where DbWorkspace is complete

  OcrResult run(const ImageView& image) const;

  // Recognition only, on an image that is already one text line.
  OcrLine recognize(const ImageView& image) const;
  // The same as a result: the line, kept only if text was read (no line otherwise), its time as
  // the rec and total timings. What run() gives without a det model.
  OcrResult run_line(const ImageView& image) const;

  // Memory budget (docs/memory-budget.md). With a budget every call is planned to fit it (det in
  // tiles or smaller, smaller cls/rec batches) and holds its share while it runs, waiting while
  // other calls hold the rest; without one (the default) nothing changes. Set it before the
  // pipeline is shared between threads. The models' sessions should shrink their arenas after
  // each run (SessionOptions::shrink_arena), or the runtime keeps what a call used.
  void set_memory_budget(std::shared_ptr<MemoryBudget> budget, MemoryProfile profile = {});
  const std::shared_ptr<MemoryBudget>& memory_budget() const { return budget_; }
  const MemoryProfile& memory_profile() const { return profile_; }

  // A call planned and admitted under the budget: holds its reservation until destroyed.
  struct BudgetedCall {
    CallPlan plan;
    MemoryBudget::Reservation reservation;
  };
  // Plans a call on a width x height image whose decoded pixels (image_bytes; 0 when the caller
  // owns them) count against the budget, and waits until the budget has room for it. Throws
  // OutOfMemory when even the smallest plan does not fit the budget. Needs a budget.
  BudgetedCall admit(int width, int height, std::size_t image_bytes) const;
  CallPlan plan(int width, int height, std::size_t image_bytes) const;
  // run() / recognize() within an admitted call (run() and recognize() without one admit the
  // call themselves when there is a budget).
  OcrResult run(const ImageView& image, const BudgetedCall& call) const;
  OcrLine recognize(const ImageView& image, const BudgetedCall& call) const;

  const PipelineConfig& config() const { return config_; }
  const std::shared_ptr<MemoryPool>& pool() const { return pool_; }
  const std::vector<std::string>& charset() const { return primary_.charset; }
  // The recheck model's charset (a deferred model is loaded for it).
  const std::vector<std::string>& recheck_charset() const { return recheck().charset; }
  // Whether there is a recheck model, loaded or deferred. Fixed before the pipeline is shared.
  bool has_recheck() const { return has_recheck_; }

  // A recheck model loaded when a call first has a line to recheck, instead of with the pipeline
  // (the loader does this for a known set's file, whose checks pass: most pages need no
  // recheck, and a one-image process then never pays for its session). `load` gives the model
  // and its charset; it is checked then as the constructor checks a recheck model, and a failure
  // is that call's error (the next call tries again). `classes`: the charset's size, known in
  // advance, for the settings' memory check now. Call before the pipeline is shared; needs a
  // rec model and no recheck model. Thread-safe afterwards: one call loads, others wait.
  struct DeferredRecheck {
    std::function<std::pair<std::shared_ptr<Model>, std::vector<std::string>>()> load;
    std::int64_t classes = 0;
  };
  void defer_recheck(DeferredRecheck recheck);
  // Whether the recheck model is loaded (false for a deferred one not yet needed, and without one).
  bool recheck_loaded() const;

 private:
  struct Crop {
    Quad quad;      // corners in the order the crop is sampled (after turns)
    int index;      // into the candidate list
    float ratio;    // width / height of the crop as sampled
    int turns = 0;  // quad = the line's box turned by this many quarter turns
  };
  // `plan`: the call's budget plan, or null without a budget.
  OcrResult run_planned(const ImageView& image, const CallPlan* plan) const;
  OcrLine recognize_planned(const ImageView& image, const CallPlan* plan) const;
  OcrResult line_result(const ImageView& image, const CallPlan* plan) const;
  // lo, hi: the page's luminance range (for the blur measure).
  std::vector<DetBox> detect(const ImageView& image, OcrResult* result, const CallPlan* plan,
                             int lo, int hi) const;
  void classify(const ImageView& image, std::vector<Crop>& crops, std::vector<OcrLine>& lines,
                OcrTimings* t, OcrWork* w, const CallPlan* plan) const;
  // A recogniser: its model, charset (charset[0] = blank) and the charset's " " class.
  struct Recognizer {
    std::shared_ptr<Model> model;
    std::vector<std::string> charset;
    int space_class = -1;
  };
  // Keeps a proposed flip only where rec reads it better; a flip undone is undone in `crops` too.
  // `weakest` (each line's weakest character) follows a reading it keeps.
  void verify_flips(const ImageView& image, std::vector<Crop>& crops, std::vector<OcrLine>& lines,
                    std::vector<float>& weakest, OcrTimings* t, OcrWork* w,
                    const CallPlan* plan) const;
  // What one recognize_crops call ran: seconds inside the runtime, crops, input columns.
  struct RecRuns {
    double model_s = 0;
    std::int64_t lines = 0, columns = 0;
  };
  // Reads `crops` into `lines` (text, score, words). weakest: when given (lines.size() entries),
  // each crop's weakest character's probability is written at its line's index (0: empty).
  RecRuns recognize_crops(const ImageView& image, const std::vector<Crop>& crops,
                          std::vector<OcrLine>& lines, const CallPlan* plan, const Recognizer& by,
                          std::vector<float>* weakest = nullptr) const;
  // The primary recogniser's pass, counted into t and w.
  void recognize_primary(const ImageView& image, const std::vector<Crop>& crops,
                         std::vector<OcrLine>& lines, OcrTimings* t, OcrWork* w,
                         const CallPlan* plan, std::vector<float>* weakest) const;
  // The recheck recogniser, its deferred model loaded first if need be.
  const Recognizer& recheck() const;
  // The constructor's checks of a recheck model and its charset against rec's settings.
  void check_recheck(const Model& m, const std::vector<std::string>& charset) const;
  // The recheck model reads again the lines rec_recheck_trigger picks (weakest: each line's
  // weakest character, from recognize_crops).
  void recheck_lines(const ImageView& image, const std::vector<Crop>& crops,
                     std::vector<OcrLine>& lines, const std::vector<float>& weakest, OcrTimings* t,
                     OcrWork* w, const CallPlan* plan) const;
  int rec_bucket(int width) const;

  std::shared_ptr<Model> det_, cls_, rec_;
  Recognizer primary_;  // rec_, its charset and space class
  Recognizer recheck_;  // the constructor's recheck model; no model: none given
  DeferredRecheck deferred_recheck_;
  bool has_recheck_ = false;  // set by the constructor or defer_recheck, before sharing
  // The recheck recogniser once it can be used: &recheck_, or the deferred one once loaded
  // (deferred_loaded_, written under recheck_mu_ before it is published here).
  mutable std::atomic<const Recognizer*> recheck_ready_{nullptr};
  mutable std::mutex recheck_mu_;
  mutable std::unique_ptr<Recognizer> deferred_loaded_;
  PipelineConfig config_;
  std::shared_ptr<MemoryPool> pool_;
  std::shared_ptr<MemoryBudget> budget_;
  MemoryProfile profile_;

  mutable std::mutex ws_mu_;
  mutable std::vector<std::unique_ptr<DbWorkspace>> workspaces_;
};

}  // namespace edgeocr
