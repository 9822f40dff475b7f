#include "edgeocr/pipeline.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

#include "common/checked.h"
#include "edgeocr/settings.h"
#include "edgeocr/status.h"
#include "pipeline/model_checks.h"
#include "postprocess/ctc.h"
#include "postprocess/db.h"
#include "postprocess/order.h"
#include "preprocess/preprocess.h"
#include "runtime/malloc_tuning.h"

namespace edgeocr {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Corners of q as the crop is to be sampled: turned by `quarter_turns` * 90
// degrees counter-clockwise (np.rot90 semantics on the rectified crop).
Quad turned(const Quad& q, int quarter_turns) {
  Quad r;
  for (int i = 0; i < 4; ++i) r.p[i] = q.p[(i + quarter_turns) % 4];
  return r;
}

// The words of a decoded line as boxes on the image: their timesteps (T of them over the rec
// input's W columns) to columns, of which the first out_w hold the crop (the rest is padding),
// then through the crop's homography onto `crop` (the line's box turned by `turns`), corners
// given back in the box's own order.
std::vector<OcrWord> word_boxes(const CtcResult& r, int T, int W, int out_w, const Quad& crop,
                                int turns) {
  std::vector<OcrWord> words;
  const std::vector<CtcWord> spans = ctc_words(r, T);
  words.reserve(spans.size());
  const double cols_per_step = static_cast<double>(W) / T;
  for (const CtcWord& s : spans) {
    const double u0 = std::min(1.0, s.x0 * cols_per_step / out_w);
    const double u1 = std::min(1.0, s.x1 * cols_per_step / out_w);
    const Point2f c[4] = {quad_point(crop, u0, 0.0), quad_point(crop, u1, 0.0),
                          quad_point(crop, u1, 1.0), quad_point(crop, u0, 1.0)};
    OcrWord w;
    w.text = r.text.substr(s.begin, s.end - s.begin);
    w.score = s.score;
    for (int i = 0; i < 4; ++i) w.box.p[(i + turns) % 4] = c[i];
    words.push_back(std::move(w));
  }
  return words;
}

float edge(const Point2f& a, const Point2f& b) {
  return std::hypot(a.x - b.x, a.y - b.y);
}

// ceil(h * ratio) clamped to [1, cap] in floating point (the product of a
// model's input height and a long line's ratio may not fit in an int).
int scaled_width(int h, float ratio, int cap) {
  const double w = std::ceil(static_cast<double>(h) * ratio);
  if (!(w >= 1.0)) return 1;
  return w >= cap ? cap : static_cast<int>(w);
}

// The page as the stages read it: transparent pixels composited onto a matte
// decided from the page (unless the caller chose one).
ImageView page_view(const ImageView& image) {
  ImageView v = image;
  if (has_alpha(v.format) && v.matte < 0) v.matte = choose_matte(v);
  return v;
}

// The page with its levels [lo, hi] stretched to 0..255 when the range is
// narrower than `below` grey levels (and not flat).
ImageView stretched(const ImageView& page, int lo, int hi, int below) {
  ImageView v = page;
  if (hi > lo && hi - lo < below) {
    v.black = lo;
    v.white = hi;
  }
  return v;
}

constexpr double kLevelShare = 0.005;  // ink can be a small share of a page: 0.5% each side

// The unsharp mask of a blurred page's second det run (det_sharpen_below), in det input pixels:
// on the dev set's blurred English page (PP-OCRv4 det) sigma 4 / amount 2 found 0.974 of the
// lines (sigma 3: 0.868, sigma 2 amount 3: 0.579), and left the det of the photographed pages
// the measure also calls soft unchanged (amount 3 lost a line on one of them).
constexpr float kSharpenSigma = 4.f;
constexpr float kSharpenAmount = 2.f;

struct Rect {
  float x0, y0, x1, y1;
  float area() const { return std::max(0.f, x1 - x0) * std::max(0.f, y1 - y0); }
};
Rect bounds(const Quad& q) {
  Rect r{q.p[0].x, q.p[0].y, q.p[0].x, q.p[0].y};
  for (const auto& p : q.p) {
    r.x0 = std::min(r.x0, p.x);
    r.y0 = std::min(r.y0, p.y);
    r.x1 = std::max(r.x1, p.x);
    r.y1 = std::max(r.y1, p.y);
  }
  return r;
}
float overlap(const Rect& a, const Rect& b) {
  return Rect{std::max(a.x0, b.x0), std::max(a.y0, b.y0), std::min(a.x1, b.x1),
              std::min(a.y1, b.y1)}
      .area();
}

// The boxes of a blurred page's plain det run, with what its sharpened run found that the plain
// one missed: a sharpened box over no plain box is added; one over plain boxes that are only
// fragments of it (each at least half inside it, together under half its area) replaces them.
// Every other plain box stays as it was, so a page whose lines the plain run found keeps its
// boxes (bounding rectangles compared).
std::vector<DetBox> add_missed_boxes(std::vector<DetBox> plain, const std::vector<DetBox>& sharp) {
  std::vector<Rect> pr;
  pr.reserve(plain.size());
  for (const auto& b : plain) pr.push_back(bounds(b.quad));
  std::vector<bool> dropped(plain.size(), false);
  std::vector<DetBox> added;
  std::vector<std::size_t> hit;
  for (const auto& s : sharp) {
    const Rect r = bounds(s.quad);
    hit.clear();
    bool fragments = true;
    float covered = 0.f;
    for (std::size_t i = 0; i < plain.size(); ++i) {
      if (dropped[i]) continue;
      const float o = overlap(pr[i], r);
      if (o <= 0.f) continue;
      hit.push_back(i);
      fragments = fragments && o >= 0.5f * pr[i].area();
      covered += pr[i].area();
    }
    if (hit.empty()) {
      added.push_back(s);
    } else if (fragments && covered < 0.5f * r.area()) {
      for (std::size_t i : hit) dropped[i] = true;
      added.push_back(s);
    }
  }
  if (added.empty()) return plain;
  std::vector<DetBox> out;
  out.reserve(plain.size() + added.size());
  for (std::size_t i = 0; i < plain.size(); ++i)
    if (!dropped[i]) out.push_back(plain[i]);
  out.insert(out.end(), added.begin(), added.end());
  return out;
}

// A det/cls/rec/recheck model takes one float32 NCHW input and gives a float32 output of
// rank out_rank.
void check_io(const std::shared_ptr<Model>& m, const char* role, std::size_t out_rank) {
  if (!m) return;
  if (m->inputs().size() != 1 || m->inputs()[0].shape.size() != 4 ||
      m->inputs()[0].dtype != DType::kFloat32)
    fail(StatusCode::kInvalidModel,
         m->name() + ": a " + role + " model must take one float32 NCHW input, got " +
             std::to_string(m->inputs().size()) + " input(s) of shape " +
             (m->inputs().empty() ? "?" : shape_str(m->inputs()[0].shape)));
  if (m->outputs().empty() || m->outputs()[0].shape.size() != out_rank ||
      m->outputs()[0].dtype != DType::kFloat32)
    fail(StatusCode::kInvalidModel, m->name() + ": a " + role +
                                        " model must give a float32 output of rank " +
                                        std::to_string(out_rank));
}

// Whether rec's reading of a line goes to the recheck model (RecheckTrigger).
bool recheck_wanted(const OcrLine& line, float weakest, RecheckTrigger trigger, float below) {
  if (line.text.empty()) return true;
  switch (trigger) {
    case RecheckTrigger::kLine:
      return line.score < below;
    case RecheckTrigger::kWord:
      for (const OcrWord& w : line.words)
        if (w.score < below) return true;
      return line.words.empty() && line.score < below;
    case RecheckTrigger::kChar:
      return weakest < below;
  }
  return false;
}

}  // namespace

