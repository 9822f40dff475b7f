// DocumentParser: layout model + the shared OCR pipeline + (doc-table's) table recogniser, lines
// assigned to regions, reading order (csrc/document/reading_order.h).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "common/checked.h"
#include "document/geometry.h"
#include "document/layout_decode.h"
#include "document/page_lines.h"
#include "document/reading_order.h"
#include "document/table_stage.h"
#include "edgeocr/document.h"
#include "edgeocr/status.h"
#include "pipeline/model_checks.h"
#include "preprocess/preprocess.h"

namespace edgeocr {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct TypeName {
  RegionType type;
  const char* name;
};
constexpr TypeName kTypeNames[kRegionTypeCount] = {
    {RegionType::kText, "text"},
    {RegionType::kTitle, "title"},
    {RegionType::kList, "list"},
    {RegionType::kFigure, "figure"},
    {RegionType::kFigureCaption, "figure_caption"},
    {RegionType::kTable, "table"},
    {RegionType::kTableCaption, "table_caption"},
    {RegionType::kHeader, "header"},
    {RegionType::kFooter, "footer"},
    {RegionType::kPageNumber, "page_number"},
    {RegionType::kReference, "reference"},
    {RegionType::kEquation, "equation"},
};

// Other spellings of the labels of known layout models (CDLA, PubLayNet, DocLayNet,
// DocStructBench), lower-cased with spaces, dashes and underscores removed.
constexpr TypeName kAliases[] = {
    {RegionType::kFigureCaption, "figurecaption"},
    {RegionType::kTableCaption, "tablecaption"},
    {RegionType::kTitle, "sectionheader"},
    {RegionType::kTitle, "doctitle"},
    {RegionType::kFigure, "picture"},
    {RegionType::kFigure, "image"},
    {RegionType::kHeader, "pageheader"},
    {RegionType::kFooter, "pagefooter"},
    {RegionType::kPageNumber, "pagenumber"},
    {RegionType::kEquation, "formula"},
    {RegionType::kEquation, "isolateformula"},
    {RegionType::kList, "listitem"},
    {RegionType::kText, "plaintext"},
    {RegionType::kText, "abandon"},
    {RegionType::kFigureCaption, "caption"},
    {RegionType::kReference, "references"},
};

std::string squashed(const std::string& s) {
  std::string out;
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == ' ' || c == '-' || c == '_') continue;
    out.push_back(u < 0x80 ? static_cast<char>(std::tolower(u)) : c);
  }
  return out;
}

// The most strides (output pairs) and distribution bins a layout model may declare.
constexpr std::size_t kMaxLayoutLevels = 8;
constexpr std::int64_t kMaxLayoutBins = 64;
constexpr std::size_t kMaxLayoutClasses = 256;
// The largest layout input side: a fixed-size model's input above it is refused at load.
constexpr std::int64_t kMaxLayoutSide = 4096;

[[noreturn]] void bad_layout(const Model& m, const std::string& why) {
  fail(StatusCode::kInvalidModel,
       m.name() +
           ": not a layout model edgeocr can read (PicoDet: score maps [1, N, classes] and "
           "box distributions [1, N, 4 x bins], one pair per stride): " +
           why);
}

