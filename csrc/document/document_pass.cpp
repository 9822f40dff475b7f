// The whole-document pass (document_pass.h): running headers and footers, page numbers in
// sequence, continued tables, cut paragraphs and one heading scale, across a document's pages.
#include "document/document_pass.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "document/geometry.h"
#include "document/reading_order.h"
#include "document/text_cues.h"

namespace edgeocr {
namespace docpass {
namespace {

// A text longer than this is no running header, and is not keyed.
constexpr std::size_t kMaxKeyBytes = 256;
// Candidates for a running header (footer) or a page number per page and band, the ones nearest
// the page's edge: a page of thousands of stray lines in its margins costs no more than this.
constexpr std::size_t kMaxCandidates = 8;
// Places one key may have on the pages (a text repeated all over a page is no running header).
constexpr std::size_t kMaxPlaces = 8;

bool furniture_type(RegionType t) {
  return t == RegionType::kHeader || t == RegionType::kFooter || t == RegionType::kPageNumber;
}

// A region whose text may be a running header, a footer or a page number.
bool text_type(RegionType t) {
  return t == RegionType::kText || t == RegionType::kTitle || t == RegionType::kReference ||
         furniture_type(t);
}

bool usable(const DocumentResult* p) {
  return p != nullptr && p->width > 0 && p->height > 0;
}

// A box in shares of the page's size.
BoxF normalised(const BoxF& b, const DocumentResult& p) {
  const float w = static_cast<float>(p.width), h = static_cast<float>(p.height);
  return {b.x0 / w, b.y0 / h, b.x1 / w, b.y1 / h};
}

// Two normalised boxes at the same place: their vertical centres within d, and their left
// edges, right edges or centres within d (left-aligned, right-aligned or centred text whose
// length changes with its number).
bool same_place(const BoxF& a, const BoxF& b, float d) {
  if (std::fabs(geo::yc(a) - geo::yc(b)) > d) return false;
  return std::fabs(a.x0 - b.x0) <= d || std::fabs(a.x1 - b.x1) <= d ||
         std::fabs(geo::xc(a) - geo::xc(b)) <= d;
}

// Region k of the page becomes furniture: a page number, else a header or footer by its place.
// Returns whether it was in the body (the page's order must be restored).
bool make_furniture(DocumentResult& page, Region& r, bool page_number) {
  const bool was_body = !r.furniture;
  if (page_number)
    r.type = RegionType::kPageNumber;
  else if (!furniture_type(r.type))
    r.type = geo::yc(r.box) < 0.5f * static_cast<float>(page.height) ? RegionType::kHeader
                                                                     : RegionType::kFooter;
  r.furniture = true;
  r.heading_level = 0;
  r.caption_of = -1;
  r.items.clear();
  r.continues = false;
  r.joined.clear();
  return was_body;
}

// The margin candidates of a page: regions of text types and at most `max_lines` lines lying in
// the top or bottom `band` of the page, the kMaxCandidates nearest each edge.
std::vector<int> margin_regions(const DocumentResult& page, float band, int max_lines) {
  std::vector<std::pair<float, int>> top, bottom;
  for (std::size_t k = 0; k < page.regions.size(); ++k) {
    const Region& r = page.regions[k];
    if (!text_type(r.type) || r.lines.empty() ||
        r.lines.size() > static_cast<std::size_t>(std::max(1, max_lines)) || !geo::finite(r.box))
      continue;
    const BoxF b = normalised(r.box, page);
    if (b.y1 <= band)
      top.push_back({b.y0, static_cast<int>(k)});
    else if (b.y0 >= 1.f - band)
      bottom.push_back({1.f - b.y1, static_cast<int>(k)});
  }
  std::vector<int> out;
  for (auto* side : {&top, &bottom}) {
    std::sort(side->begin(), side->end());
    for (std::size_t i = 0; i < side->size() && i < kMaxCandidates; ++i)
      out.push_back((*side)[i].second);
  }
  return out;
}

const std::string* line_text(const DocumentResult& page, int i) {
  if (i < 0 || static_cast<std::size_t>(i) >= page.ocr.lines.size()) return nullptr;
  return &page.ocr.lines[static_cast<std::size_t>(i)].text;
}

BoxF line_box(const DocumentResult& page, int i) {
  if (i < 0 || static_cast<std::size_t>(i) >= page.ocr.lines.size()) return {};
  return quad_bounds(page.ocr.lines[static_cast<std::size_t>(i)].box);
}

// UTF-8 helpers: the first and last code points of a text, spaces aside.
char32_t first_code(const std::string& s) {
  const std::u32string u = to_u32(s);
  for (char32_t c : u)
    if (c != ' ' && c != 0x3000 && c != '\t') return c;
  return 0;
}

// The last code point of a text, spaces and closing quotes and brackets aside (the sentence's
// end is before them: `said.”`).
char32_t last_code(const std::string& s, char32_t* before = nullptr) {
  const std::u32string u = to_u32(s);
  std::size_t e = u.size();
  auto closer = [](char32_t c) {
    return c == ' ' || c == 0x3000 || c == '\t' || c == '"' || c == '\'' || c == 0x201D ||
           c == 0x2019 || c == ')' || c == 0xFF09 || c == ']' || c == 0x300D || c == 0x300F ||
           c == 0xBB;
  };
  while (e > 0 && closer(u[e - 1])) --e;
  if (before) *before = e >= 2 ? u[e - 2] : 0;
  return e > 0 ? u[e - 1] : 0;
}

bool latin_lower(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 0xDF && c <= 0xFF && c != 0xF7) ||
         (c >= 0x100 && c <= 0x17F && (c & 1) == 1);
}

bool latin_letter(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7);
}

// Where a sentence (or a clause that a list or table follows) ends.
bool closing(char32_t c) {
  switch (c) {
    case '.':
    case '!':
    case '?':
    case ';':
    case ':':
    case 0x2026:  // …
    case 0x3002:
    case 0xFF01:
    case 0xFF1F:
    case 0xFF1B:
    case 0xFF1A:  // 。！？；：
    case 0xFF0E:  // ．
      return true;
    default:
      return false;
  }
}

bool hyphen(char32_t c) {
  return c == '-' || c == 0x2010 || c == 0xAD;
}

// Bullets a list item opens with.
bool bullet(char32_t c) {
  return c == 0x2022 || c == 0xB7 || c == 0x25AA || c == 0x25CF || c == 0x25A0 || c == 0x25E6 ||
         c == '*' || c == 0x2013 || c == 0x2014 || c == 0x25A1 || c == 0x221A;
}

// Whether paragraph `b` (on page B) goes on with paragraph `a` (on page A): the rule of
// cut_paragraphs (document_pass.h, DocumentRules).
bool goes_on(const DocumentResult& A, const Region& a, const DocumentResult& B, const Region& b,
             const DocumentRules& R) {
  if (a.lines.empty() || b.lines.empty()) return false;
  const std::string* la = line_text(A, a.lines.back());
  const std::string* lb = line_text(B, b.lines.front());
  if (!la || !lb) return false;
  char32_t before = 0;
  const char32_t end = last_code(*la, &before);
  const char32_t start = first_code(*lb);
  if (end == 0 || start == 0 || closing(end)) return false;
  // Strong cues: the next text opens in lower case, or a word is hyphenated across the break.
  if (latin_lower(start)) return true;
  if (hyphen(end) && latin_letter(before) && latin_letter(start)) return true;
  // Otherwise the first must end mid-sentence at a full line, and the second not open a
  // paragraph of its own (a heading's or list's numbering, a bullet, a caption, an indent).
  if (hyphen(end) || bullet(start) || heading_numbering(*lb).depth > 0) return false;
  RegionType kind;
  if (caption_cue(*lb, &kind)) return false;
  const BoxF last = line_box(A, a.lines.back());
  const float column = std::max(geo::width(a.box), geo::width(b.box));
  if (column <= 0.f || geo::width(last) < R.join_full_line * column) return false;
  if (b.lines.size() >= 2) {
    const BoxF l0 = line_box(B, b.lines[0]), l1 = line_box(B, b.lines[1]);
    const float lh = std::max(1.f, std::min(geo::height(l0), geo::height(l1)));
    if (l0.x0 - l1.x0 >= R.join_indent * lh) return false;
  }
  const bool latin_end = latin_lower(end) || end == ',';
  const bool cjk_end = (is_cjk(end) && is_alnum(end)) || end == 0xFF0C || end == 0x3001 ||
                       (end >= '0' && end <= '9' && is_cjk(before));
  if (latin_end) return is_alnum(start);
  if (cjk_end) return is_alnum(start);
  return false;
}

// The boundaries (left edges, then the last right edge) of the cells covering row `row`, in
// shares of the page width `w`; a column's left edge is the median left edge of the cells
// starting at it, its right edge that of the cells ending at it.
std::vector<float> row_edges(const TableStructure& t, int row, float w) {
  std::vector<float> out;
  if (t.cols <= 0 || t.cols > 10000 || w <= 0.f) return out;
  std::vector<std::vector<float>> left(static_cast<std::size_t>(t.cols)),
      right(static_cast<std::size_t>(t.cols));
  std::vector<const TableCell*> in_row;
  for (const TableCell& c : t.cells) {
    if (c.col < 0 || c.col >= t.cols || c.col_span < 1 || c.row_span < 1 || !geo::finite(c.box))
      continue;
    const int last = std::min(t.cols - 1, c.col + c.col_span - 1);
    left[static_cast<std::size_t>(c.col)].push_back(c.box.x0);
    right[static_cast<std::size_t>(last)].push_back(c.box.x1);
    if (c.row <= row && row < c.row + c.row_span) in_row.push_back(&c);
  }
  std::sort(in_row.begin(), in_row.end(),
            [](const TableCell* a, const TableCell* b) { return a->col < b->col; });
  for (const TableCell* c : in_row)
    out.push_back(geo::median(left[static_cast<std::size_t>(c->col)]) / w);
  if (!in_row.empty()) {
    const TableCell* c = in_row.back();
    const int last = std::min(t.cols - 1, c->col + c->col_span - 1);
    out.push_back(geo::median(right[static_cast<std::size_t>(last)]) / w);
  }
  return out;
}

// Every column's boundaries (left edges, then the last right edge), in shares of the page width.
std::vector<float> column_edges(const TableStructure& t, float w) {
  std::vector<float> out;
  if (t.cols <= 0 || t.cols > 10000 || w <= 0.f) return out;
  std::vector<std::vector<float>> left(static_cast<std::size_t>(t.cols));
  std::vector<float> right;
  for (const TableCell& c : t.cells) {
    if (c.col < 0 || c.col >= t.cols || c.col_span < 1 || !geo::finite(c.box)) continue;
    left[static_cast<std::size_t>(c.col)].push_back(c.box.x0);
    if (c.col + c.col_span >= t.cols) right.push_back(c.box.x1);
  }
  for (const auto& l : left) {
    if (l.empty()) return {};
    out.push_back(geo::median(l) / w);
  }
  if (right.empty()) return {};
  out.push_back(geo::median(right) / w);
  return out;
}

bool edges_match(const std::vector<float>& a, const std::vector<float>& b, float d) {
  if (a.size() < 3 || a.size() != b.size()) return false;  // two columns at least
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::fabs(a[i] - b[i]) > d) return false;
  return true;
}