Pipeline::~Pipeline() = default;

void Pipeline::check_recheck(const Model& m, const std::vector<std::string>& charset) const {
  const auto& out = m.outputs()[0].shape;
  if (out[2] > 0 && static_cast<std::size_t>(out[2]) != charset.size())
    fail(StatusCode::kInvalidModel, m.name() + ": the recheck model has " + std::to_string(out[2]) +
                                        " classes but its dictionary gives " +
                                        std::to_string(charset.size()) +
                                        " (blank + characters [+ space])");
  const auto& in = m.inputs()[0].shape;
  if (in[0] > 0 || in[3] > 0)
    fail(StatusCode::kInvalidModel,
         m.name() + ": a recheck model must take any batch and width, got input shape " +
             shape_str(in));
  if (in[2] > 0 && in[2] != config_.rec_height)
    fail(StatusCode::kInvalidModel, m.name() + ": the recheck model reads lines " +
                                        std::to_string(in[2]) + " px high, the rec model " +
                                        std::to_string(config_.rec_height));
}

void Pipeline::defer_recheck(DeferredRecheck recheck) {
  if (!recheck.load) fail(StatusCode::kInvalidArgument, "defer_recheck: no loader given");
  if (!rec_)
    fail(StatusCode::kInvalidArgument,
         "a recheck model re-reads rec's lines; it needs a rec model");
  if (has_recheck_)
    fail(StatusCode::kInvalidArgument, "defer_recheck: the pipeline has a recheck model already");
  // The settings' memory check with the recheck model's classes, as the constructor makes it.
  validate_config(
      config_, pool_->stats().cap_bytes,
      std::max<std::int64_t>(static_cast<std::int64_t>(primary_.charset.size()), recheck.classes));
  deferred_recheck_ = std::move(recheck);
  has_recheck_ = true;
}

