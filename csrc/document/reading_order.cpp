// The reading order of a page, one function per step (reading_order.h lists them).
#include "document/reading_order.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "document/geometry.h"
#include "document/text_cues.h"
#include "postprocess/order.h"

namespace edgeocr {
namespace {

using namespace geo;

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

// Line height of a quad: the mean of its left and right edges.
float quad_height(const Quad& q) {
  const float l = std::hypot(q.p[3].x - q.p[0].x, q.p[3].y - q.p[0].y);
  const float r = std::hypot(q.p[2].x - q.p[1].x, q.p[2].y - q.p[1].y);
  const float h = 0.5f * (l + r);
  return std::isfinite(h) ? h : 0.f;
}

// The working state of one page's ordering.
struct Page {
  const PageLines& in;
  const DocumentRules& R;
  float fw, fh;
  std::size_t n_lines;
  std::vector<BoxF> lb;   // line bounds
  std::vector<float> lh;  // line heights
  std::vector<Region> regs;
  std::vector<int> owner;  // line -> index into regs, -1: a stray

  Page(const PageLines& lines, const DocumentRules& rules, int W, int H)
      : in(lines),
        R(rules),
        fw(static_cast<float>(std::max(W, 1))),
        fh(static_cast<float>(std::max(H, 1))),
        n_lines(lines.boxes.size()) {
    lb.resize(n_lines);
    lh.resize(n_lines);
    for (std::size_t i = 0; i < n_lines; ++i) {
      lb[i] = quad_bounds(lines.boxes[i]);
      lh[i] = std::max(1.f, std::min(quad_height(lines.boxes[i]), height(lb[i])));
    }
  }
  const std::string& text(int i) const {
    static const std::string kEmpty;
    return static_cast<std::size_t>(i) < in.texts.size() ? in.texts[static_cast<std::size_t>(i)]
                                                         : kEmpty;
  }
  BoxF clipped(const BoxF& b) const {
    return {std::clamp(b.x0, 0.f, fw), std::clamp(b.y0, 0.f, fh), std::clamp(b.x1, 0.f, fw),
            std::clamp(b.y1, 0.f, fh)};
  }
  BoxF bounds_of(const std::vector<int>& ls) const {
    BoxF b = lb[static_cast<std::size_t>(ls[0])];
    for (int i : ls) b = unite(b, lb[static_cast<std::size_t>(i)]);
    return clipped(b);
  }
  float line_h(const Region& r) const {
    std::vector<float> h;
    for (int i : r.lines) h.push_back(lh[static_cast<std::size_t>(i)]);
    return median(std::move(h));
  }
  // A line is prose: enough words (CJK: characters) and wide.
  bool prose(int i) const {
    const TextShape s = text_shape(text(i));
    const std::size_t u = static_cast<std::size_t>(i);
    return s.units() >= static_cast<float>(R.prose_words) && width(lb[u]) >= R.prose_width * lh[u];
  }
};

// 1. Clean-up.
void clean_up(Page& pg, const std::vector<Region>& layout) {
  std::vector<Region>& regs = pg.regs;
  regs.reserve(layout.size());
  for (const Region& r0 : layout) {
    if (!finite(r0.box)) continue;
    Region r = r0;
    r.lines.clear();
    r.box = pg.clipped({std::min(r0.box.x0, r0.box.x1), std::min(r0.box.y0, r0.box.y1),
                        std::max(r0.box.x0, r0.box.x1), std::max(r0.box.y0, r0.box.y1)});
    if (!(width(r.box) >= 1.f && height(r.box) >= 1.f)) continue;
    if (!std::isfinite(r.score)) r.score = 0.f;
    regs.push_back(std::move(r));
  }
  std::stable_sort(regs.begin(), regs.end(),
                   [](const Region& a, const Region& b) { return a.score > b.score; });
  std::vector<Region> kept;
  kept.reserve(regs.size());
  for (Region& r : regs) {
    bool drop = false;
    for (const Region& k : kept) {
      const float i = inter(r.box, k.box);
      if (i <= 0.f) continue;
      if (i / (area(r.box) + area(k.box) - i) > pg.R.duplicate_iou) drop = true;
      // Inside a table or figure, or a larger region of its own type (captions stay).
      else if (!is_caption(r.type) && i >= pg.R.inside_share * area(r.box) &&
               (is_container(k.type) || (k.type == r.type && area(k.box) > area(r.box))))
        drop = true;
      if (drop) break;
    }
    if (!drop) kept.push_back(std::move(r));
  }
  // A better-scoring region inside a container kept after it (lower score) is dropped too.
  std::vector<char> gone(kept.size(), 0);
  for (std::size_t i = 0; i < kept.size(); ++i)
    for (std::size_t j = 0; j < kept.size() && !gone[i]; ++j)
      if (i != j && !gone[j] && is_container(kept[j].type) && !is_container(kept[i].type) &&
          !is_caption(kept[i].type) &&
          inter(kept[i].box, kept[j].box) >= pg.R.inside_share * area(kept[i].box))
        gone[i] = 1;
  regs.clear();
  for (std::size_t i = 0; i < kept.size(); ++i)
    if (!gone[i]) regs.push_back(std::move(kept[i]));
}

// 2. Lines to regions.
void assign_lines(Page& pg) {
  pg.owner.assign(pg.n_lines, -1);
  for (std::size_t i = 0; i < pg.n_lines; ++i) {
    const BoxF& b = pg.lb[i];
    float best = 0.f;
    for (std::size_t r = 0; r < pg.regs.size(); ++r) {
      const BoxF& rb = pg.regs[r].box;
      const float s =
          area(b) > 0.f ? share_in(b, rb) : (contains_point(rb, b.x0, b.y0) ? 1.f : 0.f);
      if (s < pg.R.line_in_region || s < best) continue;
      if (s == best && pg.owner[i] >= 0 &&
          area(rb) >= area(pg.regs[static_cast<std::size_t>(pg.owner[i])].box))
        continue;
      best = s;
      pg.owner[i] = static_cast<int>(r);
    }
  }
  for (std::size_t i = 0; i < pg.n_lines; ++i)
    if (pg.owner[i] >= 0)
      pg.regs[static_cast<std::size_t>(pg.owner[i])].lines.push_back(static_cast<int>(i));
}

// 3. Figures that are text, and a "figure" that is the whole page: their lines become strays.
void dissolve_text_figures(Page& pg) {
  const float page_area = pg.fw * pg.fh;
  for (Region& r : pg.regs) {
    if (r.type != RegionType::kFigure || r.lines.empty()) continue;
    int prose = 0;
    for (int i : r.lines) prose += pg.prose(i) ? 1 : 0;
    const bool texty = prose >= pg.R.figure_text_lines &&
                       prose >= pg.R.figure_text_share * static_cast<float>(r.lines.size());
    const bool whole_page = area(r.box) > pg.R.figure_page_share * page_area;
    if (!texty && !whole_page) continue;
    for (int i : r.lines) pg.owner[static_cast<std::size_t>(i)] = -1;
    r.lines.clear();
    // A picture that holds text is still drawn where it was only when it is not the page.
    r.type = whole_page ? RegionType::kText : r.type;
    if (texty) r.type = RegionType::kText;  // dropped below: it has no lines left
  }
}

std::vector<GridPiece> pieces_of(const Page& pg, const std::vector<int>& ls, float* hmed) {
  std::vector<GridPiece> pcs;
  std::vector<float> hs;
  auto words_of = [](const std::string& t) {
    const TextShape s = text_shape(t);
    return s.words + (s.cjk + 1) / 2;
  };
  for (int i : ls) {
    const std::size_t u = static_cast<std::size_t>(i);
    hs.push_back(pg.lh[u]);
    bool any = false;
    if (u < pg.in.pieces.size())
      for (const LinePiece& p : pg.in.pieces[u])
        if (finite(p.box) && width(p.box) > 0.f && height(p.box) > 0.f) {
          pcs.push_back({p.box, i, words_of(p.text)});
          any = true;
        }
    if (!any) pcs.push_back({pg.lb[u], i, words_of(pg.text(i))});
  }
  *hmed = median(std::move(hs));
  return pcs;
}

// 4. Text grids in text, equation and figure regions become tables.
void find_grids(Page& pg) {
  std::vector<Region> split;
  for (Region& r : pg.regs) {
    const bool text = r.type == RegionType::kText;
    if ((!text && r.type != RegionType::kEquation && r.type != RegionType::kFigure) ||
        r.lines.size() < 3)
      continue;
    float hmed = 0.f;
    std::vector<GridPiece> pcs = pieces_of(pg, r.lines, &hmed);  // sets hmed
    const std::vector<std::vector<int>> grids = text_grids(std::move(pcs), hmed, pg.in.texts, pg.R);
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
    std::vector<char> taken(pg.n_lines, 0);
    std::vector<float> tops;
    const std::size_t first_table = split.size();
    for (const auto& g : grids) {
      Region t = r;
      t.type = RegionType::kTable;
      t.lines = g;
      t.box = pg.bounds_of(g);
      tops.push_back(t.box.y0);
      for (int l : g) taken[static_cast<std::size_t>(l)] = 1;
      split.push_back(std::move(t));
    }
    std::vector<std::vector<int>> rest(grids.size() + 1);
    for (int l : r.lines) {
      if (taken[static_cast<std::size_t>(l)]) continue;
      std::size_t k = 0;
      for (float top : tops)
        if (yc(pg.lb[static_cast<std::size_t>(l)]) > top) ++k;
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
      t.box = pg.bounds_of(t.lines);
      if (first) {
        r = std::move(t);
        first = false;
      } else {
        split.push_back(std::move(t));
      }
    }
  }
  for (Region& t : split) pg.regs.push_back(std::move(t));
  // Owners follow the regions (the lines of a split region moved).
  pg.owner.assign(pg.n_lines, -1);
  for (std::size_t r = 0; r < pg.regs.size(); ++r)
    for (int i : pg.regs[r].lines) pg.owner[static_cast<std::size_t>(i)] = static_cast<int>(r);
}

// 4b. Tables whose columns the layout boxed one by one: text regions side by side, each narrow
// (under prose_width line heights wide) or of no prose line, whose lines line up row by row
// across >= grid_cols of them are one table.
void find_split_grids(Page& pg) {
  std::vector<int> cand;
  for (std::size_t i = 0; i < pg.regs.size(); ++i) {
    const Region& r = pg.regs[i];
    if (r.type != RegionType::kText || r.lines.size() < 2) continue;
    const bool narrow = width(r.box) < pg.R.prose_width * pg.line_h(r);
    if (narrow || std::none_of(r.lines.begin(), r.lines.end(), [&](int l) { return pg.prose(l); }))
      cand.push_back(static_cast<int>(i));
  }
  if (cand.size() < static_cast<std::size_t>(pg.R.grid_cols) || cand.size() > 512) return;
  std::vector<int> parent(cand.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto root = [&](int i) {
    while (parent[static_cast<std::size_t>(i)] != i)
      i = parent[static_cast<std::size_t>(i)] =
          parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(i)])];
    return i;
  };
  for (std::size_t a = 0; a < cand.size(); ++a)
    for (std::size_t b = a + 1; b < cand.size(); ++b) {
      const BoxF& A = pg.regs[static_cast<std::size_t>(cand[a])].box;
      const BoxF& B = pg.regs[static_cast<std::size_t>(cand[b])].box;
      if (x_overlap(A, B) <= 0.f && y_overlap(A, B) >= 0.5f * std::min(height(A), height(B)))
        parent[static_cast<std::size_t>(root(static_cast<int>(a)))] = root(static_cast<int>(b));
    }
  for (std::size_t g0 = 0; g0 < cand.size(); ++g0) {
    if (root(static_cast<int>(g0)) != static_cast<int>(g0)) continue;
    std::vector<int> members, lines;
    for (std::size_t k = 0; k < cand.size(); ++k)
      if (root(static_cast<int>(k)) == static_cast<int>(g0)) members.push_back(cand[k]);
    if (members.size() < static_cast<std::size_t>(pg.R.grid_cols)) continue;
    for (int m : members) {
      const auto& ls = pg.regs[static_cast<std::size_t>(m)].lines;
      lines.insert(lines.end(), ls.begin(), ls.end());
    }
    float hmed = 0.f;
    std::vector<GridPiece> pcs = pieces_of(pg, lines, &hmed);  // sets hmed
    for (std::vector<int>& g : text_grids(std::move(pcs), hmed, pg.in.texts, pg.R)) {
      std::vector<int> from;
      for (int l : g) {
        const int o = pg.owner[static_cast<std::size_t>(l)];
        if (std::find(from.begin(), from.end(), o) == from.end()) from.push_back(o);
      }
      if (from.size() < static_cast<std::size_t>(pg.R.grid_cols)) continue;
      Region t;
      t.type = RegionType::kTable;
      t.label = pg.regs[static_cast<std::size_t>(from[0])].label;
      t.score = pg.regs[static_cast<std::size_t>(from[0])].score;
      t.box = pg.bounds_of(g);
      std::vector<char> in_grid(pg.n_lines, 0);
      for (int l : g) in_grid[static_cast<std::size_t>(l)] = 1;
      for (int o : from) {
        auto& ls = pg.regs[static_cast<std::size_t>(o)].lines;
        ls.erase(std::remove_if(ls.begin(), ls.end(),
                                [&](int l) { return in_grid[static_cast<std::size_t>(l)] != 0; }),
                 ls.end());
      }
      t.lines = std::move(g);
      pg.regs.push_back(std::move(t));
    }
  }
  pg.owner.assign(pg.n_lines, -1);
  for (std::size_t r = 0; r < pg.regs.size(); ++r)
    for (int i : pg.regs[r].lines) pg.owner[static_cast<std::size_t>(i)] = static_cast<int>(r);
}

