// DocumentParser: layout model + the shared OCR pipeline + (doc-table's) table recogniser, lines
// assigned to regions, reading order (csrc/document/reading_order.h).
#include "edgeocr/document.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "common/checked.h"
#include "edgeocr/status.h"
#include "pipeline/model_checks.h"
#include "document/table_stage.h"
#include "document/layout_decode.h"
#include "document/reading_order.h"
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

DocumentResult DocumentParser::run(const ImageView& image) const {
  validate(image);
  const auto t_start = Clock::now();
  const DocumentModels& m = models();
  const Pipeline& ocr = *ocr_;
  const PipelineConfig& c = ocr.config();
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

  auto t0 = Clock::now();
  std::vector<Region> layout =
      detect_layout(*m.layout, m.layout_labels, page, c, *ocr.pool(), &doc.timings);
  doc.timings.layout = since(t0);
  OcrResult ocr_result = call ? ocr.run(image, *call) : ocr.run(image);

  t0 = Clock::now();
  std::vector<Quad> quads;
  std::vector<std::string> texts;
  quads.reserve(ocr_result.lines.size());
  texts.reserve(ocr_result.lines.size());
  for (const OcrLine& l : ocr_result.lines) {
    quads.push_back(l.box);
    texts.push_back(l.text);
  }
  std::vector<std::vector<BoxF>> pieces;  // the lines' text pieces for the text-grid rule
  pieces.reserve(ocr_result.lines.size());
  for (const OcrLine& l : ocr_result.lines) pieces.push_back(line_pieces(l));
  std::vector<Region> regions =
      order_regions(layout, quads, texts, image.width, image.height, {}, pieces);
  // The lines in document order: each region's lines, regions in order.
  doc.ocr.timings = ocr_result.timings;
  doc.ocr.det_width = ocr_result.det_width;
  doc.ocr.det_height = ocr_result.det_height;
  doc.ocr.lines.reserve(ocr_result.lines.size());
  for (Region& r : regions) {
    for (int& i : r.lines) {
      doc.ocr.lines.push_back(std::move(ocr_result.lines[static_cast<std::size_t>(i)]));
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