bool Pipeline::recheck_loaded() const {
  return recheck_ready_.load(std::memory_order_acquire) != nullptr;
}

const Pipeline::Recognizer& Pipeline::recheck() const {
  // Published once complete (release), read without a lock (acquire) on every call.
  if (const Recognizer* r = recheck_ready_.load(std::memory_order_acquire)) return *r;
  if (!deferred_recheck_.load) return recheck_;  // none: an empty recogniser
  // One call loads while the others wait; a load that throws publishes nothing, and the next
  // call tries again. (A mutex, not std::call_once: libstdc++'s call_once has hung after a
  // throwing callable on some targets, GCC PR 66146.)
  std::lock_guard<std::mutex> lock(recheck_mu_);
  if (const Recognizer* r = recheck_ready_.load(std::memory_order_relaxed)) return *r;
  auto [model, charset] = deferred_recheck_.load();
  if (!model) fail(StatusCode::kInternal, "the deferred recheck model did not load");
  check_io(model, "recheck", 3);
  check_recheck(*model, charset);
  if (static_cast<std::int64_t>(charset.size()) != deferred_recheck_.classes)
    fail(StatusCode::kInvalidModel, model->name() + ": the recheck model has " +
                                        std::to_string(charset.size()) + " classes, not the " +
                                        std::to_string(deferred_recheck_.classes) +
                                        " its model set names");
  auto r = std::make_unique<Recognizer>();
  r->space_class = ctc_space_class(charset);
  r->charset = std::move(charset);
  r->model = std::move(model);
  deferred_loaded_ = std::move(r);
  recheck_ready_.store(deferred_loaded_.get(), std::memory_order_release);
  return *deferred_loaded_;
}

Pipeline::Pipeline(std::shared_ptr<Model> det, std::shared_ptr<Model> cls,
                   std::shared_ptr<Model> rec, std::vector<std::string> charset,
                   PipelineConfig config, std::shared_ptr<MemoryPool> pool,
                   std::shared_ptr<Model> recheck, std::vector<std::string> recheck_charset)
    : det_(std::move(det)),
      cls_(std::move(cls)),
      rec_(std::move(rec)),
      config_(std::move(config)),
      pool_(pool ? std::move(pool) : MemoryPool::create()) {
  if (!det_ && !rec_) fail(StatusCode::kInvalidArgument, "a pipeline needs a det or a rec model");
  if (recheck && !rec_)
    fail(StatusCode::kInvalidArgument,
         "a recheck model re-reads rec's lines; it needs a rec model");
  primary_.model = rec_;
  primary_.charset = std::move(charset);
  primary_.space_class = ctc_space_class(primary_.charset);
  if (recheck) {
    recheck_.model = std::move(recheck);
    recheck_.charset = std::move(recheck_charset);
    recheck_.space_class = ctc_space_class(recheck_.charset);
    has_recheck_ = true;
    recheck_ready_.store(&recheck_, std::memory_order_release);
  }
  limit_malloc_arenas();  // flat RSS when many threads share the pipeline (runtime/malloc_tuning.h)
  // The caller's settings, before the models' fixed input sizes replace some of them.
  validate_config(config_, pool_->stats().cap_bytes);
  bool model_fixed = false;
  std::string model_fixed_names;
  // A size the model fixes, saturated so that the range check sees a huge dim as huge.
  auto fix = [&](int& field, std::int64_t dim, const Model& m) {
    const int v = dim > std::numeric_limits<int>::max() ? std::numeric_limits<int>::max()
                                                        : static_cast<int>(dim);
    if (v == field) return;
    field = v;
    if (model_fixed_names.find(m.name()) == std::string::npos)
      model_fixed_names += (model_fixed ? ", " : "") + m.name();
    model_fixed = true;
  };
  check_io(det_, "det", 4);
  check_io(cls_, "cls", 2);
  check_io(rec_, "rec", 3);
  check_io(recheck_.model, "recheck", 3);
  if (rec_) {
    const auto& out = rec_->outputs()[0].shape;
    if (out[2] > 0 && static_cast<std::size_t>(out[2]) != primary_.charset.size())
      fail(StatusCode::kInvalidModel,
           rec_->name() + ": the rec model has " + std::to_string(out[2]) +
               " classes but the dictionary gives " + std::to_string(primary_.charset.size()) +
               " (blank + characters [+ space]); wrong keys file?");
    // A model with a fixed input width (e.g. converted at 1x3x48x320) gets one bucket.
    const auto& in = rec_->inputs()[0].shape;
    if (in[2] > 0) fix(config_.rec_height, in[2], *rec_);
    if (in[3] > 0) {
      int w = 0;
      fix(w, in[3], *rec_);
      config_.rec_width_buckets = {w};
    }
    if (in[0] > 0) fix(config_.rec_batch, in[0], *rec_);
  }
  if (cls_) {
    const auto& in = cls_->inputs()[0].shape;
    if (in[2] > 0) fix(config_.cls_height, in[2], *cls_);
    if (in[3] > 0) fix(config_.cls_width, in[3], *cls_);
    if (in[0] > 0) fix(config_.cls_batch, in[0], *cls_);
  }
  if (det_) {
    const auto& in = det_->inputs()[0].shape;
    if (in[0] > 1)
      fail(StatusCode::kInvalidModel,
           det_->name() + ": det models with a fixed batch > 1 are not supported");
  }
  if (recheck_.model) check_recheck(*recheck_.model, recheck_.charset);
  std::sort(config_.rec_width_buckets.begin(), config_.rec_width_buckets.end());
  // The settings with the sizes the models fix: a model's huge fixed input is
  // refused here, before any tensor is allocated for it.
  const std::int64_t rec_classes =
      rec_ ? static_cast<std::int64_t>(
                 std::max(primary_.charset.size(), recheck_.model ? recheck_.charset.size() : 0))
           : 0;
  try {
    validate_config(config_, pool_->stats().cap_bytes, rec_classes);
  } catch (const Error& e) {
    if (!model_fixed) throw;
    fail(StatusCode::kInvalidModel, std::string("with the input sizes the models fix (") +
                                        model_fixed_names + "): " + e.what());
  }
}