// 5. Stray lines: grids among them are tables, the rest grouped top to bottom into text regions
// of their own; a page number's text in the page's margins is a page number.
void group_strays(Page& pg) {
  std::vector<int> stray;
  for (std::size_t i = 0; i < pg.n_lines; ++i)
    if (pg.owner[i] < 0) stray.push_back(static_cast<int>(i));
  const DocumentRules& R = pg.R;
  if (stray.size() >= static_cast<std::size_t>(R.grid_cols * R.grid_rows)) {
    float hmed = 0.f;
    std::vector<char> taken(pg.n_lines, 0);
    std::vector<GridPiece> pcs = pieces_of(pg, stray, &hmed);  // sets hmed
    for (std::vector<int>& g : text_grids(std::move(pcs), hmed, pg.in.texts, R)) {
      Region t;
      t.type = RegionType::kTable;
      t.from_layout = false;
      t.box = pg.bounds_of(g);
      for (int l : g) taken[static_cast<std::size_t>(l)] = 1;
      t.lines = std::move(g);
      pg.regs.push_back(std::move(t));
    }
    stray.erase(std::remove_if(stray.begin(), stray.end(),
                               [&](int l) { return taken[static_cast<std::size_t>(l)] != 0; }),
                stray.end());
  }
  const auto& lb = pg.lb;
  const auto& lh = pg.lh;
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
    const bool margin =
        lb[i].y1 <= R.page_number_band * pg.fh || lb[i].y0 >= (1.f - R.page_number_band) * pg.fh;
    if (margin && page_number_text(pg.text(i))) {
      Region r;
      r.type = RegionType::kPageNumber;
      r.from_layout = false;
      r.box = pg.clipped(lb[i]);
      r.lines = {i};
      pg.regs.push_back(std::move(r));
      continue;
    }
    Group* g = nullptr;
    // The group whose last line sits right above this one, overlapping it horizontally; only
    // the most recent groups are looked at (bounded work on a page of thousands of lines).
    for (std::size_t k = groups.size(); k-- > 0 && groups.size() - k <= 64;) {
      Group& c = groups[k];
      const float gap = lb[i].y0 - c.last.y1;
      const float sa = line_size(pg.in, c.lines.back()), sb = line_size(pg.in, i);
      const bool across = width(lb[i]) > height(lb[i]);  // text running up a margin: any size
      const bool same_type = !across || std::fabs(sa - sb) <= R.level_size * std::max(sa, sb);
      if (gap <= R.stray_gap * std::max(c.h, lh[i]) && gap >= -0.5f * lh[i] &&
          x_overlap(c.box, lb[i]) > 0.f && same_type) {
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
    r.box = pg.clipped(g.box);
    r.lines = std::move(g.lines);
    pg.regs.push_back(std::move(r));
  }
}

// An equation's number: a text region of one line reading "(3)" or "(2.1)" level with an
// equation and right of it joins it (layout models box the formula without its number).
void join_equation_numbers(Page& pg) {
  // A formula the layout called a title or text (one line, "F1 = 2PR / (P + R)": an '=' among
  // symbols, no word of 4 letters, perhaps with its number) is an equation when it is a title or
  // its number sits beside it.
  auto formula = [&](const Region& r) {
    if (r.lines.empty() || r.lines.size() > 2) return false;
    int formulas = 0;
    for (int l : r.lines) {
      const std::string& t = pg.text(l);
      const TextShape sh = text_shape(t);
      // Symbols, not words: no run of 4 letters ("where", "rate").
      int run = 0, longest = 0;
      for (char c : t) {
        run = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) ? run + 1 : 0;
        longest = std::max(longest, run);
      }
      if (t.find('=') != std::string::npos && sh.units() <= 16.f && longest <= 3 &&
          !sh.ends_sentence && sh.cjk == 0)
        ++formulas;
      else if (!equation_number(t))
        return false;  // a line that is neither the formula nor its number
    }
    return formulas == 1;
  };
  for (Region& r : pg.regs) {
    if ((r.type != RegionType::kTitle && r.type != RegionType::kText) || !formula(r)) continue;
    bool numbered = false;
    for (const Region& num : pg.regs)
      numbered = numbered || (&num != &r && num.lines.size() == 1 && num.box.x0 >= r.box.x1 - 2.f &&
                              same_row(r.box, num.box) && equation_number(pg.text(num.lines[0])));
    if (r.type == RegionType::kTitle || numbered) r.type = RegionType::kEquation;
  }
  for (Region& num : pg.regs) {
    if (num.type != RegionType::kText || num.lines.size() != 1 ||
        !equation_number(pg.text(num.lines[0])))
      continue;
    Region* best = nullptr;
    for (Region& eq : pg.regs) {
      if (eq.type != RegionType::kEquation || eq.box.x1 > num.box.x0 + 0.5f * width(num.box))
        continue;
      if (!same_row(eq.box, num.box)) continue;
      if (!best || eq.box.x1 > best->box.x1) best = &eq;  // the nearest on the left
    }
    if (!best) continue;
    best->box = unite(best->box, num.box);
    best->lines.push_back(num.lines[0]);
    num.lines.clear();  // dropped below
  }
}