// The texts of a table's row, spaces dropped, by column.
std::vector<std::string> row_texts(const TableStructure& t, int row) {
  std::vector<std::pair<int, std::string>> cells;
  for (const TableCell& c : t.cells)
    if (c.row == row) {
      std::string s;
      for (char ch : c.text)
        if (ch != ' ') s.push_back(ch);
      cells.push_back({c.col, s});
    }
  std::sort(cells.begin(), cells.end());
  std::vector<std::string> out;
  for (auto& c : cells) out.push_back(std::move(c.second));
  return out;
}

// A heading's typography and numbering, for heading_levels.
struct Heading {
  DocumentResult* page;
  int region;
  TextSource source;
  float size;
  bool bold;
  int numbered;  // the level its numbering gives (depth + 1), 0 unnumbered
  bool open;     // on a page the pass may change
};

// A region's type size: the median of its lines' sizes (a text layer's font size, an OCR line's
// measured size), or of their heights where no style says (0 without lines).
float region_size(const DocumentResult& page, const Region& r) {
  const bool styled = page.styles.size() == page.ocr.lines.size();
  std::vector<float> sizes;
  for (int i : r.lines) {
    if (i < 0 || static_cast<std::size_t>(i) >= page.ocr.lines.size()) continue;
    float s = styled ? page.styles[static_cast<std::size_t>(i)].size : 0.f;
    if (!(s > 0.f) || !std::isfinite(s)) s = geo::height(line_box(page, i));
    sizes.push_back(s);
  }
  return geo::median(sizes);
}

