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

// Where a line's text came from: the OCR stages, or a text the caller gave (a PDF's text layer).
enum class TextSource : int { kOcr = 0, kPdf = 1 };
const char* text_source_name(TextSource s) noexcept;  // "ocr", "pdf"

// A line's typography, the input of the heading rule for both sources of text: read from the
// font for a text layer, measured on the page's pixels for OCR lines (DocumentParser fills it).
struct LineStyle {
  TextSource source = TextSource::kOcr;
  // The text's size in page pixels: a text layer's font size (its em); an OCR line's height
  // across its text. Compared only with lines of the same source.
  float size = 0.f;
  // OCR lines: the median width of the ink's strokes over the line's height (0: not measured).
  float stroke = 0.f;
  int weight = 0;       // a text layer's font weight 100..900 (0: unknown)
  bool bold = false;    // a text layer: its font says so; OCR: set against the page's body strokes
  bool italic = false;  // a text layer only
  std::string font;     // a text layer's font name ("" for OCR)
};

// Text a caller already has for a page (a PDF's text layer read by the caller, a device's own
// OCR): DocumentParser::run reads it in place of its own OCR (docs/document-parsing.md, "Text
// from the caller"). Boxes are page pixels of the image given with it.
struct PageText {
  std::vector<OcrLine> lines;     // text, box, words (their boxes on the line's), turns, score
  std::vector<LineStyle> styles;  // one per line, or empty: every line is kPdf with no typography
  std::vector<BoxF> rules;        // ruling lines drawn on the page (vector paths), page pixels
  // Pictures on the page (image objects): the OCR stages read those no given line lies in
  // (a scanned figure or a pasted screenshot on a born-digital page), unless ocr_images is false.
  std::vector<BoxF> images;
  bool ocr_images = true;
};

// A line of a caller's text whose box and words' boxes run clockwise from the text's own
// top-left (as text layers give them), as an OcrLine: corners from the one nearest the image's
// top-left, `turns` saying which corner the text starts at (OcrLine's convention); score 1.
OcrLine text_line(std::string text, const Quad& box, std::vector<OcrWord> words);

// An item of a list (or an entry of a references region): its lines are the region's lines
// [first, first + count) (indices into Region::lines), its opening cut from the first line's text.
struct ListItem {
  enum Kind : int { kBullet = 0, kNumber = 1, kMarker = 2, kReference = 3 };
  Kind kind = kBullet;
  int first = 0, count = 0;
  int number = 0;        // kNumber, kReference
  std::string marker;    // the opening as printed ("•", "3.", "(iv)", "[12]")
  std::size_t skip = 0;  // bytes of the first line's text the opening takes (with its spaces)
};

struct Region {
  RegionType type = RegionType::kText;
  std::string label;  // the model's own label ("" for a region made for stray lines)
  float score = 0.f;
  BoxF box;
  bool furniture = false;  // header / footer / page number: kept apart from the body
  int heading_level = 0;   // 0: not a heading; 1: title; 2, 3, ...: section headings
  int caption_of = -1;     // a caption: index (in DocumentResult::regions) of its figure/table
  bool from_layout = true;
  std::vector<int> lines;  // indices into DocumentResult::ocr.lines, in reading order
  bool has_table = false;
  TableStructure table;                       // when has_table
  TextSource text_source = TextSource::kOcr;  // most of its lines' (by characters)
  // A list (type kList) or references (kReference) region's items, decided by the parser
  // (numbering counts up, one kind of opening a list); empty for other regions.
  std::vector<ListItem> items;
  // The document pass (finish_document): this region continues a body region read before it
  // (the last body region of the previous page: a paragraph or table cut by the page break; the
  // last of the column before: a paragraph cut by a column break; smaller type between them,
  // such as footnotes, aside), and how. Each page keeps its own text and cells;
  // document_markdown writes the two as one paragraph or one table.
  bool continues = false;
  std::string joined;  // "paragraph", "table" or "" (not joined)
  // The region it continues (with `continues`): an index into the previous page's regions when
  // the break is a page's (from_previous_page), else into this page's (a column break); -1.
  int continues_region = -1;
  bool from_previous_page = false;
};

struct DocumentTimings {  // seconds
  double layout = 0, layout_model = 0, table = 0, table_model = 0, order = 0, total = 0;
};