int Pipeline::rec_bucket(int width) const {
  for (int b : config_.rec_width_buckets)
    if (b >= width) return b;
  return config_.rec_width_buckets.back();
}

std::vector<DetBox> Pipeline::detect(const ImageView& image, OcrResult* result,
                                     const CallPlan* plan, int lo, int hi) const {
  int w = 0, h = 0;
  det_target_size(image.width, image.height, config_.det_resize, &w, &h);
  if (plan) {
    w = plan->det_w;
    h = plan->det_h;
  }
  result->det_width = w;
  result->det_height = h;
  // Tiles: the budget's, or det_tile_pixels' when the frame has more pixels.
  const CallPlan* tiled = plan && !plan->tiles.empty() ? plan : nullptr;
  CallPlan own;
  if (!tiled && config_.det_tile_pixels > 0 &&
      static_cast<double>(w) * h > config_.det_tile_pixels) {
    own.det_w = w;
    own.det_h = h;
    own.tiles = det_tile_grid(
        w, h, std::max<double>(config_.det_tile_pixels, double{kMinDetTile} * kMinDetTile));
    if (!own.tiles.empty()) tiled = &own;
  }

  // One det run and its DB post-processing; `sharpen`: the input unsharp-masked first.
  auto run_once = [&](bool sharpen) {
    std::vector<Tensor> out;
    PoolBlock stitched;  // the probability map of a det run in tiles
    DetMap map{nullptr, 0, 0};
    if (tiled) {
      stitched = pool_->acquire(checked_product({sizeof(float), w, h}, "det map"));
      run_det_tiles(*det_, *pool_, image, *tiled, config_.det_norm,
                    static_cast<float*>(stitched.data()), &result->timings.det_model,
                    sharpen ? kSharpenSigma : 0.f, sharpen ? kSharpenAmount : 0.f);
      for (const DetTile& tile : tiled->tiles)
        result->work.det_pixels += static_cast<std::int64_t>(tile.w) * tile.h;
      map = DetMap{static_cast<const float*>(stitched.data()), w, h};
    } else {
      TensorView in;
      in.dtype = DType::kFloat32;
      in.shape = {1, 3, h, w};
      PoolBlock buf = pool_->acquire(checked_product({sizeof(float), 3, w, h}, "det input"));
      det_preprocess(image, w, h, config_.det_norm, static_cast<float*>(buf.data()));
      if (sharpen) {
        float lo_n[3], hi_n[3];  // the normalised values of levels 0 and 255, per plane
        for (int c = 0; c < 3; ++c) {
          lo_n[c] = -config_.det_norm.mean[c] / config_.det_norm.std[c];
          hi_n[c] = (1.f - config_.det_norm.mean[c]) / config_.det_norm.std[c];
        }
        unsharp_planes(static_cast<float*>(buf.data()), 3, w, h, kSharpenSigma, kSharpenAmount,
                       lo_n, hi_n);
      }
      in.data = buf.data();
      auto t0 = Clock::now();
      out = det_->run({in});
      result->timings.det_model += since(t0);
      result->work.det_pixels += static_cast<std::int64_t>(w) * h;
      buf.reset();
      map = checked_det_output(*det_, out, 1);
    }

    std::unique_ptr<DbWorkspace> ws;
    {
      std::lock_guard<std::mutex> lock(ws_mu_);
      if (!workspaces_.empty()) {
        ws = std::move(workspaces_.back());
        workspaces_.pop_back();
      }
    }
    if (!ws) ws = std::make_unique<DbWorkspace>();
    std::vector<DetBox> boxes = db_postprocess(map.data, map.width, map.height, image.width,
                                               image.height, config_.db, ws.get());
    {
      std::lock_guard<std::mutex> lock(ws_mu_);
      if (workspaces_.size() < 16) workspaces_.push_back(std::move(ws));
    }
    return boxes;
  };

  std::vector<DetBox> boxes = run_once(false);
  // A blurred page (measured at the scale the detector reads it: a page it shrinks by 2 is judged
  // on steps 2 pixels apart; a page it enlarges, at its own pixels, as enlarging blurs by itself)
  // is read a second time unsharp-masked, and that run only adds lines the first missed.
  if (config_.det_sharpen_below > 0.f) {
    const double f = static_cast<double>(w) / image.width;
    const int d = f < 1.0 ? std::max(1, static_cast<int>(std::lround(1.0 / f))) : 1;
    if (edge_sharpness(image, lo, hi, d) < config_.det_sharpen_below)
      boxes = add_missed_boxes(std::move(boxes), run_once(true));
  }
  return boxes;
}