// Regions left without lines are dropped (figures, tables and equations stay); each region's
// lines in their reading order.
void drop_empty_and_order_lines(Page& pg) {
  std::vector<Region> kept;
  for (Region& r : pg.regs)
    if (!r.lines.empty() || keeps_without_lines(r.type)) kept.push_back(std::move(r));
  pg.regs = std::move(kept);
  for (Region& r : pg.regs) {
    if (r.lines.size() < 2) continue;
    std::vector<Quad> q;
    q.reserve(r.lines.size());
    for (int i : r.lines) q.push_back(pg.in.boxes[static_cast<std::size_t>(i)]);
    std::vector<int> ordered;
    ordered.reserve(r.lines.size());
    for (int k : reading_order(q)) ordered.push_back(r.lines[static_cast<std::size_t>(k)]);
    r.lines = std::move(ordered);
  }
}

// The body's text size: the median size of the text regions' lines (all lines when none).
float body_size(const Page& pg) {
  std::vector<float> s;
  for (const Region& r : pg.regs)
    if (r.type == RegionType::kText)
      for (int i : r.lines) s.push_back(line_size(pg.in, i));
  if (s.empty())
    for (std::size_t i = 0; i < pg.n_lines; ++i) s.push_back(line_size(pg.in, static_cast<int>(i)));
  return median(std::move(s));
}