// The body region a region of type size `size` would continue: walking back from body[end - 1],
// the first region that is not an aside, an aside being set in smaller type (under
// 1 - level_size of `size`: footnotes, a margin's stamp) or a figure; at most kMaxAsides of
// them. -1 when there is none.
constexpr int kMaxAsides = 3;
int predecessor(const DocumentResult& page, const std::vector<int>& body, std::size_t end,
                float size, const DocumentRules& R) {
  int asides = 0;
  for (std::size_t j = end; j > 0; --j) {
    const int k = body[j - 1];
    const Region& r = page.regions[static_cast<std::size_t>(k)];
    const bool figure = r.type == RegionType::kFigure || r.type == RegionType::kFigureCaption;
    const float s = region_size(page, r);
    const bool aside = figure || (size > 0.f && s > 0.f && s < (1.f - R.level_size) * size);
    if (!aside) return k;
    if (++asides > kMaxAsides) return -1;
  }
  return -1;
}

void link(Region& b, int a, bool previous_page, const char* how) {
  b.continues = true;
  b.joined = how;
  b.continues_region = a;
  b.from_previous_page = previous_page;
}

}  // namespace

std::string region_text(const DocumentResult& page, const Region& r, std::size_t max_bytes) {
  std::string t;
  for (int i : r.lines) {
    const std::string* s = line_text(page, i);
    if (!s) continue;
    if (max_bytes > 0 && t.size() + s->size() + 1 > max_bytes) {
      if (t.empty()) t = s->substr(0, max_bytes);
      return t;
    }
    if (!t.empty()) t += ' ';
    t += *s;
  }
  return t;
}