void Pipeline::classify(const ImageView& image, std::vector<Crop>& crops,
                        std::vector<OcrLine>& lines, OcrTimings* t, OcrWork* w,
                        const CallPlan* plan) const {
  const int H = config_.cls_height, W = config_.cls_width;
  const int B = plan && plan->cls_batch > 0 ? std::min(plan->cls_batch, config_.cls_batch)
                                            : config_.cls_batch;
  const std::size_t plane = checked_product({3, H, W}, "cls input");
  for (std::size_t start = 0; start < crops.size(); start += B) {
    const int n = static_cast<int>(std::min<std::size_t>(B, crops.size() - start));
    PoolBlock buf = pool_->acquire(
        checked_product({sizeof(float), static_cast<std::int64_t>(plane), n}, "cls input"));
    float* dst = static_cast<float*>(buf.data());
    for (int i = 0; i < n; ++i) {
      const Crop& c = crops[start + i];
      int out_w = scaled_width(H, c.ratio, W);
      crop_preprocess(image, c.quad, out_w, H, W, config_.cls_norm, 0.f, dst + plane * i);
    }
    TensorView in{buf.data(), DType::kFloat32, {n, 3, H, W}};
    auto t0 = Clock::now();
    std::vector<Tensor> out = cls_->run({in});
    t->cls_model += since(t0);
    w->cls_lines += n;
    const int classes = checked_cls_output(*cls_, out, n);
    const float* probs = out[0].ptr<float>();
    for (int i = 0; i < n; ++i) {
      const float* p = probs + static_cast<std::size_t>(i) * classes;
      int best = static_cast<int>(std::max_element(p, p + classes) - p);
      // label '180' (index 1) with enough confidence: turn the crop around.
      if (best == 1 && p[1] > config_.cls_thresh) {
        Crop& c = crops[start + i];
        c.quad = turned(c.quad, 2);
        c.turns = (c.turns + 2) % 4;
        lines[c.index].flipped = true;
      }
    }
  }
}

