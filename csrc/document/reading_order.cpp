#include "document/reading_order.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <numeric>

#include "postprocess/order.h"

namespace edgeocr {
namespace {

float width(const BoxF& b) {
  return b.x1 - b.x0;
}
float height(const BoxF& b) {
  return b.y1 - b.y0;
}
float area(const BoxF& b) {
  return std::max(0.f, width(b)) * std::max(0.f, height(b));
}
float xc(const BoxF& b) {
  return 0.5f * (b.x0 + b.x1);
}
float yc(const BoxF& b) {
  return 0.5f * (b.y0 + b.y1);
}
float x_overlap(const BoxF& a, const BoxF& b) {
  return std::min(a.x1, b.x1) - std::max(a.x0, b.x0);
}
float y_overlap(const BoxF& a, const BoxF& b) {
  return std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
}
float inter(const BoxF& a, const BoxF& b) {
  const float w = x_overlap(a, b), h = y_overlap(a, b);
  return w > 0.f && h > 0.f ? w * h : 0.f;
}
BoxF unite(const BoxF& a, const BoxF& b) {
  return {std::min(a.x0, b.x0), std::min(a.y0, b.y0), std::max(a.x1, b.x1), std::max(a.y1, b.y1)};
}
bool finite(const BoxF& b) {
  return std::isfinite(b.x0) && std::isfinite(b.y0) && std::isfinite(b.x1) && std::isfinite(b.y1);
}

bool is_caption(RegionType t) {
  return t == RegionType::kFigureCaption || t == RegionType::kTableCaption;
}
bool is_furniture(RegionType t) {
  return t == RegionType::kHeader || t == RegionType::kFooter || t == RegionType::kPageNumber;
}
// Regions that stand without text of their own.
bool keeps_without_lines(RegionType t) {
  return t == RegionType::kFigure || t == RegionType::kTable || t == RegionType::kEquation;
}
bool is_container(RegionType t) {
  return t == RegionType::kFigure || t == RegionType::kTable;
}

// The caption a line's text opens, by its first word: "Figure 3", "Fig. 3", "Table 2", "Tab. 2",
// "图 3", "表 2" (case-insensitive, roman numerals too); false for any other text.
bool caption_cue(const std::string& text, RegionType* kind) {
  std::size_t i = 0;
  while (i < text.size() && text[i] == ' ') ++i;
  auto starts = [&](const char* w) {
    const std::size_t n = std::char_traits<char>::length(w);
    if (text.size() - i < n) return std::size_t{0};
    for (std::size_t k = 0; k < n; ++k) {
      const unsigned char c = static_cast<unsigned char>(text[i + k]);
      if ((c < 0x80 ? std::tolower(c) : c) != static_cast<unsigned char>(w[k]))
        return std::size_t{0};
    }
    return n;
  };
  static const struct {
    const char* word;
    RegionType kind;
  } kCues[] = {
      {"figure", RegionType::kFigureCaption},     {"fig.", RegionType::kFigureCaption},
      {"fig", RegionType::kFigureCaption},        {"table", RegionType::kTableCaption},
      {"tab.", RegionType::kTableCaption},        {"\xE5\x9B\xBE", RegionType::kFigureCaption},
      {"\xE8\xA1\xA8", RegionType::kTableCaption}};
  for (const auto& c : kCues) {
    const std::size_t n = starts(c.word);
    if (n == 0) continue;
    std::size_t j = i + n;
    while (j < text.size() && text[j] == ' ') ++j;
    if (j >= text.size()) return false;
    // The number: digits ("3", "3.1", "3.") or a roman numeral ("IV").
    std::size_t k = j;
    if (text[k] >= '0' && text[k] <= '9') {
      while (k < text.size() && ((text[k] >= '0' && text[k] <= '9') || text[k] == '.')) ++k;
    } else {
      while (k < text.size() && std::strchr("ivxlcIVXLC", text[k]) != nullptr) ++k;
      if (k < text.size() && text[k] == '.') ++k;
    }
    if (k == j) return false;
    // Then the caption's own punctuation, its end, or a capital (or CJK) word: "Table 2 shows
    // the results" is a sentence, "Table 2 Results" and "Table 2: results" are captions.
    if (k == text.size() || (text[k] != '\0' && std::strchr(".:|-", text[k]) != nullptr) ||
        text[k - 1] == '.') {
      *kind = c.kind;
      return true;
    }
    if (text[k] != ' ') return false;
    while (k < text.size() && text[k] == ' ') ++k;
    const unsigned char w = k < text.size() ? static_cast<unsigned char>(text[k]) : 0;
    if ((w >= 'A' && w <= 'Z') || w >= 0x80) {
      *kind = c.kind;
      return true;
    }
    return false;
  }
  return false;
}

// "(3)", "(12)", "(2.1)", "(4a)": an equation's number.
bool equation_number(const std::string& text) {
  std::size_t i = 0, e = text.size();
  while (i < e && text[i] == ' ') ++i;
  while (e > i && text[e - 1] == ' ') --e;
  if (e - i < 3 || e - i > 8 || text[i] != '(' || text[e - 1] != ')') return false;
  if (text[i + 1] < '0' || text[i + 1] > '9') return false;
  for (std::size_t k = i + 1; k + 1 < e; ++k) {
    const char c = text[k];
    if (!((c >= '0' && c <= '9') || c == '.' || (c >= 'a' && c <= 'z'))) return false;
  }
  return true;
}

// Columns side by side overlap horizontally by less than this share of the narrower.
constexpr float kColumnOverlap = 0.3f;

bool x_related(const BoxF& a, const BoxF& b) {
  return x_overlap(a, b) >= kColumnOverlap * std::min(width(a), width(b));
}

// A page number as printed: digits, maybe a word "page" / "p." before, "- 3 -", "3/12", "iv".
bool looks_like_page_number(const std::string& s) {
  std::string t;
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x80)
      t.push_back(static_cast<char>(std::tolower(u)));
    else
      return false;
  }
  for (const char* prefix : {"page", "p."}) {
    const std::size_t n = std::char_traits<char>::length(prefix);
    if (t.compare(0, n, prefix) == 0) t = t.substr(n);
  }
  int digits = 0, others = 0;
  for (char c : t) {
    if (c >= '0' && c <= '9')
      ++digits;
    else if (c == ' ' || c == '-' || c == '/' || c == '.' || c == '|')
      continue;
    else
      ++others;
  }
  return digits >= 1 && digits <= 4 && others == 0;
}

