// edgeocr._core.DocumentParser and its result, _core.Document (csrc/include/edgeocr/document.h).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <memory>

#include "bindings.h"
#include "codec/decode.h"
#include "edgeocr/document.h"
#include "edgeocr/status.h"

namespace py = pybind11;
using namespace edgeocr;
using namespace edgeocr::python;

namespace {

// A parsed page as the core holds it: Python reads its parts, and its Markdown and tables' HTML
// come from the core's one writer.
struct PyDocument {
  std::shared_ptr<const DocumentResult> doc;
  std::pair<int, int> image_size;
};

py::tuple box4(const BoxF& b) {
  return py::make_tuple(b.x0, b.y0, b.x1, b.y1);
}

py::dict table_dict(const TableStructure& t) {
  py::list cells;
  for (const TableCell& c : t.cells)
    cells.append(py::dict(py::arg("row") = c.row, py::arg("col") = c.col,
                          py::arg("row_span") = c.row_span, py::arg("col_span") = c.col_span,
                          py::arg("box") = box4(c.box), py::arg("lines") = c.lines,
                          py::arg("text") = utf8(c.text), py::arg("header") = c.header));
  return py::dict(py::arg("rows") = t.rows, py::arg("cols") = t.cols, py::arg("method") = t.method,
                  py::arg("note") = utf8(t.note), py::arg("score") = t.score,
                  py::arg("cells") = cells);
}

py::dict region_dict(const Region& r) {
  static const char* kKinds[] = {"bullet", "number", "marker", "reference"};
  py::list items;
  for (const ListItem& it : r.items)
    items.append(py::dict(py::arg("kind") = kKinds[static_cast<int>(it.kind) & 3],
                          py::arg("first") = it.first, py::arg("count") = it.count,
                          py::arg("number") = it.number, py::arg("marker") = utf8(it.marker)));
  return py::dict(py::arg("type") = region_type_name(r.type), py::arg("label") = utf8(r.label),
                  py::arg("score") = r.score, py::arg("box") = box4(r.box),
                  py::arg("furniture") = r.furniture, py::arg("heading_level") = r.heading_level,
                  py::arg("caption_of") = r.caption_of, py::arg("from_layout") = r.from_layout,
                  py::arg("lines") = r.lines,
                  py::arg("table") = r.has_table ? py::object(table_dict(r.table)) : py::none(),
                  py::arg("text_source") = text_source_name(r.text_source),
                  py::arg("items") = items, py::arg("continues") = r.continues,
                  py::arg("joined") = r.joined, py::arg("continues_region") = r.continues_region,
                  py::arg("from_previous_page") = r.from_previous_page);
}

py::dict style_dict(const LineStyle& s) {
  return py::dict(py::arg("source") = text_source_name(s.source), py::arg("size") = s.size,
                  py::arg("stroke") = s.stroke, py::arg("weight") = s.weight,
                  py::arg("bold") = s.bold, py::arg("italic") = s.italic,
                  py::arg("font") = utf8(s.font));
}

// A (4, 2) quad from Python (a sequence of 4 points).
Quad quad_from(const py::handle& o, const char* what) {
  py::array_t<float, py::array::c_style | py::array::forcecast> a = py::array_t < float,
                                                                py::array::c_style |
                                                                    py::array::forcecast >
                                                                        ::ensure(o);
  if (!a || a.ndim() != 2 || a.shape(0) != 4 || a.shape(1) != 2)
    fail(StatusCode::kInvalidArgument, std::string(what) + " must be a (4, 2) array of points");
  Quad q;
  const float* v = a.data();
  for (int i = 0; i < 4; ++i) q.p[i] = {v[2 * i], v[2 * i + 1]};
  return q;
}

BoxF box_from(const py::handle& o, const char* what) {
  py::sequence s = py::reinterpret_borrow<py::sequence>(o);
  if (py::len(s) != 4)
    fail(StatusCode::kInvalidArgument, std::string(what) + " must be (x0, y0, x1, y1)");
  BoxF b{s[0].cast<float>(), s[1].cast<float>(), s[2].cast<float>(), s[3].cast<float>()};
  return {std::min(b.x0, b.x1), std::min(b.y0, b.y1), std::max(b.x0, b.x1), std::max(b.y0, b.y1)};
}

// The caller's text of a page: lines as (text, box, words) with the box and the words' boxes
// clockwise from the text's own top-left (a text layer's convention), styles as (size, weight,
// bold, italic, font), rules and images as (x0, y0, x1, y1).
PageText page_text_from(const py::sequence& lines, const py::sequence& styles,
                        const py::sequence& rules, const py::sequence& images, bool ocr_images) {
  PageText t;
  const std::size_t n = py::len(lines);
  if (n > kMaxPageTextLines)
    fail(StatusCode::kInvalidArgument, "a page's text holds " + std::to_string(n) +
                                           " lines, more than " +
                                           std::to_string(kMaxPageTextLines));
  t.lines.reserve(n);
  for (const py::handle& h : lines) {
    py::sequence l = py::reinterpret_borrow<py::sequence>(h);
    if (py::len(l) != 3) fail(StatusCode::kInvalidArgument, "a line must be (text, box, words)");
    std::vector<OcrWord> words;
    for (const py::handle& w : py::reinterpret_borrow<py::sequence>(l[2])) {
      py::sequence ws = py::reinterpret_borrow<py::sequence>(w);
      if (py::len(ws) != 2) fail(StatusCode::kInvalidArgument, "a word must be (text, box)");
      OcrWord word;
      word.text = ws[0].cast<std::string>();
      word.box = quad_from(ws[1], "a word's box");
      word.score = 1.f;
      words.push_back(std::move(word));
    }
    t.lines.push_back(
        text_line(l[0].cast<std::string>(), quad_from(l[1], "a line's box"), std::move(words)));
  }
  if (py::len(styles) != 0) {
    if (py::len(styles) != n)
      fail(StatusCode::kInvalidArgument, "styles must be one per line, or none");
    for (const py::handle& h : styles) {
      py::sequence st = py::reinterpret_borrow<py::sequence>(h);
      if (py::len(st) != 5)
        fail(StatusCode::kInvalidArgument, "a style must be (size, weight, bold, italic, font)");
      LineStyle s;
      s.source = TextSource::kPdf;
      s.size = st[0].cast<float>();
      s.weight = st[1].cast<int>();
      s.bold = st[2].cast<bool>();
      s.italic = st[3].cast<bool>();
      s.font = st[4].cast<std::string>();
      t.styles.push_back(std::move(s));
    }
  }
  for (const py::handle& h : rules) t.rules.push_back(box_from(h, "a rule"));
  for (const py::handle& h : images) t.images.push_back(box_from(h, "an image box"));
  t.ocr_images = ocr_images;
  return t;
}

PyDocument document_of(DocumentResult&& r) {
  PyDocument d;
  d.image_size = {r.width, r.height};
  d.doc = std::make_shared<const DocumentResult>(std::move(r));
  return d;
}

// A document's pages from Python: Documents, or None for a page that failed (an empty page).
std::vector<const PyDocument*> pages_from(const py::sequence& docs) {
  std::vector<const PyDocument*> out;
  out.reserve(py::len(docs));
  for (const py::handle& h : docs) {
    if (h.is_none()) {
      out.push_back(nullptr);
      continue;
    }
    if (!py::isinstance<PyDocument>(h))
      fail(StatusCode::kInvalidArgument, "the pages must be Documents (or None for a failed page)");
    out.push_back(&h.cast<const PyDocument&>());
  }
  return out;
}

}  // namespace