bool paragraph_like(const Region& r) {
  return (r.type == RegionType::kText || r.type == RegionType::kReference) && r.items.empty() &&
         !r.furniture && !r.lines.empty();
}

std::vector<int> body_of(const DocumentResult& page) {
  std::vector<int> out;
  for (std::size_t k = 0; k < page.regions.size(); ++k)
    if (!page.regions[k].furniture) out.push_back(static_cast<int>(k));
  return out;
}

int first_body(const DocumentResult& page, std::vector<int>* cues) {
  if (cues) cues->clear();
  int skipped = 0;
  for (std::size_t k = 0; k < page.regions.size(); ++k) {
    const Region& r = page.regions[k];
    if (r.furniture) continue;
    const bool textual = r.type != RegionType::kTable && r.type != RegionType::kFigure &&
                         r.type != RegionType::kEquation;
    if (textual && skipped < 2 && r.lines.size() <= 2 &&
        continued_cue(region_text(page, r, kMaxKeyBytes))) {
      ++skipped;
      if (cues) cues->push_back(static_cast<int>(k));
      continue;
    }
    return static_cast<int>(k);
  }
  return -1;
}

void running_furniture(std::vector<DocumentResult*>& pages, const DocumentRules& R,
                       std::size_t first) {
  struct Place {
    BoxF box;
    int pages = 0, last_page = -1;
  };
  struct Seen {
    int page, region;
    std::vector<Place>* places;
    std::size_t place;
    bool number;
  };
  std::unordered_map<std::string, std::vector<Place>> places;
  std::vector<Seen> seen;
  for (std::size_t p = 0; p < pages.size(); ++p) {
    if (!usable(pages[p])) continue;
    const DocumentResult& page = *pages[p];
    for (int k : margin_regions(page, R.repeat_band, R.repeat_lines)) {
      const Region& r = page.regions[static_cast<std::size_t>(k)];
      const std::string text = region_text(page, r, kMaxKeyBytes + 1);
      if (text.size() > kMaxKeyBytes) continue;
      const std::string key = repeat_key(text);
      if (key.empty()) continue;
      const BoxF b = normalised(r.box, page);
      const bool top = geo::yc(b) < 0.5f;
      std::vector<Place>& v = places[(top ? "t" : "b") + key];
      std::size_t at = 0;
      while (at < v.size() && !same_place(v[at].box, b, R.repeat_distance)) ++at;
      if (at == v.size()) {
        if (v.size() >= kMaxPlaces) continue;
        v.push_back({b});
      }
      Place& place = v[at];
      if (place.last_page != static_cast<int>(p)) {
        ++place.pages;
        place.last_page = static_cast<int>(p);
      }
      seen.push_back({static_cast<int>(p), k, &v, at, page_number_text(text)});
    }
  }
  // On repeat_pages pages, or on half the pages of a short document; never on one page alone.
  const int half = static_cast<int>((pages.size() + 1) / 2);
  const int need = std::max(2, std::min(R.repeat_pages, half));
  for (const Seen& s : seen) {
    if ((*s.places)[s.place].pages < need || static_cast<std::size_t>(s.page) < first) continue;
    DocumentResult& page = *pages[static_cast<std::size_t>(s.page)];
    Region& r = page.regions[static_cast<std::size_t>(s.region)];
    if (!r.furniture) make_furniture(page, r, s.number);
  }
}