Pipeline::RecRuns Pipeline::recognize_crops(const ImageView& image, const std::vector<Crop>& crops,
                                            std::vector<OcrLine>& lines, const CallPlan* plan,
                                            const Recognizer& by,
                                            std::vector<float>* weakest) const {
  RecRuns runs;
  // Sort by aspect ratio so each batch holds crops of similar width (little padding).
  std::vector<int> order(crops.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return crops[a].ratio < crops[b].ratio; });
  const int H = config_.rec_height, B = config_.rec_batch;
  // Batches of at most B crops in that order, padded to a width bucket (rec_pad_to): each
  // crop's own, or the widest crop's of B consecutive crops (PaddleOCR: max ratio, at least
  // 320/48).
  struct Group {
    std::size_t begin, end;
    int width;
  };
  std::vector<Group> groups;
  auto bucket_of = [&](std::size_t i) {
    return rec_bucket(scaled_width(H, crops[order[i]].ratio, std::numeric_limits<int>::max()));
  };
  if (config_.rec_pad_to == RecPadTo::kLine) {
    // Up to B crops of one bucket per batch (the order makes each bucket's crops consecutive):
    // no crop is padded past its own bucket, whatever its neighbours.
    for (std::size_t begin = 0; begin < order.size();) {
      const int w = bucket_of(begin);
      std::size_t end = begin + 1;
      while (end < order.size() && end - begin < static_cast<std::size_t>(B) && bucket_of(end) == w)
        ++end;
      groups.push_back({begin, end, w});
      begin = end;
    }
  } else {
    for (std::size_t begin = 0; begin < order.size(); begin += B) {
      const std::size_t end = begin + std::min<std::size_t>(B, order.size() - begin);
      float max_ratio = 0.f;
      for (std::size_t i = begin; i < end; ++i)
        max_ratio = std::max(max_ratio, crops[order[i]].ratio);
      groups.push_back(
          {begin, end, rec_bucket(scaled_width(H, max_ratio, std::numeric_limits<int>::max()))});
    }
  }
  // The widest batch runs first. ONNX Runtime's shared arena grows by exactly what a run asks
  // and keeps it; narrower batches after a wide one fit in the memory it left, whereas batches
  // of growing width each asked for new memory (measured: 10 widths 320..3200, 6 crops each,
  // on PP-OCRv6 small rec: arena growth 2920 MiB in growing order, 822 MiB widest first).
  for (auto g = groups.rbegin(); g != groups.rend(); ++g) {
    std::size_t start = g->begin;
    const std::size_t group_end = g->end;
    const int group_w = g->width;
    while (start < group_end) {
      int n = static_cast<int>(group_end - start);
      int W = group_w;
      // A wide batch runs in parts of at most rec_batch_columns columns, padded to the batch's
      // width (so each line reads as in the whole batch): what the runtime holds for one run
      // (v6 rec: logits and softmax over 18710 classes per 8 columns) stays small.
      if (config_.rec_batch_columns > 0)
        n = std::max(1, std::min(n, config_.rec_batch_columns / W));
      // Under a budget a batch may run in smaller parts still, then narrower (budget.h).
      if (plan) rec_batch_within(*plan, H, &n, &W);
      const std::size_t plane = checked_product({3, H, W}, "rec input");
      PoolBlock buf = pool_->acquire(
          checked_product({sizeof(float), static_cast<std::int64_t>(plane), n}, "rec input"));
      float* dst = static_cast<float*>(buf.data());
      for (int i = 0; i < n; ++i) {
        const Crop& c = crops[order[start + i]];
        int out_w = scaled_width(H, c.ratio, W);
        crop_preprocess(image, c.quad, out_w, H, W, config_.rec_norm, 0.f, dst + plane * i);
      }
      TensorView in{buf.data(), DType::kFloat32, {n, 3, H, W}};
      auto t0 = Clock::now();
      std::vector<Tensor> out = by.model->run({in});
      runs.model_s += since(t0);
      runs.lines += n;
      runs.columns += static_cast<std::int64_t>(n) * W;
      buf.reset();
      const int T = checked_rec_output(*by.model, out, n, by.charset.size());
      const int C = static_cast<int>(by.charset.size());
      const float* probs = out[0].ptr<float>();
      const CtcSpaces spaces{by.space_class, config_.rec_space_gap};
      for (int i = 0; i < n; ++i) {
        CtcResult r = ctc_greedy_decode(probs + static_cast<std::size_t>(i) * T * C, T, C,
                                        by.charset, spaces);
        const Crop& c = crops[order[start + i]];
        OcrLine& line = lines[c.index];
        if (weakest) {
          float least = r.chars.empty() ? 0.f : 1.f;
          for (const CtcChar& ch : r.chars) least = std::min(least, ch.prob);
          (*weakest)[c.index] = least;
        }
        line.words = word_boxes(r, T, W, scaled_width(H, c.ratio, W), c.quad, c.turns);
        line.text = std::move(r.text);
        line.score = r.score;
      }
      start += n;
    }
  }
  return runs;
}

void Pipeline::recognize_primary(const ImageView& image, const std::vector<Crop>& crops,
                                 std::vector<OcrLine>& lines, OcrTimings* t, OcrWork* w,
                                 const CallPlan* plan, std::vector<float>* weakest) const {
  const RecRuns runs = recognize_crops(image, crops, lines, plan, primary_, weakest);
  t->rec_model += runs.model_s;
  w->rec_lines += runs.lines;
  w->rec_columns += runs.columns;
}