// The depth of a heading's numbering: "2 Method" 1, "2.1 Data" 2, "2.1.3. Runs" 3; 0 without.
int numbering_depth(const std::string& t) {
  std::size_t i = 0;
  int depth = 0;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
    std::size_t j = i;
    while (j < t.size() && t[j] >= '0' && t[j] <= '9') ++j;
    if (j - i > 3) return 0;  // a year or a figure, not a section number
    ++depth;
    i = j;
    if (i < t.size() && t[i] == '.') ++i;
  }
  return depth > 0 && i < t.size() && t[i] == ' ' ? depth : 0;
}

float median(std::vector<float> v) {
  if (v.empty()) return 0.f;
  const std::size_t m = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + m, v.end());
  return v[m];
}

// Line height of a quad: the mean of its left and right edges.
float line_height(const Quad& q) {
  const float l = std::hypot(q.p[3].x - q.p[0].x, q.p[3].y - q.p[0].y);
  const float r = std::hypot(q.p[2].x - q.p[1].x, q.p[2].y - q.p[1].y);
  const float h = 0.5f * (l + r);
  return std::isfinite(h) ? h : 0.f;
}

// The topological order of the precedence rule over `boxes` (docs in the header, step 5).
std::vector<int> precedence_order(const std::vector<BoxF>& boxes) {
  const int n = static_cast<int>(boxes.size());
  std::vector<std::vector<int>> next(static_cast<std::size_t>(n));
  std::vector<int> indeg(static_cast<std::size_t>(n), 0);
  auto edge = [&](int a, int b) {
    next[static_cast<std::size_t>(a)].push_back(b);
    ++indeg[static_cast<std::size_t>(b)];
  };
  // For the "between" test: the regions by vertical centre.
  std::vector<int> by_y(static_cast<std::size_t>(n));
  std::iota(by_y.begin(), by_y.end(), 0);
  std::sort(by_y.begin(), by_y.end(), [&](int a, int b) {
    return yc(boxes[a]) != yc(boxes[b]) ? yc(boxes[a]) < yc(boxes[b]) : a < b;
  });
  std::vector<int> rank(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) rank[static_cast<std::size_t>(by_y[static_cast<std::size_t>(i)])] = i;
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      const BoxF &A = boxes[static_cast<std::size_t>(a)], &B = boxes[static_cast<std::size_t>(b)];
      if (x_related(A, B)) {
        // One above the other: the higher centre first (ties: the higher top, then the index).
        const bool first = yc(A) != yc(B) ? yc(A) < yc(B) : (A.y0 != B.y0 ? A.y0 < B.y0 : a < b);
        if (first) edge(a, b);
        continue;
      }
      // a left of b, side by side (sharing some height): first unless a region between them (by
      // centre height) overlaps both. Not for a higher b: a title above the columns is not
      // read after the left column's first heading.
      if (!(xc(A) < xc(B)) || y_overlap(A, B) <= 0.f) continue;
      int lo = rank[static_cast<std::size_t>(a)], hi = rank[static_cast<std::size_t>(b)];
      if (lo > hi) std::swap(lo, hi);
      const float ylo = std::min(yc(A), yc(B)), yhi = std::max(yc(A), yc(B));
      bool blocked = false;
      for (int k = lo + 1; k < hi && !blocked; ++k) {
        const int c = by_y[static_cast<std::size_t>(k)];
        const BoxF& C = boxes[static_cast<std::size_t>(c)];
        if (!(yc(C) > ylo && yc(C) < yhi)) continue;
        blocked = x_related(C, A) && x_related(C, B);
      }
      if (!blocked) edge(a, b);
    }
  }
  // Kahn's algorithm. Of the ready regions: one below the last region read, in its column
  // (overlapping it horizontally), the column goes on; else the top-most (then left-most). A
  // cycle (possible with overlapping regions) is broken at its top-most remaining region.
  auto before = [&](int a, int b) {
    const BoxF &A = boxes[static_cast<std::size_t>(a)], &B = boxes[static_cast<std::size_t>(b)];
    if (A.y0 != B.y0) return A.y0 < B.y0;
    if (A.x0 != B.x0) return A.x0 < B.x0;
    return a < b;
  };
  std::vector<int> order;
  order.reserve(static_cast<std::size_t>(n));
  std::vector<char> done(static_cast<std::size_t>(n), 0);
  int last = -1;
  for (int step = 0; step < n; ++step) {
    int pick = -1;
    if (last >= 0) {
      const BoxF& L = boxes[static_cast<std::size_t>(last)];
      for (int i = 0; i < n; ++i) {
        const BoxF& B = boxes[static_cast<std::size_t>(i)];
        if (!done[static_cast<std::size_t>(i)] && indeg[static_cast<std::size_t>(i)] == 0 &&
            x_related(L, B) && yc(B) > yc(L) && (pick < 0 || before(i, pick)))
          pick = i;
      }
    }
    if (pick < 0)
      for (int i = 0; i < n; ++i)
        if (!done[static_cast<std::size_t>(i)] && indeg[static_cast<std::size_t>(i)] == 0 &&
            (pick < 0 || before(i, pick)))
          pick = i;
    if (pick < 0)  // a cycle: its top-most region goes first
      for (int i = 0; i < n; ++i)
        if (!done[static_cast<std::size_t>(i)] && (pick < 0 || before(i, pick))) pick = i;
    done[static_cast<std::size_t>(pick)] = 1;
    order.push_back(pick);
    last = pick;
    for (int j : next[static_cast<std::size_t>(pick)]) --indeg[static_cast<std::size_t>(j)];
  }
  return order;
}