struct DocumentResult {
  OcrResult ocr;                  // every line, in document reading order (regions' lines
                                  // contiguous, regions in order); ocr.timings: the OCR stages
  std::vector<LineStyle> styles;  // one per ocr.lines entry: its source and typography
  std::vector<Region> regions;    // in reading order: top furniture, body, bottom furniture
  DocumentTimings timings;
  int width = 0, height = 0;  // the page's pixels
  // The page was read turned by this many quarter turns clockwise (its text ran sideways or
  // upside down); every box is mapped back to the page as given.
  int turns = 0;
  std::string note;  // what the parser did beyond the usual ("" if nothing), in words
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

// Every threshold of the document layer, with its unit (docs/document-parsing.md says each rule
// in words). Lengths are in line heights ("lh": the median height of the lines concerned) or
// shares of the page, never in pixels, so a rule reads a 72-dpi scan as a 300-dpi render.
struct DocumentRules {
  // -- a scan skewed by at least deskew_degrees (text_skew: the median slope of its long lines)
  // is parsed levelled
  float deskew_degrees = 1.0f;
  // -- layout clean-up
  float duplicate_iou = 0.8f;  // a region overlapping a better-scoring one by this IoU is dropped
  float inside_share =
      0.85f;  // a region this much inside a container (or a larger twin) is dropped
  // -- lines to regions
  float line_in_region = 0.5f;  // share of a line's box a region must hold to own it
  // A line that runs across two body regions side by side (a column gutter the detector bridged)
  // is cut at the word gap between them when each side holds this share of its width.
  float split_share = 0.2f;
  // -- figures that are text: a figure region is read as text when >= figure_text_lines of its
  // lines are prose (>= prose_words words, or >= 2 * prose_words CJK characters, and at least
  // prose_width lh wide) and they are >= figure_text_share of its lines; a figure covering more
  // than figure_page_share of the page is no figure (its lines are grouped as the page's text).
  int figure_text_lines = 3;
  int prose_words = 5;
  float prose_width = 8.f;
  float figure_text_share = 0.4f;
  float figure_page_share = 0.6f;
  // -- text grids (borderless tables in text; the one rule of "is this a grid"): >= grid_rows
  // rows of >= grid_cols pieces, each row within grid_row_gap lh of the last, columns at least
  // grid_col_gap lh apart, the median piece at most grid_cell_width lh wide and holding at most
  // grid_cell_words words (prose is long), at most grid_prose_share of the pieces prose.
  int grid_cols = 3;
  int grid_rows = 3;
  float grid_row_gap = 2.f;
  float grid_col_gap = 0.3f;
  float grid_cell_width = 6.f;
  float grid_cell_words = 4.f;
  float grid_prose_share = 0.25f;
  // -- stray lines (no region holds them): grouped when each is within stray_gap lh below the
  // last line of a group it overlaps horizontally.
  float stray_gap = 1.5f;
  // -- furniture: a text (or reference) region of at most furniture_lines lines inside the top
  // (bottom) furniture_band of the page, apart from every body region by furniture_gap of its
  // lh, its type no larger than furniture_height x the body's, is a running header (footer); a
  // page number's text (page_number_text) inside page_number_band is a page number.
  float furniture_band = 0.1f;
  int furniture_lines = 2;
  float furniture_gap = 1.0f;
  float furniture_height = 1.3f;
  float page_number_band = 0.12f;
  // -- captions: a caption reaches caption_reach x its height or caption_page of the page.
  float caption_reach = 3.f;
  float caption_page = 0.08f;
  // -- order: side-by-side regions overlap horizontally by less than column_overlap of the
  // narrower; at most max_ordered regions are ordered by precedence (more: bands).
  float column_overlap = 0.3f;
  int max_ordered = 400;
  // -- headings (the one heading rule, for OCR and text-layer lines alike): a heading is at most
  // heading_lines lines and heading_words words (CJK: 2 x), does not end a sentence, and stands
  // out: numbered as headings are, or bold, or its text heading_size x the body's (or
  // larger), or all capitals. A title region with more lines or words is a paragraph. Levels: 1
  // for the page's title (title_size x the body's and the tallest heading), then by numbering,
  // else by size: headings within level_size of each other share a level.
  int heading_lines = 3;
  float heading_words = 20.f;
  float heading_size = 1.15f;      // a text layer's font sizes
  float heading_size_ocr = 1.25f;  // OCR lines' heights (their boxes vary with the letters)
  float title_size = 1.6f;
  float level_size = 0.12f;
  // OCR lines are bold when their strokes are bold_stroke x the body's (median) strokes.
  float bold_stroke = 1.3f;
  // -- the document pass (finish_document, document_pass.cpp):
  // running headers and footers: a text region of at most repeat_lines lines inside the top
  // (bottom) repeat_band of the page whose text (repeat_key: numbers as one sign) is at the same
  // place, within repeat_distance of the page's size, on >= repeat_pages pages (or half the
  // pages of a short document, at least 2) is furniture;
  int repeat_pages = 2;
  float repeat_distance = 0.03f;
  float repeat_band = 0.15f;
  int repeat_lines = 3;
  // page numbers: a page number's text (page_number_value) of a region of at most
  // furniture_lines lines in the page_number_band margins is one when a page within
  // number_pages pages carries the number that differs by their distance;
  int number_pages = 2;
  // continued tables: the last body region of a page and the first of the next (after a
  // "(continued)" caption) are tables whose columns (those of the first's last row and the
  // second's first row) have the same count and boundaries within column_distance of the page
  // width;
  float column_distance = 0.03f;
  // cut paragraphs: a text region ending without a sentence's end and the next text region
  // (on the next page, or at the top of the next column) starting in lower case; or, the next
  // starting otherwise, the first ending in a comma, a lower-case word or a CJK character with
  // its last line filling >= join_full_line of the column and the next's first line not
  // indented (by >= join_indent lh: a new paragraph).
  float join_full_line = 0.8f;
  float join_indent = 0.8f;
};

// The rules by name (rules.cpp: every field of DocumentRules): their names in the struct's
// order; a rule's value; a rule set (InvalidArgument for an unknown name, a value that is not
// finite, negative, past the rule's bound, or not whole for a count).
std::vector<std::string> document_rule_names();
double document_rule(const DocumentRules& rules, const std::string& name);
void set_document_rule(DocumentRules& rules, const std::string& name, double value);

// Layout + OCR (or the caller's text) + tables + reading order on a page
// (docs/document-parsing.md). Thread-safe: run() may be called from several threads at once, like
// Pipeline::run.
constexpr std::size_t kMaxPageTextLines = 200000;

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
  // The same with the page's text from the caller (a PDF's text layer) in place of the OCR
  // stages, which then read only the pictures no given line lies in (PageText::images). Lines
  // and their styles are checked (finite boxes, styles.size() 0 or lines.size(), at most
  // kMaxPageTextLines lines): InvalidArgument naming what is wrong.
  DocumentResult run(const ImageView& image, const PageText& text) const;