// The direction classifier sees a line squeezed into 192 columns and can be
// confidently wrong on long upright lines (measured on the dev set). A flip
// it proposes is kept only if the recogniser reads the turned crop with more
// confidence than the crop as detected.
void Pipeline::verify_flips(const ImageView& image, std::vector<Crop>& crops,
                            std::vector<OcrLine>& lines, std::vector<float>& weakest, OcrTimings* t,
                            OcrWork* w, const CallPlan* plan) const {
  std::vector<Crop> unflipped;
  for (const Crop& c : crops)
    if (lines[c.index].flipped)
      unflipped.push_back(Crop{turned(c.quad, 2), c.index, c.ratio, (c.turns + 2) % 4});
  if (unflipped.empty()) return;
  std::vector<OcrLine> alt(lines.size());
  std::vector<float> alt_weakest(lines.size(), 0.f);
  recognize_primary(image, unflipped, alt, t, w, plan, &alt_weakest);
  std::vector<int> undone(lines.size(), 0);
  for (const Crop& c : unflipped) {
    OcrLine& line = lines[c.index];
    if (alt[c.index].score > line.score) {
      line.text = std::move(alt[c.index].text);
      line.score = alt[c.index].score;
      line.words = std::move(alt[c.index].words);
      line.flipped = false;
      weakest[c.index] = alt_weakest[c.index];
      undone[c.index] = 1;
    }
  }
  for (Crop& c : crops)
    if (undone[c.index]) c = Crop{turned(c.quad, 2), c.index, c.ratio, (c.turns + 2) % 4};
}

void Pipeline::recheck_lines(const ImageView& image, const std::vector<Crop>& crops,
                             std::vector<OcrLine>& lines, const std::vector<float>& weakest,
                             OcrTimings* t, OcrWork* w, const CallPlan* plan) const {
  if (!has_recheck() || config_.rec_recheck_below <= 0.f) return;
  const auto t_start = Clock::now();
  std::vector<Crop> unsure;
  for (const Crop& c : crops)
    if (recheck_wanted(lines[c.index], weakest[c.index], config_.rec_recheck_trigger,
                       config_.rec_recheck_below))
      unsure.push_back(c);
  if (unsure.empty()) return;
  std::vector<OcrLine> again(lines.size());
  // Read in batches by width as rec reads (recognize_crops): one run per rec_batch lines, not
  // one per line.
  const RecRuns runs = recognize_crops(image, unsure, again, plan, recheck());
  t->rec_model += runs.model_s;
  t->recheck_model += runs.model_s;
  w->recheck_lines += runs.lines;
  w->recheck_columns += runs.columns;
  for (const Crop& c : unsure) {
    OcrLine& line = lines[c.index];
    line.text = std::move(again[c.index].text);
    line.score = again[c.index].score;
    line.words = std::move(again[c.index].words);
  }
  t->recheck += since(t_start);
}

OcrResult Pipeline::run(const ImageView& image) const {
  if (!budget_) return run_planned(image, nullptr);
  validate(image);
  const BudgetedCall call = admit(image.width, image.height, 0);
  return run(image, call);
}

OcrResult Pipeline::run(const ImageView& image, const BudgetedCall& call) const {
  OcrResult r = run_planned(image, &call.plan);
  pool_->trim();  // under a budget, idle pool blocks are not kept between calls
  return r;
}

OcrLine Pipeline::recognize(const ImageView& image) const {
  if (!budget_) return recognize_planned(image, nullptr);
  validate(image);
  const BudgetedCall call = admit(image.width, image.height, 0);
  return recognize(image, call);
}

OcrLine Pipeline::recognize(const ImageView& image, const BudgetedCall& call) const {
  OcrLine l = recognize_planned(image, &call.plan);
  pool_->trim();
  return l;
}