void page_numbers(std::vector<DocumentResult*>& pages, const DocumentRules& R, std::size_t first) {
  struct Number {
    int region, value;
    bool alone;  // the region's text is the page number; else its first or last word
  };
  std::vector<std::vector<Number>> found(pages.size());
  for (std::size_t p = 0; p < pages.size(); ++p) {
    if (!usable(pages[p])) continue;
    const DocumentResult& page = *pages[p];
    for (int k : margin_regions(page, R.page_number_band, R.furniture_lines)) {
      const Region& r = page.regions[static_cast<std::size_t>(k)];
      const std::string text = region_text(page, r, kMaxKeyBytes + 1);
      if (text.size() > kMaxKeyBytes) continue;
      int v = page_number_value(text);
      bool alone = true;
      if (v < 0 && r.lines.size() == 1) {
        v = edge_page_number(text);
        alone = false;
      }
      if (v >= 0) found[p].push_back({k, v, alone});
    }
  }
  const int reach = std::max(1, R.number_pages);
  for (std::size_t p = first; p < pages.size(); ++p) {
    for (const Number& n : found[p]) {
      bool in_sequence = false;
      for (int d = -reach; d <= reach && !in_sequence; ++d) {
        const long q = static_cast<long>(p) + d;
        if (d == 0 || q < 0 || q >= static_cast<long>(pages.size())) continue;
        for (const Number& m : found[static_cast<std::size_t>(q)])
          if (static_cast<long>(m.value) - n.value == d) in_sequence = true;
      }
      if (!in_sequence) continue;
      DocumentResult& page = *pages[p];
      Region& r = page.regions[static_cast<std::size_t>(n.region)];
      if (n.alone || !r.furniture) make_furniture(page, r, n.alone);
    }
  }
}

bool same_columns(const TableStructure& a, float wa, const TableStructure& b, float wb,
                  const DocumentRules& R) {
  if (a.rows <= 0 || b.rows <= 0) return false;
  if (edges_match(row_edges(a, a.rows - 1, wa), row_edges(b, 0, wb), R.column_distance))
    return true;
  return a.cols == b.cols &&
         edges_match(column_edges(a, wa), column_edges(b, wb), R.column_distance);
}

TableStructure appended_table(const TableStructure& a, const TableStructure& b) {
  TableStructure out = a;
  for (TableCell& c : out.cells) c.lines.clear();
  const std::vector<std::string> head_a = row_texts(a, 0), head_b = row_texts(b, 0);
  bool any = false;
  for (const std::string& s : head_b) any = any || !s.empty();
  const int drop = any && head_a == head_b ? 1 : 0;
  out.cols = std::max(a.cols, b.cols);
  out.rows = a.rows + b.rows - drop;
  for (const TableCell& c0 : b.cells) {
    TableCell c = c0;
    c.lines.clear();
    c.header = false;
    if (drop && c.row == 0) {
      if (c.row_span <= 1) continue;
      c.row_span -= 1;  // a cell spanning down from the repeated header row keeps its rest
      c.row = 1;
    }
    c.row += a.rows - drop;
    out.cells.push_back(std::move(c));
  }
  return out;
}