float region_size(const Page& pg, const Region& r) {
  std::vector<float> s;
  for (int i : r.lines) s.push_back(line_size(pg.in, i));
  return median(std::move(s));
}

// 6. Headings split off: a title region whose lines change type size (by more than
// level_size) or case is one heading per run; a text region's lines that are headings of their
// own (the heading rule, short and ending early, after a paragraph's end) are split off as
// titles, the text around them regions of their own.
void split_headings(Page& pg, float body) {
  std::vector<Region> added;
  for (Region& r : pg.regs) {
    if (r.lines.size() < 2) continue;
    if (r.type == RegionType::kTitle) {
      std::vector<std::vector<int>> runs{{r.lines[0]}};
      for (std::size_t k = 1; k < r.lines.size(); ++k) {
        const int a = r.lines[k - 1], b = r.lines[k];
        const float sa = line_size(pg.in, a), sb = line_size(pg.in, b);
        const bool size_change = std::fabs(sa - sb) > pg.R.level_size * std::max(sa, sb);
        const bool case_change = text_shape(pg.text(a)).all_caps != text_shape(pg.text(b)).all_caps;
        if (size_change || case_change)
          runs.push_back({b});
        else
          runs.back().push_back(b);
      }
      if (runs.size() < 2) continue;
      r.lines = runs[0];
      r.box = pg.bounds_of(r.lines);
      for (std::size_t k = 1; k < runs.size(); ++k) {
        Region t = r;
        t.lines = runs[k];
        t.box = pg.bounds_of(t.lines);
        added.push_back(std::move(t));
      }
      continue;
    }
    if (r.type != RegionType::kText) continue;
    const float region_w = width(r.box);
    const std::size_t n = r.lines.size();
    auto bold_at = [&](std::size_t k) {
      const std::size_t v = static_cast<std::size_t>(r.lines[k]);
      return v < pg.in.styles.size() && pg.in.styles[v].bold;
    };
    auto cjk_scheme = [](const Numbering& num) {
      return num.scheme == Numbering::kCjk || num.scheme == Numbering::kCjkParen ||
             num.scheme == Numbering::kChapter || num.scheme == Numbering::kSection;
    };
    // A label run into what follows ("Note:", "回复："): its text ends in a colon.
    auto ends_colon = [&](int l) {
      std::string t = pg.text(l);
      while (!t.empty() && t.back() == ' ') t.pop_back();
      return (!t.empty() && t.back() == ':') ||
             (t.size() >= 3 && t.compare(t.size() - 3, 3, "\xEF\xBC\x9A") == 0);
    };
    // Line k of the region stands out as a heading of its own: short and ending early (a
    // heading run into its paragraph's box leaves the rest of its line empty), set in bold or
    // larger type than the region's other lines, or opening with a CJK outline number ("一、",
    // "（一）", "1、"), and a heading by the heading rule. A line inside the region must also
    // follow a paragraph's end (the line before it ends early or ends a sentence) and, when
    // numbered, not open a run of lines numbered alike (a list's items).
    std::vector<float> sizes;
    std::size_t bolds = 0;
    for (std::size_t m = 0; m < n; ++m) {
      sizes.push_back(line_size(pg.in, r.lines[m]));
      bolds += bold_at(m) ? 1 : 0;
    }
    std::sort(sizes.begin(), sizes.end());
    auto heading_at = [&](std::size_t k) {
      const int l = r.lines[k];
      if (!(width(pg.lb[static_cast<std::size_t>(l)]) < 0.7f * region_w)) return false;
      // The other lines' median size (median's pick of the sizes without line k's) and
      // whether they are all bold, from the region's sorted sizes: O(log n) per line.
      const float own = line_size(pg.in, l);
      const std::size_t at = static_cast<std::size_t>(
          std::lower_bound(sizes.begin(), sizes.end(), own) - sizes.begin());
      const std::size_t mid = (n - 1) / 2;
      const float rest_size = mid < at ? sizes[mid] : sizes[std::min(mid + 1, n - 1)];
      const bool rest_bold = bolds - (bold_at(k) ? 1 : 0) == n - 1;
      const bool larger = rest_size > 0.f && own >= heading_step(pg.in, l, pg.R) * rest_size;
      const Numbering num = heading_numbering(pg.text(l));
      if (!((bold_at(k) && !rest_bold) || larger || cjk_scheme(num))) return false;
      if (k > 0) {
        if (!cjk_scheme(num) && ends_colon(l)) return false;
        const int prev = r.lines[k - 1];
        const bool ended = width(pg.lb[static_cast<std::size_t>(prev)]) < 0.85f * region_w ||
                           text_shape(pg.text(prev)).ends_sentence;
        if (!ended || k + 1 >= n) return false;
      }
      if (num.scheme != Numbering::kNone && k + 1 < n &&
          heading_numbering(pg.text(r.lines[k + 1])).scheme == num.scheme)
        return false;
      return heading_like({l}, pg.in, body, false, pg.R);
    };
    std::vector<std::vector<int>> parts;
    std::vector<char> head;
    for (std::size_t k = 0; k < n; ++k) {
      if (heading_at(k)) {
        parts.push_back({r.lines[k]});
        head.push_back(1);
      } else {
        if (parts.empty() || head.back()) parts.emplace_back(), head.push_back(0);
        parts.back().push_back(r.lines[k]);
      }
    }
    if (parts.size() < 2) continue;
    const Region base = r;
    for (std::size_t k = 0; k < parts.size(); ++k) {
      Region t = base;
      t.type = head[k] ? RegionType::kTitle : RegionType::kText;
      t.lines = parts[k];
      t.box = pg.bounds_of(t.lines);
      if (k == 0)
        r = std::move(t);
      else
        added.push_back(std::move(t));
    }
  }
  for (Region& t : added) pg.regs.push_back(std::move(t));
}