// The pairs of a run's outputs as levels (checked against the input size and the labels).
std::vector<LayoutLevel> layout_levels(const Model& m, const std::vector<Tensor>& out, int in_w,
                                       int in_h, int classes, int* bins) {
  if (out.size() < 2 || out.size() % 2 != 0 || out.size() > 2 * kMaxLayoutLevels)
    bad_layout(m, "it gave " + std::to_string(out.size()) + " outputs");
  const std::size_t half = out.size() / 2;
  std::vector<LayoutLevel> levels;
  *bins = 0;
  for (std::size_t i = 0; i < half; ++i) {
    const Tensor& s = out[i];
    const Tensor& d = out[i + half];
    for (const Tensor* t : {&s, &d}) {
      if (t->dtype != DType::kFloat32 || t->shape.size() != 3 || t->shape[0] != 1 ||
          t->shape[1] <= 0 || t->shape[2] <= 0 || !t->data())
        bad_layout(m, "output of shape " + shape_str(t->shape) + " (" + dtype_name(t->dtype) +
                          "), not float32 [1, N, C]");
      checked_mul(
          checked_product({t->shape[1], t->shape[2]}, "layout output", StatusCode::kInvalidModel),
          sizeof(float), "layout output", StatusCode::kInvalidModel);
    }
    if (s.shape[2] != classes)
      bad_layout(m, "score map " + std::to_string(i) + " has " + std::to_string(s.shape[2]) +
                        " classes, its labels " + std::to_string(classes));
    if (d.shape[1] != s.shape[1])
      bad_layout(m, "score map " + std::to_string(i) + " has " + std::to_string(s.shape[1]) +
                        " cells, its box distribution " + std::to_string(d.shape[1]));
    if (d.shape[2] % 4 != 0 || d.shape[2] / 4 < 2 || d.shape[2] / 4 > kMaxLayoutBins)
      bad_layout(m, "box distribution " + std::to_string(i) + " has " + std::to_string(d.shape[2]) +
                        " values per cell, not 4 x bins (2.." + std::to_string(kMaxLayoutBins) +
                        ")");
    const int b = static_cast<int>(d.shape[2] / 4);
    if (*bins && b != *bins) bad_layout(m, "its levels disagree on the number of bins");
    *bins = b;
    const int stride = layout_stride_for(s.shape[1], in_w, in_h);
    if (stride == 0)
      bad_layout(m, "level " + std::to_string(i) + " has " + std::to_string(s.shape[1]) +
                        " cells, which fits no stride (8..128) of a " + std::to_string(in_w) + "x" +
                        std::to_string(in_h) + " input");
    LayoutLevel lv;
    lv.scores = s.ptr<float>();
    lv.dist = d.ptr<float>();
    lv.cells = s.shape[1];
    lv.stride = stride;
    lv.grid_w = (in_w + stride - 1) / stride;
    levels.push_back(lv);
  }
  return levels;
}

// The input size a layout run uses: the model's fixed size, else the settings'.
void layout_input_size(const Model& m, const PipelineConfig& c, int* w, int* h) {
  const auto& in = m.inputs()[0].shape;
  *h = in[2] > 0 ? static_cast<int>(in[2]) : c.layout_height;
  *w = in[3] > 0 ? static_cast<int>(in[3]) : c.layout_width;
}

// The page as the layout model reads it: transparent pixels composited as the OCR stages do.
ImageView page_view(const ImageView& image) {
  ImageView v = image;
  if (has_alpha(v.format) && v.matte < 0) v.matte = choose_matte(v);
  return v;
}

}  // namespace

const char* region_type_name(RegionType t) noexcept {
  for (const TypeName& n : kTypeNames)
    if (n.type == t) return n.name;
  return "text";
}

bool region_type_of_label(const std::string& label, RegionType* type) {
  const std::string s = squashed(label);
  for (const TypeName& n : kTypeNames)
    if (s == squashed(n.name)) {
      *type = n.type;
      return true;
    }
  for (const TypeName& n : kAliases)
    if (s == n.name) {
      *type = n.type;
      return true;
    }
  return false;
}