// Many regions: bands top to bottom (reading_order on the boxes: rows, then left to right).
std::vector<int> band_order(const std::vector<BoxF>& boxes) {
  std::vector<Quad> q(boxes.size());
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const BoxF& b = boxes[i];
    q[i].p[0] = {b.x0, b.y0};
    q[i].p[1] = {b.x1, b.y0};
    q[i].p[2] = {b.x1, b.y1};
    q[i].p[3] = {b.x0, b.y1};
  }
  return reading_order(q);
}

}  // namespace

BoxF quad_bounds(const Quad& q) {
  float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
  for (const Point2f& p : q.p) {
    const float x = std::isfinite(p.x) ? p.x : 0.f, y = std::isfinite(p.y) ? p.y : 0.f;
    x0 = std::min(x0, x);
    y0 = std::min(y0, y);
    x1 = std::max(x1, x);
    y1 = std::max(y1, y);
  }
  return {x0, y0, x1, y1};
}

// A text piece of a line (its bounds, or a run of its words between wide gaps) for the
// text-grid rule.
struct GridPiece {
  BoxF b;
  int line = 0;
};

// True when the text holds a word: two letters in a row (ASCII letters, or any non-ASCII
// character: CJK, accented Latin), so a grid of numbers and symbols (a matrix) is no table.
bool has_word(const std::string& t) {
  int run = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(t[i]);
    if (c >= 0x80) {
      if ((c & 0xC0) == 0x80) continue;          // a continuation byte: same character
      if (++run >= 2 || c >= 0xE0) return true;  // a CJK character is a word by itself
    } else if (std::isalpha(c)) {
      if (++run >= 2) return true;
    } else {
      run = 0;
    }
  }
  return false;
}

// Merges x intervals (sorted on return) that overlap or lie closer than `tol`.
void merge_intervals(std::vector<std::pair<float, float>>* iv, float tol) {
  std::sort(iv->begin(), iv->end());
  std::vector<std::pair<float, float>> out;
  for (const auto& v : *iv) {
    if (!out.empty() && v.first <= out.back().second + tol)
      out.back().second = std::max(out.back().second, v.second);
    else
      out.push_back(v);
  }
  *iv = std::move(out);
}