OcrResult Pipeline::run_planned(const ImageView& input, const CallPlan* plan) const {
  validate(input);
  const auto t_start = Clock::now();
  OcrResult result;
  if (!det_) return line_result(input, plan);  // the whole image is one line
  auto t0 = Clock::now();
  const ImageView page = page_view(input);
  int lo = 0, hi = 255;
  if (config_.det_stretch_below > 0 || config_.rec_stretch_below > 0 ||
      config_.det_sharpen_below > 0.f)
    luminance_range(page, kLevelShare, kLevelShare, &lo, &hi);
  const ImageView image = stretched(page, lo, hi, config_.rec_stretch_below);  // cls and rec
  std::vector<DetBox> boxes =
      detect(stretched(page, lo, hi, config_.det_stretch_below), &result, plan, lo, hi);
  result.timings.det = since(t0);

  std::vector<OcrLine> lines(boxes.size());
  std::vector<Crop> crops;
  crops.reserve(boxes.size());
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    lines[i].box = boxes[i].quad;
    lines[i].det_score = boxes[i].score;
    const Quad& q = boxes[i].quad;
    float w = std::max(edge(q.p[0], q.p[1]), edge(q.p[3], q.p[2]));
    float h = std::max(edge(q.p[0], q.p[3]), edge(q.p[1], q.p[2]));
    // As RapidOCR/PaddleOCR: boxes 3 px or thinner after clipping carry no readable text.
    if (w <= 3.f || h <= 3.f) continue;
    Crop c{q, static_cast<int>(i), w / h};
    if (h / w >= config_.rotate_ratio) {  // a vertical line: read it turned 90 degrees
      c.quad = turned(q, 1);
      c.ratio = h / w;
      c.turns = 1;
    }
    crops.push_back(c);
  }

  if (cls_ && config_.use_cls && !crops.empty()) {
    t0 = Clock::now();
    classify(image, crops, lines, &result.timings, &result.work, plan);
    result.timings.cls = since(t0);
  }
  if (rec_ && !crops.empty()) {
    t0 = Clock::now();
    std::vector<float> weakest(lines.size(), 0.f);
    recognize_primary(image, crops, lines, &result.timings, &result.work, plan, &weakest);
    if (config_.cls_verify)
      verify_flips(image, crops, lines, weakest, &result.timings, &result.work, plan);
    recheck_lines(image, crops, lines, weakest, &result.timings, &result.work, plan);
    result.timings.rec = since(t0);
  }
  // The turn each crop was finally read with (after verify_flips put back the flips it undid).
  for (const Crop& c : crops) lines[c.index].turns = c.turns;

  // Keep recognised lines above the drop score (all boxes when there is no rec).
  std::vector<OcrLine> kept;
  kept.reserve(lines.size());
  std::vector<bool> has_crop(lines.size(), false);
  for (const Crop& c : crops) has_crop[c.index] = true;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!has_crop[i]) continue;
    if (rec_ && (lines[i].text.empty() || lines[i].score < config_.drop_score)) continue;
    kept.push_back(std::move(lines[i]));
  }
  // When most lines were read upside down the page itself is upside down:
  // order the lines as the text reads, in the page's turned frame.
  std::size_t n_flipped = 0;
  for (const auto& l : kept) n_flipped += l.flipped ? 1 : 0;
  const bool page_flipped = n_flipped * 2 > kept.size();
  std::vector<Quad> quads;
  quads.reserve(kept.size());
  for (const auto& l : kept) {
    if (!page_flipped) {
      quads.push_back(l.box);
      continue;
    }
    Quad q = turned(l.box, 2);
    for (auto& pt : q.p)
      pt = {static_cast<float>(image.width) - pt.x, static_cast<float>(image.height) - pt.y};
    quads.push_back(q);
  }
  for (int idx : reading_order(quads)) result.lines.push_back(std::move(kept[idx]));
  result.timings.total = since(t_start);
  return result;
}

OcrResult Pipeline::run_line(const ImageView& image) const {
  if (!budget_) return line_result(image, nullptr);
  validate(image);
  const BudgetedCall call = admit(image.width, image.height, 0);
  OcrResult r = line_result(image, &call.plan);
  pool_->trim();
  return r;
}

OcrResult Pipeline::line_result(const ImageView& input, const CallPlan* plan) const {
  const auto t_start = Clock::now();
  OcrResult result;
  OcrLine line = recognize_planned(input, plan);
  if (!line.text.empty()) result.lines.push_back(std::move(line));
  result.timings.rec = result.timings.total = since(t_start);
  return result;
}

OcrLine Pipeline::recognize_planned(const ImageView& input, const CallPlan* plan) const {
  validate(input);
  if (!rec_) fail(StatusCode::kInvalidArgument, "this pipeline has no rec model");
  const ImageView page = page_view(input);
  int lo = 0, hi = 255;
  if (config_.rec_stretch_below > 0) luminance_range(page, kLevelShare, kLevelShare, &lo, &hi);
  const ImageView image = stretched(page, lo, hi, config_.rec_stretch_below);
  Quad q;
  const float w = static_cast<float>(image.width), h = static_cast<float>(image.height);
  q.p[0] = {0.f, 0.f};
  q.p[1] = {w, 0.f};
  q.p[2] = {w, h};
  q.p[3] = {0.f, h};
  std::vector<OcrLine> lines(1);
  lines[0].box = q;
  std::vector<Crop> crops{{q, 0, w / h}};
  OcrTimings t;
  OcrWork work;
  if (cls_ && config_.use_cls) classify(image, crops, lines, &t, &work, plan);
  std::vector<float> weakest(1, 0.f);
  recognize_primary(image, crops, lines, &t, &work, plan, &weakest);
  recheck_lines(image, crops, lines, weakest, &t, &work, plan);
  lines[0].turns = crops[0].turns;
  return lines[0];
}

}  // namespace edgeocr