void continued_tables(std::vector<DocumentResult*>& pages, const DocumentRules& R,
                      std::size_t first) {
  for (std::size_t p = first > 0 ? first - 1 : 0; p + 1 < pages.size(); ++p) {
    if (!usable(pages[p]) || !usable(pages[p + 1])) continue;
    const DocumentResult& A = *pages[p];
    DocumentResult& B = *pages[p + 1];
    const int f = first_body(B);
    if (f < 0) continue;
    Region& b = B.regions[static_cast<std::size_t>(f)];
    if (b.type != RegionType::kTable || !b.has_table || b.table.cells.empty()) continue;
    const std::vector<int> body = body_of(A);
    const int k = predecessor(A, body, body.size(), region_size(B, b), R);
    if (k < 0) continue;
    const Region& a = A.regions[static_cast<std::size_t>(k)];
    if (a.type != RegionType::kTable || !a.has_table || a.table.cells.empty()) continue;
    if (!same_columns(a.table, static_cast<float>(A.width), b.table, static_cast<float>(B.width),
                      R))
      continue;
    link(b, k, true, "table");
  }
}

void cut_paragraphs(std::vector<DocumentResult*>& pages, const DocumentRules& R,
                    std::size_t first) {
  for (std::size_t p = first; p < pages.size(); ++p) {
    if (!usable(pages[p])) continue;
    DocumentResult& B = *pages[p];
    // A page break: the previous page's last body region (asides aside) and this page's first.
    if (p > 0 && usable(pages[p - 1])) {
      const DocumentResult& A = *pages[p - 1];
      std::vector<int> cues;
      const int f = first_body(B, &cues);
      if (f >= 0 && cues.empty()) {
        Region& b = B.regions[static_cast<std::size_t>(f)];
        const std::vector<int> body = body_of(A);
        const int k = predecessor(A, body, body.size(), region_size(B, b), R);
        if (k >= 0 && !b.continues) {
          const Region& a = A.regions[static_cast<std::size_t>(k)];
          if (paragraph_like(a) && paragraph_like(b) && goes_on(A, a, B, b, R))
            link(b, k, true, "paragraph");
        }
      }
    }
    // Column breaks: a body text region at the top of a column and the one it follows in
    // reading order (asides aside), left of it (they overlap horizontally by less than
    // column_overlap of the narrower) and ending below its top.
    const std::vector<int> body = body_of(B);
    for (std::size_t j = 1; j < body.size(); ++j) {
      Region& b = B.regions[static_cast<std::size_t>(body[j])];
      if (!paragraph_like(b) || b.continues) continue;
      const int k = predecessor(B, body, j, region_size(B, b), R);
      if (k < 0) continue;
      const Region& a = B.regions[static_cast<std::size_t>(k)];
      if (!paragraph_like(a)) continue;
      const float narrower = std::min(geo::width(a.box), geo::width(b.box));
      const bool next_column = geo::x_overlap(a.box, b.box) < R.column_overlap * narrower &&
                               b.box.x0 > a.box.x0 && b.box.y0 < a.box.y1;
      if (next_column && goes_on(B, a, B, b, R)) link(b, k, false, "paragraph");
    }
  }
}

