// Document parsing: a page's layout regions (title, text, table, figure, ...) found by a layout
// model, the OCR lines assigned to them, tables as cells, all in reading order; Markdown out.
// The types of docs/document-parsing.md; the table stage (document/table_stage.h) fills the table
// structs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "edgeocr/image.h"
#include "edgeocr/model.h"
#include "edgeocr/pipeline.h"

namespace edgeocr {

struct BoxF {  // axis-aligned, source pixels; x0 <= x1, y0 <= y1
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

// The region types. Names (region_type_name): "text", "title", "list", "figure",
// "figure_caption", "table", "table_caption", "header", "footer", "page_number", "reference",
// "equation".
enum class RegionType : int {
  kText,
  kTitle,
  kList,
  kFigure,
  kFigureCaption,
  kTable,
  kTableCaption,
  kHeader,
  kFooter,
  kPageNumber,
  kReference,
  kEquation
};
constexpr int kRegionTypeCount = 12;

const char* region_type_name(RegionType t) noexcept;
// The type a layout model's label names: the names above and the labels of the layout models
// edgeocr knows (CDLA, PubLayNet, DocLayNet spellings such as "Figure caption",
// "section-header", "Page-footer", "formula", "caption"). False for a label it does not know.
bool region_type_of_label(const std::string& label, RegionType* type);

struct TableCell {
  int row = 0, col = 0, row_span = 1, col_span = 1;
  BoxF box;                // source pixels
  std::vector<int> lines;  // indices into DocumentResult::ocr.lines, in reading order
  std::string text;        // those lines' texts joined by " "
  bool header = false;     // in <thead>
};

struct TableStructure {
  int rows = 0, cols = 0;
  std::vector<TableCell> cells;  // ordered by (row, col) of their top-left slot
  std::string method;            // "model" (SLANet) or "grid" (ruled lines / alignment)
  // Why the grid method ran instead of the model, what the decoder repaired or capped ("" if
  // nothing): docs/tables.md.
  std::string note;
  float score = 0.f;  // the model's mean token probability (1 for the grid method)
};

struct Region {
  RegionType type = RegionType::kText;
  std::string label;  // the model's own label ("" for a region made for stray lines)
  float score = 0.f;
  BoxF box;
  bool furniture = false;  // header / footer / page number: kept apart from the body
  int heading_level = 0;   // 0: not a heading; 1: title; 2, 3: section headings
  int caption_of = -1;     // a caption: index (in DocumentResult::regions) of its figure/table
  bool from_layout = true;
  std::vector<int> lines;  // indices into DocumentResult::ocr.lines, in reading order
  bool has_table = false;
  TableStructure table;  // when has_table
};

struct DocumentTimings {  // seconds
  double layout = 0, layout_model = 0, table = 0, table_model = 0, order = 0, total = 0;
};

struct DocumentResult {
  OcrResult ocr;                // every line, in document reading order (regions' lines
                                // contiguous, regions in order); ocr.timings: the OCR stages
  std::vector<Region> regions;  // in reading order: top furniture, body, bottom furniture
  DocumentTimings timings;
  int width = 0, height = 0;  // the page's pixels
};

// What a DocumentParser runs besides the OCR pipeline.
struct DocumentModels {
  std::shared_ptr<Model> layout;           // a PicoDet layout model (required)
  std::vector<std::string> layout_labels;  // its classes, in output order
  std::shared_ptr<Model> table;            // a table-structure model (optional)
  std::vector<std::string> table_tokens;   // its structure tokens, in output order
};

// Checks a layout model's signature before it is used: one float32 NCHW input (batch 1 or
// dynamic, a fixed or dynamic size), and PicoDet's outputs: score maps [1, N_i, classes] and box
// distributions [1, N_i, 4 * bins], one pair per stride, with `labels.size()` classes.
// InvalidModel naming the model, the output and what was expected.
void check_layout_model(const Model& layout, const std::vector<std::string>& labels);

// Layout + OCR + tables + reading order on a page (docs/document-parsing.md).
// Thread-safe: run() may be called from several threads at once, like Pipeline::run.
class DocumentParser {
 public:
  // `ocr`: the OCR pipeline the lines come from (shared; its config holds the layout and table
  // settings); `models.layout` is checked here (check_layout_model).
  DocumentParser(std::shared_ptr<const Pipeline> ocr, DocumentModels models);
  // The same, with the models loaded by `load` when a call first needs them (the loader does
  // this for files given as paths: a plain OCR call never pays for them). A failure to load is
  // that call's error; the next call tries again.
  DocumentParser(std::shared_ptr<const Pipeline> ocr, std::function<DocumentModels()> load);
  ~DocumentParser();

  // Layout, OCR and tables on the page, lines assigned to regions, reading order. Under the OCR
  // pipeline's memory budget the call reserves what its largest stage needs (the OCR stages'
  // plan, the layout run, a table run) before it starts, and waits for room as Pipeline::run
  // does; OutOfMemory when even that does not fit the budget.
  DocumentResult run(const ImageView& image) const;

  const Pipeline& ocr() const { return *ocr_; }
  const std::shared_ptr<const Pipeline>& ocr_pipeline() const { return ocr_; }
  // Whether the models are loaded (false for deferred models no call has needed yet).
  bool models_loaded() const;
  // The loaded models (a deferred load happens now).
  const DocumentModels& models() const;

 private:
  // The table stage on one table region of the page (doc's lines already in document order).
  void recognize_table(const ImageView& page, Region& region, DocumentResult& doc,
                       const CallPlan* plan) const;

  struct Impl;
  std::shared_ptr<const Pipeline> ocr_;
  std::unique_ptr<Impl> impl_;
};

struct MarkdownOptions {
  // Figures become ![caption](figure_prefix + N), N counting the page's figures from 1.
  std::string figure_prefix = "figure-";
  // Headers, footers and page numbers are left out unless this is set.
  bool furniture = false;
};

// The page as Markdown (docs/document-parsing.md, "Markdown"): headings as #/##/###, paragraphs
// in reading order with hyphenation at line ends undone, tables as pipe tables (HTML where a
// cell spans), figures as image references with their caption, furniture left out. The one
// Markdown writer: Python and the C API call it. Thread-safe.
std::string to_markdown(const DocumentResult& doc, const MarkdownOptions& options = {});

// One block of a page's Markdown and the region it came from (an index into doc.regions).
struct MarkdownBlock {
  int region = -1;
  std::string text;  // without the blank line that separates blocks
};

// The blocks to_markdown writes, in order, each with its region: to_markdown is their texts,
// each followed by a blank line, less the last newline. A region gives no block (furniture left
// out, no text), one, or several (a list whose numbering starts again, a references region's
// entries); a figure's block holds its captions, which also have their own. Thread-safe.
std::vector<MarkdownBlock> markdown_blocks(const DocumentResult& doc,
                                           const MarkdownOptions& options = {});

// A table as HTML (<table><thead>...</thead><tbody>...</tbody></table>, rowspan/colspan where
// cells span; text escaped).
std::string table_html(const TableStructure& table);

}  // namespace edgeocr