void check_layout_model(const Model& m, const std::vector<std::string>& labels) {
  if (labels.empty() || labels.size() > kMaxLayoutClasses)
    bad_layout(m, "its labels (metadata 'character') give " + std::to_string(labels.size()) +
                      " classes, not 1.." + std::to_string(kMaxLayoutClasses));
  if (m.inputs().size() != 1 || m.inputs()[0].shape.size() != 4 ||
      m.inputs()[0].dtype != DType::kFloat32)
    bad_layout(m, "it must take one float32 NCHW input, got " + std::to_string(m.inputs().size()) +
                      " input(s) of shape " +
                      (m.inputs().empty() ? "?" : shape_str(m.inputs()[0].shape)));
  const auto& in = m.inputs()[0].shape;
  // Dimensions below 0 are dynamic; a fixed 0 is a size like any other (and refused).
  if (in[0] == 0 || in[0] > 1 || (in[1] >= 0 && in[1] != 3))
    bad_layout(m, "input shape " + shape_str(in) + ", not [1, 3, H, W]");
  if (in[2] > kMaxLayoutSide || in[3] > kMaxLayoutSide || (in[2] >= 0 && in[2] < 32) ||
      (in[3] >= 0 && in[3] < 32))
    bad_layout(m, "input shape " + shape_str(in) + ": sides must be in 32.." +
                      std::to_string(kMaxLayoutSide));
  const auto& outs = m.outputs();
  if (outs.size() < 2 || outs.size() % 2 != 0 || outs.size() > 2 * kMaxLayoutLevels)
    bad_layout(m, "it declares " + std::to_string(outs.size()) + " outputs");
  const std::size_t half = outs.size() / 2;
  for (std::size_t i = 0; i < outs.size(); ++i) {
    const TensorInfo& t = outs[i];
    if (t.dtype != DType::kFloat32 || t.shape.size() != 3)
      bad_layout(m, "output '" + t.name + "' is " + dtype_name(t.dtype) + " " + shape_str(t.shape) +
                        ", not float32 of rank 3");
    if (i < half && t.shape[2] > 0 && static_cast<std::size_t>(t.shape[2]) != labels.size())
      bad_layout(m, "score map '" + t.name + "' has " + std::to_string(t.shape[2]) +
                        " classes, its labels " + std::to_string(labels.size()));
    if (i >= half && t.shape[2] > 0 &&
        (t.shape[2] % 4 != 0 || t.shape[2] / 4 < 2 || t.shape[2] / 4 > kMaxLayoutBins))
      bad_layout(m, "box distribution '" + t.name + "' has " + std::to_string(t.shape[2]) +
                        " values per cell, not 4 x bins");
  }
}

// ---- the parser ----------------------------------------------------------------------------

struct DocumentParser::Impl {
  DocumentRules rules;
  DocumentModels models;
  std::vector<std::string> table_classes;  // the table model's classes (table_classes)
  std::function<DocumentModels()> load;    // deferred models: run once by the first call
  mutable std::once_flag once;
  mutable std::mutex mu;  // guards `loaded` for models_loaded()
  mutable bool loaded = false;
};

DocumentParser::DocumentParser(std::shared_ptr<const Pipeline> ocr, DocumentModels models)
    : ocr_(std::move(ocr)), impl_(std::make_unique<Impl>()) {
  if (!ocr_) fail(StatusCode::kInvalidArgument, "a document parser needs an OCR pipeline");
  if (!models.layout) fail(StatusCode::kInvalidArgument, "a document parser needs a layout model");
  check_layout_model(*models.layout, models.layout_labels);
  if (models.table) {
    check_table_model(*models.table, models.table_tokens);
    models.table->set_outputs_depend_on_values();  // its steps
    impl_->table_classes = table_classes(models.table_tokens);
  }
  impl_->models = std::move(models);
  impl_->loaded = true;
  std::call_once(impl_->once, [] {});
}

DocumentParser::DocumentParser(std::shared_ptr<const Pipeline> ocr,
                               std::function<DocumentModels()> load)
    : ocr_(std::move(ocr)), impl_(std::make_unique<Impl>()) {
  if (!ocr_) fail(StatusCode::kInvalidArgument, "a document parser needs an OCR pipeline");
  if (!load) fail(StatusCode::kInvalidArgument, "a document parser needs its models' loader");
  impl_->load = std::move(load);
}

DocumentParser::~DocumentParser() = default;

const DocumentRules& DocumentParser::rules() const {
  return impl_->rules;
}

void DocumentParser::set_rules(const DocumentRules& rules) {
  impl_->rules = rules;
}

const char* text_source_name(TextSource s) noexcept {
  return s == TextSource::kPdf ? "pdf" : "ocr";
}

bool DocumentParser::models_loaded() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->loaded;
}