// 7. Furniture apart: the layout's headers, footers and page numbers (unless their type is a
// title's size, or they sit far from the page's edge), and running headers and footers a layout
// model reads as text.
void mark_furniture(Page& pg, float body) {
  const DocumentRules& R = pg.R;
  for (Region& r : pg.regs) {
    if (r.lines.empty()) continue;
    const float h = pg.line_h(r);
    const float size = region_size(pg, r);
    // Inside the band, within half a line (a footer whose box reaches just past the band).
    const bool top = r.box.y1 <= R.furniture_band * pg.fh + 0.5f * h;
    const bool bottom = r.box.y0 >= (1.f - R.furniture_band) * pg.fh - 0.5f * h;
    if (is_furniture(r.type)) {
      const bool edge = r.box.y0 <= 0.15f * pg.fh || r.box.y1 >= 0.85f * pg.fh;
      if (!edge || (body > 0.f && size >= R.title_size * body))
        r.type = body > 0.f && size >= heading_step(pg.in, r.lines[0], R) * body
                     ? RegionType::kTitle
                     : RegionType::kText;
      continue;
    }
    if (r.type != RegionType::kText && r.type != RegionType::kReference) continue;
    const bool in_margin =
        r.box.y1 <= R.page_number_band * pg.fh || r.box.y0 >= (1.f - R.page_number_band) * pg.fh;
    if (in_margin && r.lines.size() == 1 && page_number_text(pg.text(r.lines[0]))) {
      r.type = RegionType::kPageNumber;
      continue;
    }
    if (!top && !bottom) continue;
    if (body > 0.f && size > R.furniture_height * body) continue;
    if (r.lines.size() > static_cast<std::size_t>(R.furniture_lines)) continue;
    // Apart from the body: every other region (but others in the same band, text running up a
    // margin, and lines without a word) lies beyond a gap; or, where the body comes close, the
    // region is the page's outermost and its line carries the page's number ("206 Law Enforcement",
    // "Methodology 9").
    const float band_edge = top ? R.furniture_band * pg.fh : (1.f - R.furniture_band) * pg.fh;
    bool apart = true, outermost = true;
    for (const Region& o : pg.regs) {
      if (&o == &r || is_furniture(o.type) || o.lines.empty()) continue;
      if (top ? o.box.y1 <= band_edge : o.box.y0 >= band_edge) continue;
      if (height(o.box) > 3.f * width(o.box) && width(o.box) < 0.05f * pg.fw) continue;
      // A rule typed as text ("______", "-----") under a running header is no body.
      if (std::none_of(o.lines.begin(), o.lines.end(), [&](int l) { return has_word(pg.text(l)); }))
        continue;
      apart = apart && (top ? o.box.y0 >= r.box.y1 + R.furniture_gap * h
                            : o.box.y1 <= r.box.y0 - R.furniture_gap * h);
      outermost =
          outermost && (top ? o.box.y0 >= r.box.y1 - 0.25f * h : o.box.y1 <= r.box.y0 + 0.25f * h);
    }
    const std::string& edge_line = pg.text(r.lines[top ? 0 : r.lines.size() - 1]);
    if (apart || (outermost && numbered_at_end(edge_line)))
      r.type = top ? RegionType::kHeader : RegionType::kFooter;
  }
  for (Region& r : pg.regs) r.furniture = is_furniture(r.type);
}