void bind_document(py::module_& m) {
  py::class_<PyDocument>(m, "Document")
      .def_property_readonly("width", [](const PyDocument& d) { return d.doc->width; })
      .def_property_readonly("height", [](const PyDocument& d) { return d.doc->height; })
      // The OCR lines in document order, as Pipeline.run gives lines.
      .def_property_readonly("lines",
                             [](const PyDocument& d) {
                               py::list out;
                               for (const OcrLine& l : d.doc->ocr.lines) out.append(line_tuple(l));
                               return out;
                             })
      .def_property_readonly("styles",
                             [](const PyDocument& d) {
                               py::list out;
                               for (const LineStyle& st : d.doc->styles) out.append(style_dict(st));
                               return out;
                             })
      .def_property_readonly("turns", [](const PyDocument& d) { return d.doc->turns; })
      // Whether a region of the page goes on from the previous page's (finish_document).
      .def_property_readonly("continues_previous",
                             [](const PyDocument& d) {
                               for (const Region& r : d.doc->regions)
                                 if (r.continues && r.from_previous_page) return true;
                               return false;
                             })
      .def_property_readonly("note", [](const PyDocument& d) { return utf8(d.doc->note); })
      .def_property_readonly("regions",
                             [](const PyDocument& d) {
                               py::list out;
                               for (const Region& r : d.doc->regions) out.append(region_dict(r));
                               return out;
                             })
      .def_property_readonly(
          "timings",
          [](const PyDocument& d) {
            const DocumentTimings& t = d.doc->timings;
            const OcrTimings& o = d.doc->ocr.timings;
            return py::dict(py::arg("layout") = t.layout, py::arg("layout_model") = t.layout_model,
                            py::arg("table") = t.table, py::arg("table_model") = t.table_model,
                            py::arg("order") = t.order, py::arg("det") = o.det,
                            py::arg("cls") = o.cls, py::arg("rec") = o.rec,
                            py::arg("det_model") = o.det_model, py::arg("cls_model") = o.cls_model,
                            py::arg("rec_model") = o.rec_model, py::arg("total") = t.total);
          })
      .def(
          "markdown",
          [](const PyDocument& d, const std::string& figure_prefix, bool furniture) {
            MarkdownOptions o;
            o.figure_prefix = figure_prefix;
            o.furniture = furniture;
            return utf8(to_markdown(*d.doc, o));
          },
          py::arg("figure_prefix") = "figure-", py::arg("furniture") = false,
          "The page as Markdown (the core's one writer).")
      .def(
          "markdown_blocks",
          [](const PyDocument& d, const std::string& figure_prefix, bool furniture) {
            MarkdownOptions o;
            o.figure_prefix = figure_prefix;
            o.furniture = furniture;
            py::list out;
            for (const MarkdownBlock& b : markdown_blocks(*d.doc, o))
              out.append(py::make_tuple(b.region, utf8(b.text)));
            return out;
          },
          py::arg("figure_prefix") = "figure-", py::arg("furniture") = false,
          "The Markdown's blocks as (region index, text): markdown() is them joined.")
      .def(
          "table_html",
          [](const PyDocument& d, std::size_t region) {
            if (region >= d.doc->regions.size() || !d.doc->regions[region].has_table)
              fail(StatusCode::kInvalidArgument,
                   "region " + std::to_string(region) + " holds no table");
            return utf8(table_html(d.doc->regions[region].table));
          },
          py::arg("region"));

  m.def(
      "check_document_rules",
      // The rules a caller names ({name: value}), each checked (InvalidInputError): returned
      // as floats, in the struct's order.
      [](const py::dict& given) {
        DocumentRules r;
        for (const auto& kv : given)
          set_document_rule(r, kv.first.cast<std::string>(), kv.second.cast<double>());
        py::dict out;
        for (const std::string& n : document_rule_names())
          if (given.contains(n)) out[py::str(n)] = document_rule(r, n);
        return out;
      },
      py::arg("rules"));
  py::class_<DocumentParser, std::shared_ptr<DocumentParser>>(m, "DocumentParser")
      .def_property_readonly("models_loaded", &DocumentParser::models_loaded)
      .def_property_readonly("rules",
                             [](const DocumentParser& p) {
                               py::dict out;
                               for (const std::string& n : document_rule_names())
                                 out[py::str(n)] = document_rule(p.rules(), n);
                               return out;
                             })
      .def(
          "set_rules",
          // Rules by name over the parser's own (all checked before any is set); before the
          // parser reads a page (it is not guarded against a parse in flight).
          [](DocumentParser& p, const py::dict& given) {
            DocumentRules r = p.rules();
            for (const auto& kv : given)
              set_document_rule(r, kv.first.cast<std::string>(), kv.second.cast<double>());
            p.set_rules(r);
          },
          py::arg("rules"))
      .def_property_readonly("has_table_model",
                             [](const DocumentParser& p) {
                               py::gil_scoped_release nogil;  // a deferred load happens now
                               return p.models().table != nullptr;
                             })
      .def_property_readonly("layout_labels",
                             [](const DocumentParser& p) {
                               std::vector<std::string> labels;
                               {
                                 py::gil_scoped_release nogil;
                                 labels = p.models().layout_labels;
                               }
                               return labels;
                             })
      .def(
          "run",
          [](const DocumentParser& p, const py::array& img) {
            ImageView view = image_view_of(img);
            DocumentResult r;
            {
              py::gil_scoped_release nogil;
              r = p.run(view);
            }
            return document_of(std::move(r));
          },
          py::arg("image"))
      .def(
          "run_text",
          // The page with the caller's text in place of the OCR stages (a PDF's text layer).
          [](const DocumentParser& p, const py::array& img, const py::sequence& lines,
             const py::sequence& styles, const py::sequence& rules, const py::sequence& images,
             bool ocr_images) {
            ImageView view = image_view_of(img);
            PageText text = page_text_from(lines, styles, rules, images, ocr_images);
            DocumentResult r;
            {
              py::gil_scoped_release nogil;
              r = p.run(view, text);
            }
            return document_of(std::move(r));
          },
          py::arg("image"), py::arg("lines"), py::arg("styles"), py::arg("rules"),
          py::arg("images"), py::arg("ocr_images") = true)
      .def(
          "run_encoded",
          // A PNG's or JPEG's bytes decoded in the core (csrc/codec/decode.h), then run(); the
          // reason (a str) when the decoder leaves them to others, as Pipeline.run_encoded.
          [](const DocumentParser& p, const py::object& data, const std::string& what,
             std::uint64_t max_pixels) -> py::object {
            py::buffer_info buf = contiguous_buffer(data, "image bytes");
            const auto* bytes = static_cast<const std::uint8_t*>(buf.ptr);
            const auto size = static_cast<std::size_t>(buf.size * buf.itemsize);
            codec::DecodedImage img;
            std::string why;
            codec::DecodeResult decoded;
            DocumentResult r;
            {
              py::gil_scoped_release nogil;
              decoded = codec::decode_image(bytes, size, max_pixels,
                                            codec::default_max_bytes(max_pixels), &img, &why);
              if (decoded == codec::DecodeResult::kDecoded) r = p.run(img.view());
            }
            if (auto declined = declined_image(decoded, what, why)) return *declined;
            return py::cast(document_of(std::move(r)));
          },
          py::arg("data"), py::arg("what"), py::arg("max_pixels"));

  m.def(
      "finish_document",
      // The whole-document pass over copies of the pages (the Documents given stay as they are).
      [](const py::sequence& docs, const DocumentParser* parser, std::size_t first) {
        const std::vector<const PyDocument*> in = pages_from(docs);
        const DocumentRules rules = parser ? parser->rules() : DocumentRules{};
        std::vector<DocumentResult> pages;
        pages.reserve(in.size());
        for (const PyDocument* d : in) pages.push_back(d ? *d->doc : DocumentResult{});
        {
          py::gil_scoped_release nogil;
          std::vector<DocumentResult*> ptrs;
          for (std::size_t i = 0; i < pages.size(); ++i)
            ptrs.push_back(in[i] ? &pages[i] : nullptr);
          finish_document(ptrs, rules, first);
        }
        py::list out;
        for (std::size_t i = 0; i < pages.size(); ++i) {
          if (!in[i]) {
            out.append(py::none());
            continue;
          }
          PyDocument d = document_of(std::move(pages[i]));
          d.image_size = in[i]->image_size;
          out.append(py::cast(std::move(d)));
        }
        return out;
      },
      py::arg("pages"), py::arg("parser") = nullptr, py::arg("first") = 0,
      "The whole-document pass (running headers and footers, page numbers, continued tables "
      "and paragraphs, one heading scale) over a document's pages in order: new Documents "
      "(None stays None: a failed page). `parser`: whose rules (default rules without); pages "
      "before `first` are context, given back as they were.");
  m.def(
      "document_markdown",
      [](const py::sequence& docs, const std::string& figure_prefix, bool furniture,
         const std::vector<int>& page_numbers) {
        const std::vector<const PyDocument*> in = pages_from(docs);
        if (!page_numbers.empty() && page_numbers.size() != in.size())
          fail(StatusCode::kInvalidArgument, "page_numbers must be one per page, or none");
        std::vector<const DocumentResult*> pages;
        for (const PyDocument* d : in) pages.push_back(d ? d->doc.get() : nullptr);
        MarkdownOptions o;
        o.figure_prefix = figure_prefix;
        o.furniture = furniture;
        std::string md;
        {
          py::gil_scoped_release nogil;
          md = document_markdown(pages, o, page_numbers);
        }
        return utf8(md);
      },
      py::arg("pages"), py::arg("figure_prefix") = "figure-", py::arg("furniture") = false,
      py::arg("page_numbers") = std::vector<int>{},
      "The pages as one Markdown text (the core's writer): continued paragraphs and tables "
      "written as one, <!-- page N --> between pages (N from page_numbers, 1-based).");

  m.def(
      "region_type_of_label",
      [](const std::string& label) -> py::object {
        RegionType t;
        if (!region_type_of_label(label, &t)) return py::none();
        return py::str(region_type_name(t));
      },
      py::arg("label"), "The region type a layout model's label names, None for an unknown one.");
}