// One heading scale for the document. Headings are grouped into styles: the same source of text
// (an OCR line's size is not a font's), the same weight, sizes within level_size of each other.
// A heading numbered as headings are ("2.1", "一、") keeps the level its numbering gives (depth
// + 1, as on the page). The styles, largest first (bold before regular at one size), take
// levels in turn: the largest is level 1 only when it is one heading that its page made its
// title (the document's title, once), else 2; a style holding numbered headings takes their
// (most common) level; each other style is one level below the style before it (at most 6).
// So headings that look alike get the same level on every page. Nothing changes in a document
// with headings on fewer than two pages.
void heading_levels(std::vector<DocumentResult*>& pages, const DocumentRules& R,
                    std::size_t first) {
  std::vector<Heading> heads;
  int pages_with = 0;
  for (std::size_t p = 0; p < pages.size(); ++p) {
    DocumentResult* page = pages[p];
    if (!page) continue;
    bool any = false;
    const bool styled = page->styles.size() == page->ocr.lines.size();
    for (std::size_t k = 0; k < page->regions.size(); ++k) {
      const Region& r = page->regions[k];
      if (r.type != RegionType::kTitle || r.heading_level <= 0 || r.furniture || r.lines.empty())
        continue;
      std::vector<float> sizes;
      int bold = 0;
      for (int i : r.lines) {
        if (i < 0 || static_cast<std::size_t>(i) >= page->ocr.lines.size()) continue;
        const std::size_t u = static_cast<std::size_t>(i);
        float s = styled ? page->styles[u].size : 0.f;
        if (!(s > 0.f) || !std::isfinite(s)) s = geo::height(line_box(*page, i));
        sizes.push_back(s);
        if (styled && page->styles[u].bold) ++bold;
      }
      if (sizes.empty()) continue;
      const std::string* opening = line_text(*page, r.lines.front());
      const Numbering n = heading_numbering(opening ? *opening : std::string());
      const TextSource source =
          styled && static_cast<std::size_t>(r.lines.front()) < page->styles.size()
              ? page->styles[static_cast<std::size_t>(r.lines.front())].source
              : r.text_source;
      heads.push_back({page, static_cast<int>(k), source, geo::median(sizes),
                       2 * bold > static_cast<int>(sizes.size()),
                       n.depth > 0 ? std::min(6, n.depth + 1) : 0, p >= first});
      any = true;
    }
    pages_with += any ? 1 : 0;
  }
  if (pages_with < 2) return;
  for (TextSource source : {TextSource::kOcr, TextSource::kPdf}) {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < heads.size(); ++i)
      if (heads[i].source == source) order.push_back(i);
    if (order.empty()) continue;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return heads[a].size != heads[b].size ? heads[a].size > heads[b].size : a < b;
    });
    // Size tiers (each within level_size of its largest), then bold before regular in a tier.
    std::vector<int> tier(heads.size(), 0);
    float top = heads[order[0]].size;
    int t = 0;
    for (std::size_t i : order) {
      if (heads[i].size < (1.f - R.level_size) * top) {
        ++t;
        top = heads[i].size;
      }
      tier[i] = t;
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (tier[a] != tier[b]) return tier[a] < tier[b];
      return heads[a].bold && !heads[b].bold;
    });
    int cursor = 0;  // the level the next unnumbered style takes
    for (std::size_t s = 0; s < order.size();) {
      std::size_t e = s;
      while (e < order.size() && tier[order[e]] == tier[order[s]] &&
             heads[order[e]].bold == heads[order[s]].bold)
        ++e;
      // The style's numbered levels, most common first (the smaller on a tie).
      int counts[7] = {0, 0, 0, 0, 0, 0, 0};
      for (std::size_t i = s; i < e; ++i) ++counts[heads[order[i]].numbered];
      int numbered = 0;
      for (int l = 1; l <= 6; ++l)
        if (counts[l] > counts[numbered] || (numbered == 0 && counts[l] > 0)) numbered = l;
      int level;
      if (numbered > 0) {
        level = numbered;
      } else if (cursor == 0) {
        const Heading& h = heads[order[s]];
        const bool title =
            e - s == 1 && h.page->regions[static_cast<std::size_t>(h.region)].heading_level == 1;
        level = title ? 1 : 2;
      } else {
        level = std::min(6, cursor);
      }
      cursor = std::max(cursor, level + 1);
      for (std::size_t i = s; i < e; ++i) {
        const Heading& h = heads[order[i]];
        if (!h.open) continue;
        h.page->regions[static_cast<std::size_t>(h.region)].heading_level =
            h.numbered > 0 ? h.numbered : level;
      }
      s = e;
    }
  }
}