// 8. Captions: a text region whose first line opens a caption is one when a figure or table is
// within reach; each caption goes with the nearest figure (table) above or below it.
std::vector<int> attach_captions(Page& pg, const std::vector<int>& body) {
  std::vector<Region>& regs = pg.regs;
  std::vector<bool> cued(regs.size(), false);
  for (int c : body) {
    Region& r = regs[static_cast<std::size_t>(c)];
    RegionType kind;
    if ((r.type != RegionType::kText && r.type != RegionType::kTitle) || r.lines.empty() ||
        !caption_cue(pg.text(r.lines[0]), &kind))
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
        if (x_overlap(cap.box, r.box) <
            pg.R.column_overlap * std::min(width(cap.box), width(r.box)))
          continue;
        const float gap = std::max(r.box.y0 - cap.box.y1, cap.box.y0 - r.box.y1);
        const float reach =
            std::max(pg.R.caption_reach * height(cap.box), pg.R.caption_page * pg.fh);
        if (gap > reach || gap >= best) continue;
        best = gap;
        target[static_cast<std::size_t>(c)] = t;
      }
    }
  }
  // A caption with nothing to caption is text: cued by its words, or the layout's when its text
  // opens no caption ("II. BASICS ..." boxed as a caption is a heading, the heading rule says).
  for (int c : body) {
    Region& r = regs[static_cast<std::size_t>(c)];
    if (!is_caption(r.type) || target[static_cast<std::size_t>(c)] >= 0) continue;
    RegionType kind;
    if (cued[static_cast<std::size_t>(c)] || r.lines.empty() ||
        !caption_cue(pg.text(r.lines[0]), &kind))
      r.type = RegionType::kText;
  }
  return target;
}