  const DocumentRules& rules() const;
  // Before the parser is shared between threads.
  void set_rules(const DocumentRules& rules);

  const Pipeline& ocr() const { return *ocr_; }
  const std::shared_ptr<const Pipeline>& ocr_pipeline() const { return ocr_; }
  // Whether the models are loaded (false for deferred models no call has needed yet).
  bool models_loaded() const;
  // The loaded models (a deferred load happens now).
  const DocumentModels& models() const;

 private:
  // run() and run(image, text): `may_turn` false for a page already turned upright, whose copy
  // (held_bytes) the call's budget reservation covers.
  DocumentResult run_page(const ImageView& image, const PageText* text, bool may_turn,
                          std::size_t held_bytes) const;
  // The table stage on one table region of the page (doc's lines already in document order).
  void recognize_table(const ImageView& page, Region& region, DocumentResult& doc,
                       const CallPlan* plan) const;

  struct Impl;
  std::shared_ptr<const Pipeline> ocr_;
  std::unique_ptr<Impl> impl_;
};

// The whole-document pass over a document's parsed pages, in order (docs/document-parsing.md,
// "The whole document"): running headers and footers (text repeated at the same place, page
// numbers in sequence) become furniture even where a page alone could not tell; a table
// continued on the next page and a paragraph cut by a page or column break are marked
// (Region::continues, joined); heading levels are made one scale for the document. A null page
// is an empty one (a page that failed). Regions that become furniture move to the page's top or
// bottom furniture, their lines with them (DocumentResult's order). Pages before `first` are
// read, not changed: pages already finished, the context of the ones after them (a streaming
// caller's window: what it gave out stays as it was). Time O(pages x regions), memory
// O(pages + regions) beside the pages. Not thread-safe on the same pages.
void finish_document(std::vector<DocumentResult*>& pages, const DocumentRules& rules = {},
                     std::size_t first = 0);

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

// A document's pages as one Markdown text: each page's blocks (markdown_blocks), pages after the
// first opened by "<!-- page N -->" (N: page_numbers[i], by default i + 1), a paragraph or
// table that continues another (Region::continues and continues_region, set by
// finish_document) written with it, where it is, as one paragraph or one table (a repeated
// header row left out; a "(continued)" caption before it left out). Figures:
// options.figure_prefix on page 1, "page-N-" + options.figure_prefix on page N > 1. A null page
// writes its separator alone. Thread-safe.
std::string document_markdown(const std::vector<const DocumentResult*>& pages,
                              const MarkdownOptions& options = {},
                              const std::vector<int>& page_numbers = {});

// A table as HTML (<table><thead>...</thead><tbody>...</tbody></table>, rowspan/colspan where
// cells span; text escaped).
std::string table_html(const TableStructure& table);

}  // namespace edgeocr