// The text grids among `pcs` (docs in the header, step 2): each run of rows whose pieces break
// into >= kGridCols aligned columns over >= kGridRows consecutive rows, as the set of its lines.
constexpr int kGridCols = 3;
constexpr int kGridRows = 3;
constexpr float kGridRowGap = 2.f;     // x the line height: the most space between two rows
constexpr float kGridColGap = 0.3f;    // x the line height: the narrowest gap between columns
constexpr float kGridCellWidth = 6.f;  // x the line height: the widest median piece
std::vector<std::vector<int>> text_grids(std::vector<GridPiece> pcs, float hmed,
                                         const std::vector<std::string>& texts) {
  std::vector<std::vector<int>> out;
  if (pcs.size() < static_cast<std::size_t>(kGridCols * kGridRows) || !(hmed > 0.f)) return out;
  std::sort(pcs.begin(), pcs.end(), [](const GridPiece& a, const GridPiece& b) {
    return yc(a.b) != yc(b.b) ? yc(a.b) < yc(b.b) : a.b.x0 < b.b.x0;
  });
  // Rows: a piece joins the row whose band it shares half of its (or the row's) height with.
  struct Row {
    BoxF band;
    std::vector<std::pair<float, float>> xs;  // the pieces' x extents, merged
    std::vector<int> lines;
  };
  std::vector<Row> rows;
  for (const GridPiece& pc : pcs) {
    if (rows.empty() ||
        y_overlap(rows.back().band, pc.b) < 0.5f * std::min(height(rows.back().band), height(pc.b)))
      rows.push_back({pc.b, {}, {}});
    Row& r = rows.back();
    r.band = unite(r.band, pc.b);
    r.xs.push_back({pc.b.x0, pc.b.x1});
    r.lines.push_back(pc.line);
  }
  for (Row& r : rows) merge_intervals(&r.xs, 0.f);
  const std::size_t n = rows.size();
  auto columns_of = [&](std::size_t a, std::size_t b) {  // rows [a, b)
    std::vector<std::pair<float, float>> iv;
    for (std::size_t k = a; k < b; ++k) iv.insert(iv.end(), rows[k].xs.begin(), rows[k].xs.end());
    merge_intervals(&iv, kGridColGap * hmed);
    return iv;
  };
  auto close = [&](std::size_t upper, std::size_t lower) {
    return rows[lower].band.y0 - rows[upper].band.y1 <= kGridRowGap * hmed;
  };
  // A row consistent with a grid's columns: each of its pieces within one column.
  auto fits = [&](std::size_t k, const std::vector<std::pair<float, float>>& cols) {
    if (rows[k].xs.size() < 2) return false;
    for (const auto& x : rows[k].xs) {
      int hit = 0;
      for (const auto& c : cols)
        if (x.first < c.second && x.second > c.first) ++hit;
      if (hit != 1) return false;
    }
    return true;
  };
  std::size_t i = 0, floor = 0;  // rows below `floor` belong to an earlier grid
  while (i < n) {
    if (rows[i].xs.size() < static_cast<std::size_t>(kGridCols)) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    std::vector<std::pair<float, float>> cols = columns_of(i, j);
    while (j < n && rows[j].xs.size() >= static_cast<std::size_t>(kGridCols) && close(j - 1, j)) {
      std::vector<std::pair<float, float>> wider = cols;
      wider.insert(wider.end(), rows[j].xs.begin(), rows[j].xs.end());
      merge_intervals(&wider, kGridColGap * hmed);
      if (wider.size() < static_cast<std::size_t>(kGridCols)) break;
      cols = std::move(wider);
      ++j;
    }
    if (j - i < static_cast<std::size_t>(kGridRows)) {
      i = j;
      continue;
    }
    // Guards: cells, not lines of running text (columns of body text are long lines), and
    // words, not a matrix of numbers.
    std::vector<float> widths;
    std::vector<int> lines;
    for (std::size_t k = i; k < j; ++k) {
      for (const auto& x : rows[k].xs) widths.push_back(x.second - x.first);
      lines.insert(lines.end(), rows[k].lines.begin(), rows[k].lines.end());
    }
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
    int worded = 0;
    for (int l : lines)
      if (static_cast<std::size_t>(l) < texts.size() &&
          has_word(texts[static_cast<std::size_t>(l)]))
        ++worded;
    if (median(widths) > kGridCellWidth * hmed || worded < 2) {
      i = j;
      continue;
    }
    // Rows next to the run whose pieces fall in its columns (a header of spanning cells, a row
    // with empty cells) join it.
    std::size_t a = i, b = j;
    while (a > floor && close(a - 1, a) && fits(a - 1, cols)) --a;
    while (b < n && close(b - 1, b) && fits(b, cols)) ++b;
    for (std::size_t k = a; k < b; ++k)
      lines.insert(lines.end(), rows[k].lines.begin(), rows[k].lines.end());
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
    out.push_back(std::move(lines));
    i = floor = b;
  }
  return out;
}