// 9. The topological order of the precedence rule over `boxes` (docs in the header).
std::vector<int> precedence_order(const std::vector<BoxF>& boxes, float column_overlap) {
  const int n = static_cast<int>(boxes.size());
  auto x_related = [&](const BoxF& a, const BoxF& b) {
    return x_overlap(a, b) >= column_overlap * std::min(width(a), width(b));
  };
  std::vector<std::vector<int>> next(static_cast<std::size_t>(n));
  std::vector<int> indeg(static_cast<std::size_t>(n), 0);
  auto edge = [&](int a, int b) {
    next[static_cast<std::size_t>(a)].push_back(b);
    ++indeg[static_cast<std::size_t>(b)];
  };
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
        const bool first = yc(A) != yc(B) ? yc(A) < yc(B) : (A.y0 != B.y0 ? A.y0 < B.y0 : a < b);
        if (first) edge(a, b);
        continue;
      }
      // a left of b, side by side (sharing some height): first unless a region between them (by
      // centre height) overlaps both.
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

// 9. The page's order: top furniture, the body by units (a figure or table with its captions),
// bottom furniture. Returns the regions in order with caption_of set.
std::vector<Region> order_page(Page& pg) {
  std::vector<Region>& regs = pg.regs;
  std::vector<int> top, body, bottom;
  for (std::size_t i = 0; i < regs.size(); ++i) {
    if (!regs[i].furniture)
      body.push_back(static_cast<int>(i));
    else
      (yc(regs[i].box) < 0.5f * pg.fh ? top : bottom).push_back(static_cast<int>(i));
  }
  auto by_position = [&](int a, int b) {
    const BoxF &A = regs[a].box, &B = regs[b].box;
    if (A.y0 != B.y0) return A.y0 < B.y0;
    return A.x0 != B.x0 ? A.x0 < B.x0 : a < b;
  };
  std::sort(top.begin(), top.end(), by_position);
  std::sort(bottom.begin(), bottom.end(), by_position);
  const std::vector<int> target = attach_captions(pg, body);

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
  const std::vector<int> unit_order = static_cast<int>(units.size()) <= pg.R.max_ordered
                                          ? precedence_order(unit_box, pg.R.column_overlap)
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
  return out;
}