std::vector<int> restore_order(DocumentResult& page) {
  const std::size_t n = page.regions.size();
  std::vector<int> top, body, bottom;
  for (std::size_t k = 0; k < n; ++k) {
    const Region& r = page.regions[k];
    if (!r.furniture)
      body.push_back(static_cast<int>(k));
    else
      (geo::yc(r.box) < 0.5f * static_cast<float>(page.height) ? top : bottom)
          .push_back(static_cast<int>(k));
  }
  auto by_position = [&](int a, int b) {
    const BoxF &A = page.regions[static_cast<std::size_t>(a)].box,
               &B = page.regions[static_cast<std::size_t>(b)].box;
    if (A.y0 != B.y0) return A.y0 < B.y0;
    return A.x0 != B.x0 ? A.x0 < B.x0 : a < b;
  };
  std::sort(top.begin(), top.end(), by_position);
  std::sort(bottom.begin(), bottom.end(), by_position);
  std::vector<int> order(top);
  order.insert(order.end(), body.begin(), body.end());
  order.insert(order.end(), bottom.begin(), bottom.end());
  bool same = true;
  for (std::size_t k = 0; k < n && same; ++k) same = order[k] == static_cast<int>(k);
  if (same) return {};

  std::vector<int> new_index(n, -1);
  for (std::size_t k = 0; k < n; ++k)
    new_index[static_cast<std::size_t>(order[k])] = static_cast<int>(k);
  std::vector<Region> regions;
  regions.reserve(n);
  for (int k : order) regions.push_back(std::move(page.regions[static_cast<std::size_t>(k)]));
  for (Region& r : regions)
    r.caption_of = r.caption_of >= 0 && static_cast<std::size_t>(r.caption_of) < n
                       ? new_index[static_cast<std::size_t>(r.caption_of)]
                       : -1;
  // The lines in the regions' new order (a line no region holds stays after them).
  const std::size_t m = page.ocr.lines.size();
  std::vector<int> new_line(m, -1);
  std::vector<std::size_t> line_order;
  line_order.reserve(m);
  for (const Region& r : regions)
    for (int i : r.lines)
      if (i >= 0 && static_cast<std::size_t>(i) < m && new_line[static_cast<std::size_t>(i)] < 0) {
        new_line[static_cast<std::size_t>(i)] = static_cast<int>(line_order.size());
        line_order.push_back(static_cast<std::size_t>(i));
      }
  for (std::size_t i = 0; i < m; ++i)
    if (new_line[i] < 0) {
      new_line[i] = static_cast<int>(line_order.size());
      line_order.push_back(i);
    }
  std::vector<OcrLine> lines;
  lines.reserve(m);
  for (std::size_t i : line_order) lines.push_back(std::move(page.ocr.lines[i]));
  page.ocr.lines = std::move(lines);
  if (page.styles.size() == m) {
    std::vector<LineStyle> styles;
    styles.reserve(m);
    for (std::size_t i : line_order) styles.push_back(std::move(page.styles[i]));
    page.styles = std::move(styles);
  }
  auto remap = [&](std::vector<int>& ls) {
    std::vector<int> out;
    out.reserve(ls.size());
    for (int i : ls)
      if (i >= 0 && static_cast<std::size_t>(i) < m)
        out.push_back(new_line[static_cast<std::size_t>(i)]);
    ls = std::move(out);
  };
  for (Region& r : regions) {
    remap(r.lines);
    for (TableCell& c : r.table.cells) remap(c.lines);
  }
  page.regions = std::move(regions);
  return new_index;
}

}  // namespace docpass

// The pass allocates, beside the pages: one text key (at most 256 bytes) and one place record
// per margin candidate (at most 2 x 8 a page), a few numbers per page, one record per heading,
// and a page's region and line orders while it is put back in order.
void finish_document(std::vector<DocumentResult*>& pages, const DocumentRules& rules,
                     std::size_t first) {
  std::vector<std::vector<bool>> was_furniture(pages.size());
  for (std::size_t p = first; p < pages.size(); ++p) {
    if (!pages[p]) continue;
    for (Region& r : pages[p]->regions) {
      was_furniture[p].push_back(r.furniture);
      r.continues = false;  // the pass decides these afresh
      r.joined.clear();
      r.continues_region = -1;
      r.from_previous_page = false;
    }
  }
  docpass::running_furniture(pages, rules, first);
  docpass::page_numbers(pages, rules, first);
  docpass::continued_tables(pages, rules, first);
  docpass::cut_paragraphs(pages, rules, first);
  docpass::heading_levels(pages, rules, first);
  // Pages with new furniture back in order; the links to their regions follow.
  std::vector<std::vector<int>> moved_to(pages.size());
  for (std::size_t p = first; p < pages.size(); ++p) {
    if (!pages[p]) continue;
    bool moved = false;
    for (std::size_t k = 0; k < pages[p]->regions.size(); ++k)
      moved = moved || pages[p]->regions[k].furniture != was_furniture[p][k];
    if (moved) moved_to[p] = docpass::restore_order(*pages[p]);
  }
  for (std::size_t p = first; p < pages.size(); ++p) {
    if (!pages[p]) continue;
    for (Region& r : pages[p]->regions) {
      if (!r.continues || r.continues_region < 0) continue;
      if (r.from_previous_page && p == 0) continue;
      const std::vector<int>& to = moved_to[r.from_previous_page ? p - 1 : p];
      if (static_cast<std::size_t>(r.continues_region) < to.size())
        r.continues_region = to[static_cast<std::size_t>(r.continues_region)];
    }
  }
}

}  // namespace edgeocr