std::vector<Region> order_regions(const std::vector<Region>& layout, const std::vector<Quad>& lines,
                                  const std::vector<std::string>& texts, int W, int H,
                                  const ReadingOrderParams& p,
                                  const std::vector<std::vector<BoxF>>& line_pieces) {
  const float fw = static_cast<float>(std::max(W, 1)), fh = static_cast<float>(std::max(H, 1));
  auto clipped = [&](const BoxF& b) {
    return BoxF{std::clamp(b.x0, 0.f, fw), std::clamp(b.y0, 0.f, fh), std::clamp(b.x1, 0.f, fw),
                std::clamp(b.y1, 0.f, fh)};
  };
  // 1. Clean-up.
  std::vector<Region> regs;
  regs.reserve(layout.size());
  for (const Region& r0 : layout) {
    if (!finite(r0.box)) continue;
    Region r = r0;
    r.lines.clear();
    r.box = {std::clamp(std::min(r0.box.x0, r0.box.x1), 0.f, fw),
             std::clamp(std::min(r0.box.y0, r0.box.y1), 0.f, fh),
             std::clamp(std::max(r0.box.x0, r0.box.x1), 0.f, fw),
             std::clamp(std::max(r0.box.y0, r0.box.y1), 0.f, fh)};
    if (!(width(r.box) >= 1.f && height(r.box) >= 1.f)) continue;
    if (!std::isfinite(r.score)) r.score = 0.f;
    regs.push_back(std::move(r));
  }
  std::stable_sort(regs.begin(), regs.end(),
                   [](const Region& a, const Region& b) { return a.score > b.score; });
  {
    std::vector<Region> kept;
    kept.reserve(regs.size());
    for (Region& r : regs) {
      bool drop = false;
      for (const Region& k : kept) {
        const float i = inter(r.box, k.box);
        if (i <= 0.f) continue;
        if (i / (area(r.box) + area(k.box) - i) > 0.8f) drop = true;
        // Inside a table or figure, or a larger region of its own type (captions stay).
        else if (!is_caption(r.type) && i >= 0.85f * area(r.box) &&
                 (is_container(k.type) || (k.type == r.type && area(k.box) > area(r.box))))
          drop = true;
        if (drop) break;
      }
      if (!drop) kept.push_back(std::move(r));
    }
    regs = std::move(kept);
  }
  // A better-scoring region inside a container kept after it (lower score) is dropped too.
  {
    std::vector<char> gone(regs.size(), 0);
    for (std::size_t i = 0; i < regs.size(); ++i)
      for (std::size_t j = 0; j < regs.size() && !gone[i]; ++j)
        if (i != j && !gone[j] && is_container(regs[j].type) && !is_container(regs[i].type) &&
            !is_caption(regs[i].type) &&
            inter(regs[i].box, regs[j].box) >= 0.85f * area(regs[i].box))
          gone[i] = 1;
    std::vector<Region> kept;
    for (std::size_t i = 0; i < regs.size(); ++i)
      if (!gone[i]) kept.push_back(std::move(regs[i]));
    regs = std::move(kept);
  }

  // 2. Lines to regions.
  const std::size_t n_lines = lines.size();
  std::vector<BoxF> lb(n_lines);
  std::vector<float> lh(n_lines);
  for (std::size_t i = 0; i < n_lines; ++i) {
    lb[i] = quad_bounds(lines[i]);
    lh[i] = std::max(1.f, std::min(line_height(lines[i]), height(lb[i])));
  }
  std::vector<int> owner(n_lines, -1);
  for (std::size_t i = 0; i < n_lines; ++i) {
    const float a = std::max(area(lb[i]), 1e-3f);
    float best = 0.f;
    for (std::size_t r = 0; r < regs.size(); ++r) {
      const float share = area(lb[i]) > 0.f ? inter(lb[i], regs[r].box) / a : 0.f;
      const bool inside_point = area(lb[i]) <= 0.f && lb[i].x0 >= regs[r].box.x0 &&
                                lb[i].x0 <= regs[r].box.x1 && lb[i].y0 >= regs[r].box.y0 &&
                                lb[i].y0 <= regs[r].box.y1;
      const float s = inside_point ? 1.f : share;
      if (s < p.line_in_region || s < best) continue;
      if (s == best && owner[i] >= 0 && area(regs[r].box) >= area(regs[owner[i]].box)) continue;
      best = s;
      owner[i] = static_cast<int>(r);
    }
  }
  for (std::size_t i = 0; i < n_lines; ++i)
    if (owner[i] >= 0)
      regs[static_cast<std::size_t>(owner[i])].lines.push_back(static_cast<int>(i));
  // Text grids (borderless tables, tables the layout model calls text, equation or figure): the
  // pieces of a set of lines and their median line height.
  auto pieces_of = [&](const std::vector<int>& ls, float* hmed) {
    std::vector<GridPiece> pcs;
    std::vector<float> hs;
    for (int i : ls) {
      const std::size_t u = static_cast<std::size_t>(i);
      hs.push_back(lh[u]);
      bool any = false;
      if (u < line_pieces.size())
        for (const BoxF& b : line_pieces[u])
          if (finite(b) && width(b) > 0.f && height(b) > 0.f) {
            pcs.push_back({b, i});
            any = true;
          }
      if (!any) pcs.push_back({lb[u], i});
    }
    *hmed = median(std::move(hs));
    return pcs;
  };
  auto bounds_of = [&](const std::vector<int>& ls) {
    BoxF b = lb[static_cast<std::size_t>(ls[0])];
    for (int i : ls) b = unite(b, lb[static_cast<std::size_t>(i)]);
    return clipped(b);
  };
  {
    std::vector<Region> split;
    for (Region& r : regs) {
      const bool text = r.type == RegionType::kText;
      if ((!text && r.type != RegionType::kEquation && r.type != RegionType::kFigure) ||
          r.lines.size() < 3)
        continue;
      float hmed = 0.f;
      std::vector<GridPiece> pcs = pieces_of(r.lines, &hmed);
      const std::vector<std::vector<int>> grids = text_grids(std::move(pcs), hmed, texts);
      if (grids.empty()) continue;
      std::size_t in_grid = 0;
      for (const auto& g : grids) in_grid += g.size();
      // An equation or figure is one when most of its lines are a grid's.
      if (!text && 5 * in_grid < 3 * r.lines.size()) continue;
      if (grids.size() == 1 && in_grid == r.lines.size()) {
        r.type = RegionType::kTable;  // its box kept
        continue;
      }
      // A region holding grids and other text: each grid's lines are a table region (boxed by
      // them; an equation's or figure's table keeps its box's sides and, where no text was cut
      // off, its top and bottom), the lines above, between and below them text regions.
      std::vector<char> taken(n_lines, 0);
      std::vector<float> tops;
      const std::size_t first_table = split.size();
      for (const auto& g : grids) {
        Region t = r;
        t.type = RegionType::kTable;
        t.lines = g;
        t.box = bounds_of(g);
        tops.push_back(t.box.y0);
        for (int l : g) taken[static_cast<std::size_t>(l)] = 1;
        split.push_back(std::move(t));
      }
      std::vector<std::vector<int>> rest(grids.size() + 1);
      for (int l : r.lines) {
        if (taken[static_cast<std::size_t>(l)]) continue;
        std::size_t k = 0;
        for (float top : tops)
          if (yc(lb[static_cast<std::size_t>(l)]) > top) ++k;
        rest[k].push_back(l);
      }
      if (!text)
        for (std::size_t g = 0; g < grids.size(); ++g) {
          BoxF& b = split[first_table + g].box;
          b.x0 = std::min(b.x0, r.box.x0), b.x1 = std::max(b.x1, r.box.x1);
          if (rest[g].empty() && g == 0) b.y0 = std::min(b.y0, r.box.y0);
          if (rest[g + 1].empty() && g + 1 == grids.size()) b.y1 = std::max(b.y1, r.box.y1);
        }
      r.lines.clear();  // dropped below when no text is left
      r.type = RegionType::kText;
      bool first = true;
      for (auto& ls : rest) {
        if (ls.empty()) continue;
        Region t = r;
        t.lines = std::move(ls);
        t.box = bounds_of(t.lines);
        if (first) {
          r = std::move(t);
          first = false;
        } else {
          split.push_back(std::move(t));
        }
      }
    }
    for (Region& t : split) regs.push_back(std::move(t));
  }
  // Stray lines: grids among them are tables, the rest grouped top to bottom into text regions
  // of their own.
  {
    std::vector<int> stray;
    for (std::size_t i = 0; i < n_lines; ++i)
      if (owner[i] < 0) stray.push_back(static_cast<int>(i));
    if (stray.size() >= static_cast<std::size_t>(kGridCols * kGridRows)) {
      float hmed = 0.f;
      std::vector<char> taken(n_lines, 0);
      std::vector<GridPiece> pcs = pieces_of(stray, &hmed);
      for (std::vector<int>& g : text_grids(std::move(pcs), hmed, texts)) {
        Region t;
        t.type = RegionType::kTable;
        t.from_layout = false;
        t.box = bounds_of(g);
        for (int l : g) taken[static_cast<std::size_t>(l)] = 1;
        t.lines = std::move(g);
        regs.push_back(std::move(t));
      }
      stray.erase(std::remove_if(stray.begin(), stray.end(),
                                 [&](int l) { return taken[static_cast<std::size_t>(l)] != 0; }),
                  stray.end());
    }
    std::sort(stray.begin(), stray.end(), [&](int a, int b) {
      return lb[a].y0 != lb[b].y0 ? lb[a].y0 < lb[b].y0
                                  : (lb[a].x0 != lb[b].x0 ? lb[a].x0 < lb[b].x0 : a < b);
    });
    struct Group {
      BoxF box;
      BoxF last;
      float h;
      std::vector<int> lines;
    };
    std::vector<Group> groups;
    for (int i : stray) {
      const bool digits = i < static_cast<int>(texts.size()) && looks_like_page_number(texts[i]);
      const bool margin = lb[i].y1 <= 0.1f * fh || lb[i].y0 >= 0.9f * fh;
      if (digits && margin) {
        Region r;
        r.type = RegionType::kPageNumber;
        r.from_layout = false;
        r.box = clipped(lb[i]);
        r.lines = {i};
        regs.push_back(std::move(r));
        continue;
      }
      Group* g = nullptr;
      // The group whose last line sits right above this one, overlapping it horizontally; only
      // the most recent groups are looked at (bounded work on a page of thousands of lines).
      for (std::size_t k = groups.size(); k-- > 0 && groups.size() - k <= 64;) {
        Group& c = groups[k];
        const float gap = lb[i].y0 - c.last.y1;
        if (gap <= 1.5f * std::max(c.h, lh[i]) && gap >= -0.5f * lh[i] &&
            x_overlap(c.box, lb[i]) > 0.f) {
          g = &c;
          break;
        }
      }
      if (!g) {
        groups.push_back({lb[i], lb[i], lh[i], {}});
        g = &groups.back();
      }
      g->box = unite(g->box, lb[i]);
      g->last = lb[i];
      g->h = std::max(g->h, lh[i]);
      g->lines.push_back(i);
    }
    for (Group& g : groups) {
      Region r;
      r.type = RegionType::kText;
      r.from_layout = false;
      r.box = clipped(g.box);
      r.lines = std::move(g.lines);
      regs.push_back(std::move(r));
    }
  }
  // An equation's number: a text region of one line reading "(3)" or "(2.1)" level with an
  // equation and right of it joins it (layout models box the formula without its number).
  for (Region& num : regs) {
    if (num.type != RegionType::kText || num.lines.size() != 1 ||
        static_cast<std::size_t>(num.lines[0]) >= texts.size() ||
        !equation_number(texts[static_cast<std::size_t>(num.lines[0])]))
      continue;
    Region* best = nullptr;
    for (Region& eq : regs) {
      if (eq.type != RegionType::kEquation || eq.box.x1 > num.box.x0 + 0.5f * width(num.box))
        continue;
      if (y_overlap(eq.box, num.box) < 0.5f * std::min(height(eq.box), height(num.box))) continue;
      if (!best || eq.box.x1 > best->box.x1) best = &eq;  // the nearest on the left
    }
    if (!best) continue;
    best->box = unite(best->box, num.box);
    best->lines.push_back(num.lines[0]);
    num.lines.clear();  // dropped below
  }
  {
    std::vector<Region> kept;
    for (Region& r : regs)
      if (!r.lines.empty() || keeps_without_lines(r.type)) kept.push_back(std::move(r));
    regs = std::move(kept);
  }
  // Lines inside each region in their order.
  for (Region& r : regs) {
    if (r.lines.size() < 2) continue;
    std::vector<Quad> q;
    q.reserve(r.lines.size());
    for (int i : r.lines) q.push_back(lines[static_cast<std::size_t>(i)]);
    std::vector<int> ordered;
    ordered.reserve(r.lines.size());
    for (int k : reading_order(q)) ordered.push_back(r.lines[static_cast<std::size_t>(k)]);
    r.lines = std::move(ordered);
  }

  // The body's line height: the median of the text regions' lines (all lines when none).
  std::vector<float> body_h;
  for (const Region& r : regs)
    if (r.type == RegionType::kText)
      for (int i : r.lines) body_h.push_back(lh[static_cast<std::size_t>(i)]);
  if (body_h.empty())
    for (std::size_t i = 0; i < n_lines; ++i) body_h.push_back(lh[i]);
  const float body_line = median(body_h);
  auto region_line = [&](const Region& r) {
    std::vector<float> h;
    for (int i : r.lines) h.push_back(lh[static_cast<std::size_t>(i)]);
    return median(h);
  };

  // 3. Furniture apart. Running headers and footers a layout model reads as text: a text region
  // in the top (bottom) 6% of the page, above (below) every other region by a gap of 1.5 of its
  // lines, its lines no taller than 1.2x the body's.
  for (Region& r : regs) {
    if (r.type != RegionType::kText || r.lines.empty()) continue;
    const float h = region_line(r);
    if (body_line > 0.f && h > 1.2f * body_line) continue;
    const bool at_top = r.box.y1 <= 0.06f * fh, at_bottom = r.box.y0 >= 0.94f * fh;
    if (!at_top && !at_bottom) continue;
    bool apart = true;
    for (const Region& o : regs) {
      if (&o == &r || is_furniture(o.type)) continue;
      apart = apart && (at_top ? o.box.y0 >= r.box.y1 + 1.5f * h : o.box.y1 <= r.box.y0 - 1.5f * h);
    }
    if (apart) r.type = at_top ? RegionType::kHeader : RegionType::kFooter;
  }
  std::vector<int> top, body, bottom;
  for (std::size_t i = 0; i < regs.size(); ++i) {
    regs[i].furniture = is_furniture(regs[i].type);
    if (!regs[i].furniture)
      body.push_back(static_cast<int>(i));
    else
      (yc(regs[i].box) < 0.5f * fh ? top : bottom).push_back(static_cast<int>(i));
  }
  auto by_position = [&](int a, int b) {
    const BoxF &A = regs[a].box, &B = regs[b].box;
    if (A.y0 != B.y0) return A.y0 < B.y0;
    return A.x0 != B.x0 ? A.x0 < B.x0 : a < b;
  };
  std::sort(top.begin(), top.end(), by_position);
  std::sort(bottom.begin(), bottom.end(), by_position);

  // 4. Captions to their figure / table. A text region whose first line opens a caption
  // ("Figure 2.", "Table 1:") is one when a figure or table is within reach (layout models often
  // read captions as text); it stays text otherwise.
  std::vector<bool> cued(regs.size(), false);
  for (int c : body) {
    Region& r = regs[static_cast<std::size_t>(c)];
    RegionType kind;
    if (r.type != RegionType::kText || r.lines.empty() ||
        static_cast<std::size_t>(r.lines[0]) >= texts.size() ||
        !caption_cue(texts[static_cast<std::size_t>(r.lines[0])], &kind))
      continue;
    r.type = kind;
    cued[static_cast<std::size_t>(c)] = true;
  }
  std::vector<int> target(regs.size(), -1);
  for (int c : body) {
    const Region& cap = regs[static_cast<std::size_t>(c)];
    if (!is_caption(cap.type)) continue;
    const RegionType want =
        cap.type == RegionType::kFigureCaption ? RegionType::kFigure : RegionType::kTable;
    for (int pass = 0; pass < 2 && target[static_cast<std::size_t>(c)] < 0; ++pass) {
      float best = INFINITY;
      for (int t : body) {
        const Region& r = regs[static_cast<std::size_t>(t)];
        if (!is_container(r.type) || (pass == 0 && r.type != want)) continue;
        if (x_overlap(cap.box, r.box) < kColumnOverlap * std::min(width(cap.box), width(r.box)))
          continue;
        const float gap = std::max(r.box.y0 - cap.box.y1, cap.box.y0 - r.box.y1);
        const float reach = std::max(3.f * height(cap.box), 0.08f * fh);
        if (gap > reach || gap >= best) continue;
        best = gap;
        target[static_cast<std::size_t>(c)] = t;
      }
    }
  }

  for (int c : body)
    if (cued[static_cast<std::size_t>(c)] && target[static_cast<std::size_t>(c)] < 0)
      regs[static_cast<std::size_t>(c)].type = RegionType::kText;

  // 5. The body's order, over units: a figure or table with its captions is one unit.
  std::vector<int> units;
  std::vector<BoxF> unit_box;
  std::vector<int> unit_of(regs.size(), -1);
  for (int i : body)
    if (target[static_cast<std::size_t>(i)] < 0) {
      unit_of[static_cast<std::size_t>(i)] = static_cast<int>(units.size());
      units.push_back(i);
      unit_box.push_back(regs[static_cast<std::size_t>(i)].box);
    }
  for (int i : body) {
    const int t = target[static_cast<std::size_t>(i)];
    if (t < 0) continue;
    const int u = unit_of[static_cast<std::size_t>(t)];
    unit_box[static_cast<std::size_t>(u)] =
        unite(unit_box[static_cast<std::size_t>(u)], regs[static_cast<std::size_t>(i)].box);
  }
  const std::vector<int> unit_order = static_cast<int>(units.size()) <= p.max_ordered
                                          ? precedence_order(unit_box)
                                          : band_order(unit_box);
  std::vector<int> order(top);
  for (int u : unit_order) {
    const int t = units[static_cast<std::size_t>(u)];
    std::vector<int> above, below;
    for (int i : body)
      if (target[static_cast<std::size_t>(i)] == t)
        (yc(regs[static_cast<std::size_t>(i)].box) < yc(regs[static_cast<std::size_t>(t)].box)
             ? above
             : below)
            .push_back(i);
    std::sort(above.begin(), above.end(), by_position);
    std::sort(below.begin(), below.end(), by_position);
    order.insert(order.end(), above.begin(), above.end());
    order.push_back(t);
    order.insert(order.end(), below.begin(), below.end());
  }
  order.insert(order.end(), bottom.begin(), bottom.end());

  std::vector<int> new_index(regs.size(), -1);
  for (std::size_t k = 0; k < order.size(); ++k)
    new_index[static_cast<std::size_t>(order[k])] = static_cast<int>(k);
  std::vector<Region> out;
  out.reserve(order.size());
  for (int i : order) {
    Region r = std::move(regs[static_cast<std::size_t>(i)]);
    const int t = target[static_cast<std::size_t>(i)];
    r.caption_of = t >= 0 ? new_index[static_cast<std::size_t>(t)] : -1;
    out.push_back(std::move(r));
  }

  // 6. Heading levels: the page's title (1) when its lines are the tallest titles' and >= 1.6x
  // the body's; the other titles 2, or 3 when their lines are under 0.85x those of the tallest
  // of them (a second, smaller heading size).
  std::vector<float> title_h(out.size(), 0.f);
  float tallest = 0.f;
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (out[k].type != RegionType::kTitle || out[k].lines.empty()) continue;
    title_h[k] = region_line(out[k]);
    tallest = std::max(tallest, title_h[k]);
  }
  float section = 0.f;  // the tallest title that is not the page's title
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (out[k].type != RegionType::kTitle) continue;
    const float h = title_h[k];
    if (body_line > 0.f && h >= 1.6f * body_line && h >= 0.9f * tallest) {
      out[k].heading_level = 1;
    } else {
      out[k].heading_level = 2;
      section = std::max(section, h);
    }
  }
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (out[k].heading_level != 2) continue;
    // A numbered heading says its depth ("2 Method": 2, "2.1 Data": 3); else its size does.
    const std::string first =
        out[k].lines.empty() || texts.size() <= static_cast<std::size_t>(out[k].lines[0])
            ? std::string()
            : texts[static_cast<std::size_t>(out[k].lines[0])];
    const int depth = numbering_depth(first);
    if (depth >= 2 || (depth == 0 && title_h[k] < 0.75f * section)) out[k].heading_level = 3;
  }
  return out;
}

}  // namespace edgeocr