// Each region's source of text: that of most of its lines' characters.
void set_text_sources(std::vector<Region>& regs, const PageLines& in) {
  for (Region& r : regs) {
    std::size_t pdf = 0, ocr = 0;
    for (int i : r.lines) {
      const std::size_t u = static_cast<std::size_t>(i);
      const std::size_t n = u < in.texts.size() ? in.texts[u].size() + 1 : 1;
      (u < in.styles.size() && in.styles[u].source == TextSource::kPdf ? pdf : ocr) += n;
    }
    r.text_source = pdf > ocr ? TextSource::kPdf : TextSource::kOcr;
  }
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

float line_size(const PageLines& lines, int i) {
  const std::size_t u = static_cast<std::size_t>(i);
  if (u < lines.styles.size() && lines.styles[u].size > 0.f && std::isfinite(lines.styles[u].size))
    return lines.styles[u].size;
  if (u >= lines.boxes.size()) return 0.f;
  const BoxF b = quad_bounds(lines.boxes[u]);
  return std::max(1.f, std::min(quad_height(lines.boxes[u]), height(b)));
}

std::vector<Region> order_regions(const std::vector<Region>& layout, const PageLines& lines, int W,
                                  int H, const DocumentRules& rules) {
  Page pg(lines, rules, W, H);
  clean_up(pg, layout);
  assign_lines(pg);
  dissolve_text_figures(pg);
  find_grids(pg);
  find_split_grids(pg);
  group_strays(pg);
  join_equation_numbers(pg);
  drop_empty_and_order_lines(pg);
  const float body = body_size(pg);
  split_headings(pg, body);
  mark_furniture(pg, body);
  std::vector<Region> out = order_page(pg);
  assign_headings(out, lines, body, rules);
  find_list_items(out, lines);
  set_text_sources(out, lines);
  return out;
}

std::vector<Region> order_regions(const std::vector<Region>& layout, const std::vector<Quad>& lines,
                                  const std::vector<std::string>& texts, int W, int H,
                                  const DocumentRules& rules,
                                  const std::vector<std::vector<BoxF>>& line_pieces) {
  PageLines pl;
  pl.boxes = lines;
  pl.texts = texts;
  pl.pieces.resize(line_pieces.size());
  for (std::size_t i = 0; i < line_pieces.size(); ++i)
    for (const BoxF& b : line_pieces[i]) pl.pieces[i].push_back({b, std::string()});
  return order_regions(layout, pl, W, H, rules);
}

}  // namespace edgeocr