const DocumentModels& DocumentParser::models() const {
  // call_once: one caller loads while the others wait; an exception leaves it to the next call.
  std::call_once(impl_->once, [this] {
    DocumentModels m = impl_->load();
    if (!m.layout) fail(StatusCode::kInternal, "the deferred layout model did not load");
    check_layout_model(*m.layout, m.layout_labels);
    if (m.table) {
      check_table_model(*m.table, m.table_tokens);
      m.table->set_outputs_depend_on_values();  // its steps
      impl_->table_classes = table_classes(m.table_tokens);
    }
    impl_->models = std::move(m);
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->loaded = true;
  });
  return impl_->models;
}

namespace {

// The layout model on the page: its regions (type, label, score, box), unordered.
std::vector<Region> detect_layout(const Model& model, const std::vector<std::string>& labels,
                                  const ImageView& page, const PipelineConfig& c, MemoryPool& pool,
                                  DocumentTimings* t) {
  int w = 0, h = 0;
  layout_input_size(model, c, &w, &h);
  const std::size_t bytes = checked_product({sizeof(float), 3, h, w}, "layout input");
  PoolBlock buf = pool.acquire(bytes);
  // ImageNet mean / std in R, G, B order, plain resize to the model's input (PaddleDetection's
  // PicoDet layout configs: Decode to RGB, Resize keep_ratio false, NormalizeImage; bilinear
  // here, as rapid_layout resizes, where training used random interpolations).
  const NormalizeParams norm{{0.485f, 0.456f, 0.406f}, {0.229f, 0.224f, 0.225f}, true};
  det_preprocess(page, w, h, norm, static_cast<float*>(buf.data()));
  TensorView in{buf.data(), DType::kFloat32, {1, 3, h, w}};
  const auto t0 = Clock::now();
  std::vector<Tensor> out = model.run({in});
  t->layout_model += since(t0);
  buf.reset();
  int bins = 0;
  const std::vector<LayoutLevel> levels =
      layout_levels(model, out, w, h, static_cast<int>(labels.size()), &bins);
  LayoutParams lp;
  lp.score_thresh = c.layout_score_thresh;
  lp.nms_iou = c.layout_nms_iou;
  lp.max_regions = c.layout_max_regions;
  const std::vector<LayoutBox> boxes = layout_boxes(levels, static_cast<int>(labels.size()), bins,
                                                    w, h, page.width, page.height, lp);
  std::vector<Region> regions;
  regions.reserve(boxes.size());
  for (const LayoutBox& b : boxes) {
    Region r;
    r.label = labels[static_cast<std::size_t>(b.cls)];
    if (!region_type_of_label(r.label, &r.type)) r.type = RegionType::kText;
    r.score = b.score;
    r.box = b.box;
    regions.push_back(std::move(r));
  }
  return regions;
}

}  // namespace

namespace {

void check_page_text(const PageText& t, const ImageView& image) {
  if (t.lines.size() > kMaxPageTextLines)
    fail(StatusCode::kInvalidArgument, "a page's text holds " + std::to_string(t.lines.size()) +
                                           " lines, more than " +
                                           std::to_string(kMaxPageTextLines));
  if (!t.styles.empty() && t.styles.size() != t.lines.size())
    fail(StatusCode::kInvalidArgument, "a page's text has " + std::to_string(t.styles.size()) +
                                           " styles for " + std::to_string(t.lines.size()) +
                                           " lines (one per line, or none)");
  const float lim = 4.f * static_cast<float>(std::max(image.width, image.height)) + 1e4f;
  auto ok = [&](const Quad& q) {
    for (const Point2f& p : q.p)
      if (!std::isfinite(p.x) || !std::isfinite(p.y) || std::fabs(p.x) > lim ||
          std::fabs(p.y) > lim)
        return false;
    return true;
  };
  for (std::size_t i = 0; i < t.lines.size(); ++i) {
    if (!ok(t.lines[i].box))
      fail(StatusCode::kInvalidArgument,
           "line " + std::to_string(i) +
               " of a page's text has a box that is not finite or lies "
               "far outside the page");
    for (const OcrWord& w : t.lines[i].words)
      if (!ok(w.box))
        fail(StatusCode::kInvalidArgument, "a word of line " + std::to_string(i) +
                                               " of a page's text has a box that is not "
                                               "finite or lies far outside the page");
  }
}

// Lines OCR read inside the pictures of a born-digital page that hold none of the given lines.
void read_pictures(const Pipeline& ocr, const ImageView& page, const PageText& text,
                   const Pipeline::BudgetedCall* call, std::vector<OcrLine>* lines,
                   std::vector<LineStyle>* styles, OcrTimings* timings) {
  if (!text.ocr_images) return;
  std::size_t done = 0;
  for (const BoxF& b0 : text.images) {
    if (!geo::finite(b0)) continue;
    const int x0 = std::max(0, static_cast<int>(std::floor(b0.x0)));
    const int y0 = std::max(0, static_cast<int>(std::floor(b0.y0)));
    const int x1 = std::min(page.width, static_cast<int>(std::ceil(b0.x1)));
    const int y1 = std::min(page.height, static_cast<int>(std::ceil(b0.y1)));
    // Pictures too small to hold a line of text are not read.
    if (x1 - x0 < 32 || y1 - y0 < 16) continue;
    const BoxF b{static_cast<float>(x0), static_cast<float>(y0), static_cast<float>(x1),
                 static_cast<float>(y1)};
    bool has_text = false;
    for (const OcrLine& l : text.lines) {
      const BoxF lb = quad_bounds(l.box);
      if (geo::share_in(lb, b) >= 0.5f) {
        has_text = true;
        break;
      }
    }
    if (has_text || ++done > 64) continue;
    ImageView crop = page;
    crop.data = page.row(y0) + static_cast<std::ptrdiff_t>(x0) * page.channels();
    crop.width = x1 - x0;
    crop.height = y1 - y0;
    OcrResult r = call ? ocr.run(crop, *call) : ocr.run(crop);
    timings->det += r.timings.det;
    timings->cls += r.timings.cls;
    timings->rec += r.timings.rec;
    timings->det_model += r.timings.det_model;
    timings->cls_model += r.timings.cls_model;
    timings->rec_model += r.timings.rec_model;
    for (OcrLine& l : r.lines) {
      for (Point2f& p : l.box.p) p.x += static_cast<float>(x0), p.y += static_cast<float>(y0);
      for (OcrWord& w : l.words)
        for (Point2f& p : w.box.p) p.x += static_cast<float>(x0), p.y += static_cast<float>(y0);
      lines->push_back(std::move(l));
      styles->push_back(LineStyle{});  // kOcr, measured below
    }
  }
}

}  // namespace

DocumentResult DocumentParser::run(const ImageView& image) const {
  return run_page(image, nullptr, true, 0);
}

DocumentResult DocumentParser::run(const ImageView& image, const PageText& text) const {
  return run_page(image, &text, true, 0);
}

DocumentResult DocumentParser::run_page(const ImageView& image, const PageText* text, bool may_turn,
                                        std::size_t held_bytes) const {
  validate(image);
  if (text) check_page_text(*text, image);
  const auto t_start = Clock::now();
  const DocumentModels& m = models();
  const Pipeline& ocr = *ocr_;
  const PipelineConfig& c = ocr.config();
  const DocumentRules& R = impl_->rules;
  DocumentResult doc;
  doc.width = image.width;
  doc.height = image.height;
  const ImageView page = page_view(image);

  // Under a budget, one reservation for the whole call: the largest of the OCR plan's, the
  // layout run's and a table run's needs (each stage runs after the other, so a call holds one
  // reservation and never waits while holding it).
  std::unique_ptr<Pipeline::BudgetedCall> call;
  if (const auto& budget = ocr.memory_budget()) {
    Pipeline::BudgetedCall bc;
    bc.plan = ocr.plan(image.width, image.height, 0);
    int lw = 0, lh = 0;
    layout_input_size(*m.layout, c, &lw, &lh);
    const MemoryProfile& prof = ocr.memory_profile();
    const double layout_px = static_cast<double>(lw) * lh;
    const double layout_need = static_cast<double>(prof.call_overhead_bytes) +
                               layout_px * (3 * sizeof(float) + prof.layout_bytes_per_pixel);
    std::size_t need = std::max<std::size_t>(bc.plan.reserve_bytes,
                                             static_cast<std::size_t>(std::ceil(layout_need)));
    // A page turned upright is a copy of the page, held while the call runs.
    need += held_bytes;
    // A table run that does not fit the budget is not reserved for: the grid method reads the
    // page's tables instead (recognize_table).
    if (m.table && c.table_method != TableMethod::kGrid) {
      const std::size_t table_need = table_run_bytes(*m.table, c, prof);
      if (table_need <= budget->total()) need = std::max(need, table_need);
    }
    if (need > budget->total())
      fail(StatusCode::kOutOfMemory,
           "memory budget of " + std::to_string(budget->total() >> 20) +
               " MiB is too small for the layout model: its run on a " + std::to_string(lw) + "x" +
               std::to_string(lh) + " input needs " + std::to_string((need + (1 << 20) - 1) >> 20) +
               " MiB; raise max_memory_mb");
    bc.reservation = budget->reserve(need);
    call = std::make_unique<Pipeline::BudgetedCall>(std::move(bc));
  }

  // The page's lines: the OCR stages', or the caller's (and OCR in pictures without them).
  std::vector<OcrLine> lines;
  std::vector<LineStyle> styles;
  if (text) {
    lines = text->lines;
    styles = text->styles;
    if (styles.empty()) {
      styles.resize(lines.size());
      for (LineStyle& s : styles) s.source = TextSource::kPdf;
    }
  } else {
    OcrResult o = call ? ocr.run(image, *call) : ocr.run(image);
    doc.ocr.timings = o.timings;
    doc.ocr.det_width = o.det_width;
    doc.ocr.det_height = o.det_height;
    lines = std::move(o.lines);
    styles.resize(lines.size());
  }

  // A page whose text runs sideways or upside down is parsed turned upright (the layout model
  // reads upright pages), its boxes mapped back.
  if (may_turn) {
    const int turns = text_turns(lines);
    if (turns != 0) {
      call.reset();  // the turned call reserves its own, with the copy
      const TurnedImage upright = turn_image(image, turns);
      PageText turned;
      if (text) turned = *text;
      turned.lines = lines;
      turned.styles = styles;
      turn_lines(turned.lines, turns, image.width, image.height, false);
      for (BoxF& b : turned.rules) b = turn_box(b, turns, image.width, image.height, false);
      for (BoxF& b : turned.images) b = turn_box(b, turns, image.width, image.height, false);
      DocumentResult d = run_page(upright.view, &turned, false, upright.pixels.size());
      if (!text) d.ocr.timings = doc.ocr.timings;  // the OCR was read once, on the page as given
      d.ocr.det_width = doc.ocr.det_width;
      d.ocr.det_height = doc.ocr.det_height;
      turn_result_back(d, turns, image.width, image.height);
      d.width = image.width;
      d.height = image.height;
      d.turns = turns;
      d.note = "the page's text is turned " + std::to_string(90 * turns) +
               " degrees clockwise: parsed turned upright";
      d.timings.total = since(t_start);
      return d;
    }
  }
  // A scan skewed by a degree or more is parsed levelled (layout regions are upright boxes),
  // its boxes mapped back.
  if (may_turn) {
    const float skew = text_skew(lines);
    if (std::fabs(skew) >= R.deskew_degrees && std::fabs(skew) <= 15.f) {
      call.reset();
      const TurnedImage level = rotate_image(image, -skew);
      PageText levelled;
      if (text) levelled = *text;
      levelled.lines = lines;
      levelled.styles = styles;
      rotate_lines(levelled.lines, -skew, image.width, image.height, false);
      auto rot = [&](BoxF& b) {
        Quad q;
        q.p[0] = {b.x0, b.y0}, q.p[1] = {b.x1, b.y0}, q.p[2] = {b.x1, b.y1}, q.p[3] = {b.x0, b.y1};
        for (Point2f& p : q.p) p = rotate_point(p, -skew, image.width, image.height, false);
        b = quad_bounds(q);
      };
      for (BoxF& b : levelled.rules) rot(b);
      for (BoxF& b : levelled.images) rot(b);
      DocumentResult d = run_page(level.view, &levelled, false, level.pixels.size());
      if (!text) d.ocr.timings = doc.ocr.timings;
      d.ocr.det_width = doc.ocr.det_width;
      d.ocr.det_height = doc.ocr.det_height;
      rotate_result_back(d, -skew, image.width, image.height);
      char buf[96];
      std::snprintf(buf, sizeof buf, "the page is skewed %.1f degrees: parsed levelled", skew);
      d.note = buf;
      d.timings.total = since(t_start);
      return d;
    }
  }
  if (text) read_pictures(ocr, image, *text, call.get(), &lines, &styles, &doc.ocr.timings);

  auto t0 = Clock::now();
  std::vector<Region> layout =
      detect_layout(*m.layout, m.layout_labels, page, c, *ocr.pool(), &doc.timings);
  doc.timings.layout = since(t0);

  t0 = Clock::now();
  // OCR lines the detector ran across a column gutter are cut at it; then typography.
  split_at_columns(lines, styles, layout, R);
  join_markers(lines, styles, layout);
  measure_styles(page, lines, styles, R);
  PageLines pl;
  pl.boxes.reserve(lines.size());
  pl.texts.reserve(lines.size());
  pl.pieces.reserve(lines.size());
  for (const OcrLine& l : lines) {
    pl.boxes.push_back(l.box);
    pl.texts.push_back(l.text);
    pl.pieces.push_back(line_pieces(l));
  }
  pl.styles = styles;
  std::vector<Region> regions = order_regions(layout, pl, image.width, image.height, R);
  // The lines in document order: each region's lines, regions in order.
  doc.ocr.lines.reserve(lines.size());
  doc.styles.reserve(lines.size());
  for (Region& r : regions) {
    for (int& i : r.lines) {
      doc.ocr.lines.push_back(std::move(lines[static_cast<std::size_t>(i)]));
      doc.styles.push_back(std::move(styles[static_cast<std::size_t>(i)]));
      i = static_cast<int>(doc.ocr.lines.size()) - 1;
    }
  }
  doc.timings.order = since(t0);

  t0 = Clock::now();
  for (Region& r : regions)
    if (r.type == RegionType::kTable) recognize_table(page, r, doc, call ? &call->plan : nullptr);
  doc.timings.table = since(t0);
  doc.regions = std::move(regions);
  if (call) ocr.pool()->trim();
  doc.timings.total = since(t_start);
  return doc;
}

// The table stage (csrc/document/table_stage.h) on one table region. Under a budget the call's
// reservation holds a table run when one fits the budget; when none does, the grid method reads
// the table and its note says why.
void DocumentParser::recognize_table(const ImageView& page, Region& region, DocumentResult& doc,
                                     const CallPlan* plan) const {
  const DocumentModels& m = models();
  const Pipeline& ocr = *ocr_;
  TableStageModels tm;
  tm.model = m.table.get();
  tm.classes = &impl_->table_classes;
  tm.pool = ocr.pool().get();
  if (plan && m.table && ocr.memory_budget()) {
    const std::size_t need = table_run_bytes(*m.table, ocr.config(), ocr.memory_profile());
    if (need > ocr.memory_budget()->total())
      tm.model_unavailable = "the memory budget of " +
                             std::to_string(ocr.memory_budget()->total() >> 20) +
                             " MiB is too small for a table model run (" +
                             std::to_string((need + (1 << 20) - 1) >> 20) + " MiB)";
  }
  recognize_table_region(tm, ocr.config(), page, region, doc, &doc.timings.table_model);
}

}  // namespace edgeocr
