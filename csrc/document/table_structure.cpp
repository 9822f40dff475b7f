#include "document/table_structure.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

#include "edgeocr/status.h"

namespace edgeocr {
namespace {

// ---------------------------------------------------------------------------------------------
// SLANet tokens

enum class Tok {
  kSos,
  kEos,
  kThead,
  kTheadEnd,
  kTbody,
  kTbodyEnd,
  kTr,
  kTrEnd,
  kTdOpen,   // "<td"
  kTdPlain,  // "<td></td>"
  kAttrEnd,  // ">"
  kTdEnd,    // "</td>"
  kColspan,
  kRowspan,
  kOther
};

struct TokInfo {
  Tok kind = Tok::kOther;
  int span = 1;
};

// ' colspan="12"' -> 12 (the digits after '=' inside optional quotes); 0 when malformed.
int span_value(const std::string& s, std::size_t eq) {
  std::size_t i = eq + 1;
  while (i < s.size() && (s[i] == '"' || s[i] == '\'' || s[i] == ' ')) ++i;
  long v = 0;
  int digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9' && digits < 7) {
    v = v * 10 + (s[i] - '0');
    ++i;
    ++digits;
  }
  if (digits == 0) return 0;
  return static_cast<int>(std::min<long>(v, 1000000));
}

std::string trimmed(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && s[a] == ' ') ++a;
  while (b > a && s[b - 1] == ' ') --b;
  return s.substr(a, b - a);
}

TokInfo classify(const std::string& raw) {
  const std::string s = trimmed(raw);
  TokInfo t;
  if (s == "sos")
    t.kind = Tok::kSos;
  else if (s == "eos")
    t.kind = Tok::kEos;
  else if (s == "<thead>")
    t.kind = Tok::kThead;
  else if (s == "</thead>")
    t.kind = Tok::kTheadEnd;
  else if (s == "<tbody>")
    t.kind = Tok::kTbody;
  else if (s == "</tbody>")
    t.kind = Tok::kTbodyEnd;
  else if (s == "<tr>")
    t.kind = Tok::kTr;
  else if (s == "</tr>")
    t.kind = Tok::kTrEnd;
  else if (s == "<td")
    t.kind = Tok::kTdOpen;
  else if (s == "<td></td>" || s == "<td>")
    t.kind = Tok::kTdPlain;
  else if (s == ">")
    t.kind = Tok::kAttrEnd;
  else if (s == "</td>")
    t.kind = Tok::kTdEnd;
  else {
    for (const char* name : {"colspan", "rowspan"}) {
      if (s.compare(0, std::char_traits<char>::length(name), name) != 0) continue;
      const std::size_t eq = s.find('=');
      const int v = eq == std::string::npos ? 0 : span_value(s, eq);
      if (v >= 1) {
        t.kind = name[0] == 'c' ? Tok::kColspan : Tok::kRowspan;
        t.span = v;
      }
    }
  }
  return t;
}

struct RawCell {
  int rs = 1, cs = 1;
  bool header = false;
  int step = -1;
};

// What was repaired, for the note.
struct Repairs {
  int open_cells = 0, open_rows = 0, orphan_cells = 0, stray = 0, isolated_spans = 0,
      clipped_spans = 0, empty_rows = 0, bad_boxes = 0, bad_probs = 0, dropped_cells = 0;
  int total() const {
    return open_cells + open_rows + orphan_cells + stray + isolated_spans + clipped_spans +
           empty_rows + bad_boxes + bad_probs + dropped_cells;
  }
};

void add_note(std::string& note, int n, const char* what) {
  if (n <= 0) return;
  if (!note.empty()) note += ", ";
  note += std::to_string(n) + " " + what;
}

std::string repairs_note(const Repairs& r) {
  std::string s;
  add_note(s, r.open_cells, "cell(s) left open");
  add_note(s, r.open_rows, "row(s) left open");
  add_note(s, r.orphan_cells, "cell(s) outside a row");
  add_note(s, r.stray, "stray tag(s) or attribute(s)");
  add_note(s, r.isolated_spans, "span(s) after their cell");
  add_note(s, r.clipped_spans, "span(s) clipped");
  add_note(s, r.empty_rows, "empty row(s)");
  add_note(s, r.bad_boxes, "non-finite cell box(es)");
  add_note(s, r.bad_probs, "non-finite probabilities");
  add_note(s, r.dropped_cells, "cell(s) beyond the column cap");
  return s.empty() ? s : "repaired: " + s;
}

}  // namespace

TableGrid decode_slanet(const float* probs, const float* boxes, int steps,
                        const std::vector<std::string>& tokens, int max_cells) {
  if (steps < 0)
    fail(StatusCode::kInvalidArgument, "decode_slanet: steps is " + std::to_string(steps));
  if (steps > 0 && (probs == nullptr || boxes == nullptr))
    fail(StatusCode::kInvalidArgument, "decode_slanet: probs or boxes is null");
  if (tokens.size() < 3)
    fail(StatusCode::kInvalidArgument, "decode_slanet: " + std::to_string(tokens.size()) +
                                           " token classes; expected sos, eos and structure");
  std::vector<TokInfo> kinds;
  kinds.reserve(tokens.size());
  int sos = -1, eos = -1;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    kinds.push_back(classify(tokens[i]));
    if (kinds.back().kind == Tok::kSos && sos < 0) sos = static_cast<int>(i);
    if (kinds.back().kind == Tok::kEos && eos < 0) eos = static_cast<int>(i);
  }
  if (sos < 0 || eos < 0)
    fail(StatusCode::kInvalidArgument, "decode_slanet: the token classes name no 'sos'/'eos'");
  const int cap = std::max(0, std::min(max_cells, kMaxTableCells));
  const std::size_t classes = tokens.size();

  TableGrid g;
  Repairs rep;
  std::vector<std::vector<RawCell>> rows;
  bool row_open = false, in_head = false;
  bool cell_open = false, in_attrs = false;  // a "<td" cell: before "</td>", before ">"
  bool last_plain = false;                   // the previous token made a "<td></td>" cell
  bool ended = false, stop = false;
  int n_cells = 0;
  double score_sum = 0;

  auto open_row = [&] {
    rows.emplace_back();
    row_open = true;
  };
  auto close_cell = [&](bool repaired) {
    if (!cell_open) return;
    if (repaired) ++rep.open_cells;
    cell_open = in_attrs = false;
  };
  auto close_row = [&] {
    close_cell(true);
    row_open = false;
  };
  auto new_cell = [&](int step) -> bool {
    close_cell(true);
    if (n_cells >= cap) {
      g.truncated = true;
      return false;
    }
    if (!row_open) {
      ++rep.orphan_cells;
      open_row();
    }
    RawCell c;
    c.header = in_head;
    c.step = step;
    rows.back().push_back(c);
    ++n_cells;
    return true;
  };

  for (int t = 0; t < steps; ++t) {
    const float* p = probs + static_cast<std::size_t>(t) * classes;
    int best = -1;
    float best_p = -std::numeric_limits<float>::infinity();
    for (std::size_t k = 0; k < classes; ++k) {
      if (p[k] > best_p) {  // false for NaN
        best_p = p[k];
        best = static_cast<int>(k);
      }
    }
    if (best < 0 || !std::isfinite(best_p)) {
      ++rep.bad_probs;
      g.truncated = true;
      break;
    }
    if (best == eos && t > 0) {
      ended = true;
      break;
    }
    if (best == sos || best == eos) continue;
    ++g.tokens;
    score_sum += best_p;
    const TokInfo& k = kinds[best];
    const bool was_plain = last_plain;
    last_plain = false;
    switch (k.kind) {
      case Tok::kThead:
        in_head = true;
        break;
      case Tok::kTheadEnd:
      case Tok::kTbody:
      case Tok::kTbodyEnd:
        in_head = false;
        break;
      case Tok::kTr:
        if (row_open) {
          ++rep.open_rows;
          close_row();
        }
        open_row();
        break;
      case Tok::kTrEnd:
        if (row_open)
          close_row();
        else
          ++rep.stray;
        break;
      case Tok::kTdPlain:
        stop = !new_cell(t);
        last_plain = !stop;
        break;
      case Tok::kTdOpen:
        stop = !new_cell(t);
        cell_open = in_attrs = !stop;
        break;
      case Tok::kAttrEnd:
        if (cell_open && in_attrs)
          in_attrs = false;
        else
          ++rep.stray;
        break;
      case Tok::kTdEnd:
        if (cell_open)
          close_cell(false);
        else
          ++rep.stray;
        break;
      case Tok::kColspan:
      case Tok::kRowspan: {
        RawCell* target = nullptr;
        if (cell_open && in_attrs) {
          target = &rows.back().back();
        } else if (was_plain && row_open && !rows.back().empty()) {
          target = &rows.back().back();
          ++rep.isolated_spans;
          last_plain = true;  // "<td></td> rowspan=.. colspan=.." may carry both
        } else {
          ++rep.stray;
        }
        if (target) {
          int v = k.span;
          if (v > kMaxTableSpan) {
            ++rep.clipped_spans;
            v = kMaxTableSpan;
          }
          (k.kind == Tok::kColspan ? target->cs : target->rs) = v;
        }
        break;
      }
      default:
        ++rep.stray;
        break;
    }
    if (stop) break;
  }
  if (!ended && steps > 0 && !g.truncated) g.truncated = true;  // ran out of steps
  if (steps == 0) g.truncated = true;
  if (row_open) {
    ++rep.open_rows;
    close_row();
  }
  g.score = g.tokens > 0 ? static_cast<float>(score_sum / g.tokens) : 0.f;

  // Drop empty rows, then lay the cells out on slots as a browser does.
  std::vector<std::vector<RawCell>> kept;
  for (auto& r : rows) {
    if (r.empty())
      ++rep.empty_rows;
    else
      kept.push_back(std::move(r));
  }
  if (static_cast<int>(kept.size()) > kMaxTableRows) {
    kept.resize(kMaxTableRows);
    g.truncated = true;
  }
  const int R = static_cast<int>(kept.size());
  std::vector<std::uint8_t> taken(static_cast<std::size_t>(R) * kMaxTableCols, 0);
  for (int r = 0; r < R; ++r) {
    int col = 0;
    for (const RawCell& rc : kept[r]) {
      while (col < kMaxTableCols && taken[static_cast<std::size_t>(r) * kMaxTableCols + col]) ++col;
      if (col >= kMaxTableCols) {
        ++rep.dropped_cells;
        continue;
      }
      GridCell c;
      c.row = r;
      c.col = col;
      c.header = rc.header;
      c.col_span = std::min(rc.cs, kMaxTableCols - col);
      c.row_span = std::min(rc.rs, R - r);
      // A span over slots an earlier rowspan holds is cut back to the free slots.
      for (int k = 1; k < c.col_span; ++k)
        if (taken[static_cast<std::size_t>(r) * kMaxTableCols + col + k]) {
          c.col_span = k;
          break;
        }
      if (c.col_span != rc.cs || c.row_span != rc.rs) ++rep.clipped_spans;
      for (int rr = r; rr < r + c.row_span; ++rr)
        for (int cc = col; cc < col + c.col_span; ++cc)
          taken[static_cast<std::size_t>(rr) * kMaxTableCols + cc] = 1;
      if (rc.step >= 0) {
        const float* b = boxes + static_cast<std::size_t>(rc.step) * 8;
        bool finite = true;
        for (int i = 0; i < 8; ++i) finite = finite && std::isfinite(b[i]);
        if (finite) {
          for (int i = 0; i < 8; ++i) c.poly[i] = std::min(1.f, std::max(0.f, b[i]));
          c.has_poly = true;
        } else {
          ++rep.bad_boxes;
        }
      }
      g.cols = std::max(g.cols, col + c.col_span);
      col += c.col_span;
      g.cells.push_back(c);
    }
  }
  g.rows = R;
  g.repairs = rep.total();
  g.note = repairs_note(rep);
  if (g.truncated) {
    const std::string why =
        n_cells >= cap && cap > 0
            ? "stopped at " + std::to_string(cap) + " cells"
            : (rep.bad_probs ? "stopped at non-finite probabilities"
                             : "no end token within " + std::to_string(steps) + " steps");
    g.note = g.note.empty() ? why : why + "; " + g.note;
  }
  return g;
}

// -------------------------------------------------------------------------------------------
// Ruled lines

namespace {

struct Run {
  int line, a, b;  // map row (or column), first and last map pixel
};

struct Group {
  int l0, l1, a, b;
};

// Lines along one direction: `at(line, i)` is the map value at position i of line `line`.
template <class At>
std::vector<RuleLine> lines_along(int n_lines, int length, At at, int cell, int dark_below,
                                  float min_length, float max_thickness, bool* capped) {
  std::vector<Group> open, done;
  std::vector<Run> runs;
  for (int l = 0; l < n_lines; ++l) {
    runs.clear();
    int i = 0;
    while (i < length) {
      if (at(l, i) >= dark_below) {
        ++i;
        continue;
      }
      int a = i, b = i;
      int j = i + 1;
      while (j < length) {
        if (at(l, j) < dark_below) {
          b = j++;
        } else if (j + 1 < length && at(l, j + 1) < dark_below) {
          b = ++j;  // a one-pixel gap
          ++j;
        } else {
          break;
        }
      }
      if (static_cast<float>(b - a + 1) * cell >= min_length) runs.push_back({l, a, b});
      i = j;
    }
    // Extend the groups of the previous line with overlapping runs; others start groups.
    std::vector<Group> next;
    std::vector<int> at_next(open.size(), -1);
    for (const Run& r : runs) {
      int k = 0;
      const int n_open = static_cast<int>(open.size());
      while (k < n_open && !(r.a <= open[k].b && r.b >= open[k].a)) ++k;
      if (k == n_open) {
        next.push_back({l, l, r.a, r.b});
        continue;
      }
      if (at_next[k] < 0) {
        at_next[k] = static_cast<int>(next.size());
        next.push_back(open[k]);
        next.back().l1 = l;
      }
      Group& n = next[at_next[k]];
      n.a = std::min(n.a, r.a);
      n.b = std::max(n.b, r.b);
    }
    std::vector<bool> used(open.size());
    for (std::size_t k = 0; k < open.size(); ++k) used[k] = at_next[k] >= 0;
    for (std::size_t k = 0; k < open.size(); ++k)
      if (!used[k]) done.push_back(open[k]);
    open = std::move(next);
    // A hostile map (a fine hatch) makes many groups: bound the work.
    if (done.size() > 64 * static_cast<std::size_t>(kMaxRules)) break;
  }
  done.insert(done.end(), open.begin(), open.end());
  std::vector<RuleLine> out;
  for (const Group& g : done) {
    const float thick = static_cast<float>(g.l1 - g.l0 + 1) * cell;
    if (thick > max_thickness) continue;
    out.push_back({(g.l0 + g.l1 + 1) * 0.5f * cell, static_cast<float>(g.a) * cell,
                   static_cast<float>(g.b + 1) * cell});
  }
  if (out.size() > static_cast<std::size_t>(kMaxRules)) {
    std::sort(out.begin(), out.end(), [](const RuleLine& x, const RuleLine& y) {
      return (x.to - x.from) > (y.to - y.from);
    });
    out.resize(kMaxRules);
    *capped = true;
  }
  std::sort(out.begin(), out.end(),
            [](const RuleLine& x, const RuleLine& y) { return x.pos < y.pos; });
  return out;
}

}  // namespace

TableRules find_rules(const std::uint8_t* map, int map_w, int map_h, int cell, int dark_below,
                      float min_length, float max_thickness) {
  if (map_w < 0 || map_h < 0 || cell <= 0 || (map == nullptr && map_w * map_h > 0))
    fail(StatusCode::kInvalidArgument, "find_rules: bad map");
  TableRules r;
  if (map_w == 0 || map_h == 0) return r;
  const std::size_t w = static_cast<std::size_t>(map_w);
  r.horizontal = lines_along(
      map_h, map_w, [&](int l, int i) { return map[static_cast<std::size_t>(l) * w + i]; }, cell,
      dark_below, min_length, max_thickness, &r.capped);
  r.vertical = lines_along(
      map_w, map_h, [&](int l, int i) { return map[static_cast<std::size_t>(i) * w + l]; }, cell,
      dark_below, min_length, max_thickness, &r.capped);
  return r;
}

// -------------------------------------------------------------------------------------------
// The grid method

namespace {

bool finite_rect(const TableRect& r) {
  return std::isfinite(r.x0) && std::isfinite(r.y0) && std::isfinite(r.x1) && std::isfinite(r.y1);
}

float overlap_1d(float a0, float a1, float b0, float b1) {
  return std::max(0.f, std::min(a1, b1) - std::max(a0, b0));
}

float median(std::vector<float> v) {
  if (v.empty()) return 0.f;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// A separator between two rows or columns, and where it comes from: a ruled line (the
// boundary is closed where rules cover it) or a gap in the text (closed unless text crosses it).
struct Sep {
  float pos;
  bool rule;
};

// Share of [a, b] covered by the rules near `pos` (within tol), each rule's [from, to].
float rule_cover(const std::vector<RuleLine>& rules, float pos, float tol, float a, float b) {
  if (b <= a) return 1.f;
  std::vector<std::pair<float, float>> iv;
  for (const RuleLine& r : rules)
    if (std::fabs(r.pos - pos) <= tol) iv.emplace_back(std::max(a, r.from), std::min(b, r.to));
  std::sort(iv.begin(), iv.end());
  float covered = 0, end = a;
  for (const auto& [s, e] : iv) {
    if (e <= end) continue;
    covered += e - std::max(s, end);
    end = e;
  }
  return covered / (b - a);
}

// Positions of the rules strictly inside (lo, hi), near ones (within tol) merged.
std::vector<float> interior(const std::vector<RuleLine>& rules, float lo, float hi, float tol) {
  std::vector<float> out;
  for (const RuleLine& r : rules) {
    if (r.pos <= lo + tol || r.pos >= hi - tol) continue;
    if (!out.empty() && r.pos - out.back() <= tol)
      out.back() = (out.back() + r.pos) * 0.5f;
    else
      out.push_back(r.pos);
  }
  return out;
}

struct Band {
  float y0, y1;
  std::vector<int> pieces;
};

int find(std::vector<int>& parent, int i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

}  // namespace

TableGrid grid_table(const TableRules& rules, const std::vector<TextPiece>& in_pieces, float width,
                     float height) {
  TableGrid g;
  if (!(width > 0) || !(height > 0) || !std::isfinite(width) || !std::isfinite(height)) {
    g.note = "an empty region";
    return g;
  }
  std::vector<TextPiece> pieces;
  for (const TextPiece& p : in_pieces) {
    if (!finite_rect(p)) continue;
    TextPiece q{std::max(0.f, std::min(p.x0, p.x1)), std::max(0.f, std::min(p.y0, p.y1)),
                std::min(width, std::max(p.x0, p.x1)), std::min(height, std::max(p.y0, p.y1))};
    if (q.x1 - q.x0 >= 1.f && q.y1 - q.y0 >= 1.f) pieces.push_back(q);
  }
  // Rules: only the finite ones, inside the region.
  auto clean = [&](const std::vector<RuleLine>& v, float across, float along) {
    std::vector<RuleLine> out;
    for (const RuleLine& r : v)
      if (std::isfinite(r.pos) && std::isfinite(r.from) && std::isfinite(r.to) && r.pos >= 0 &&
          r.pos <= across && r.to > r.from)
        out.push_back({r.pos, std::max(0.f, r.from), std::min(along, r.to)});
    return out;
  };
  const std::vector<RuleLine> hr = clean(rules.horizontal, height, width);
  const std::vector<RuleLine> vr = clean(rules.vertical, width, height);
  if (pieces.empty() && (hr.empty() || vr.empty())) {
    g.note = "no text and no ruled grid in the region";
    return g;
  }
  std::vector<float> heights;
  for (const TextPiece& p : pieces) heights.push_back(p.height());
  const float hmed = std::max(4.f, median(heights));
  const float tol = std::max(2.f, 0.3f * hmed);

  // Extent: the text's, widened to the outermost rules around it.
  float X0 = width, X1 = 0, Y0 = height, Y1 = 0;
  for (const TextPiece& p : pieces) {
    X0 = std::min(X0, p.x0), X1 = std::max(X1, p.x1);
    Y0 = std::min(Y0, p.y0), Y1 = std::max(Y1, p.y1);
  }
  if (pieces.empty()) X0 = width, X1 = 0, Y0 = height, Y1 = 0;
  for (const RuleLine& r : vr) X0 = std::min(X0, r.pos), X1 = std::max(X1, r.pos);
  for (const RuleLine& r : hr) Y0 = std::min(Y0, r.pos), Y1 = std::max(Y1, r.pos);
  if (!(X1 > X0) || !(Y1 > Y0)) {
    g.note = "no table extent in the region";
    return g;
  }

  // Text rows: pieces in order of their centres; a piece joins the last band when half of its
  // height lies inside the band.
  std::vector<int> order(pieces.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return pieces[a].y0 + pieces[a].y1 < pieces[b].y0 + pieces[b].y1;
  });
  std::vector<Band> bands;
  for (int i : order) {
    const TextPiece& p = pieces[i];
    if (!bands.empty() &&
        overlap_1d(p.y0, p.y1, bands.back().y0, bands.back().y1) >= 0.5f * p.height()) {
      Band& b = bands.back();
      b.y0 = std::min(b.y0, p.y0);
      b.y1 = std::max(b.y1, p.y1);
      b.pieces.push_back(i);
    } else {
      bands.push_back({p.y0, p.y1, {i}});
    }
  }

  // Columns.
  std::vector<Sep> col_seps;
  const std::vector<float> vin = interior(vr, X0, X1, tol);
  const bool ruled_cols = !vin.empty();
  if (ruled_cols) {
    for (float x : vin) col_seps.push_back({x, true});
  } else if (!pieces.empty()) {
    // Coverage: in how many text rows each pixel column holds text.
    const int x_lo = static_cast<int>(std::floor(X0));
    const int n = static_cast<int>(std::ceil(X1)) - x_lo + 1;
    std::vector<int> diff(static_cast<std::size_t>(n) + 1, 0);
    for (const Band& b : bands) {
      std::vector<std::pair<float, float>> iv;
      for (int i : b.pieces) iv.emplace_back(pieces[i].x0, pieces[i].x1);
      std::sort(iv.begin(), iv.end());
      float s = iv[0].first, e = iv[0].second;
      auto flush = [&] {
        const int a = std::max(0, static_cast<int>(std::floor(s)) - x_lo);
        const int z = std::min(n, static_cast<int>(std::ceil(e)) - x_lo);
        if (z > a) ++diff[a], --diff[z];
      };
      for (std::size_t k = 1; k < iv.size(); ++k) {
        if (iv[k].first <= e) {
          e = std::max(e, iv[k].second);
        } else {
          flush();
          s = iv[k].first, e = iv[k].second;
        }
      }
      flush();
    }
    std::vector<int> cover(n, 0);
    for (int x = 0, acc = 0; x < n; ++x) cover[x] = acc += diff[x];
    const int allowed = static_cast<int>(bands.size()) / 3;
    const float min_gap = std::max(2.f, 0.5f * hmed);
    int x = 0;
    while (x < n) {
      if (cover[x] > allowed) {
        ++x;
        continue;
      }
      int a = x;
      while (x < n && cover[x] <= allowed) ++x;
      const int b = x;                 // run [a, b)
      if (a == 0 || b >= n) continue;  // before the first text or after the last
      int m = cover[a];
      for (int k = a; k < b; ++k) m = std::min(m, cover[k]);
      int best_a = -1, best_len = 0;
      for (int k = a; k < b;) {
        if (cover[k] != m) {
          ++k;
          continue;
        }
        int s = k;
        while (k < b && cover[k] == m) ++k;
        if (k - s > best_len) best_len = k - s, best_a = s;
      }
      if (best_len >= min_gap) col_seps.push_back({x_lo + best_a + best_len * 0.5f, false});
    }
    // A column in which no text starts (or none ends) is part of its neighbour: a few long
    // entries of a column of short ones are not a column of their own.
    for (bool changed = true; changed && !col_seps.empty();) {
      changed = false;
      std::vector<float> edges{X0};
      for (const Sep& s : col_seps) edges.push_back(s.pos);
      edges.push_back(X1);
      for (std::size_t k = 0; k + 1 < edges.size(); ++k) {
        bool starts = false, ends = false;
        for (const TextPiece& p : pieces) {
          starts = starts || (p.x0 >= edges[k] - 1 && p.x0 < edges[k + 1]);
          ends = ends || (p.x1 > edges[k] && p.x1 <= edges[k + 1] + 1);
        }
        if (!starts && k > 0) {
          col_seps.erase(col_seps.begin() + static_cast<std::ptrdiff_t>(k - 1));
          changed = true;
          break;
        }
        if (!ends && k + 1 < edges.size() - 1) {
          col_seps.erase(col_seps.begin() + static_cast<std::ptrdiff_t>(k));
          changed = true;
          break;
        }
      }
    }
  }

  // Rows.
  std::vector<Sep> row_seps;
  const std::vector<float> hin = interior(hr, Y0, Y1, tol);
  std::vector<float> gaps;
  for (std::size_t k = 0; k + 1 < bands.size(); ++k)
    gaps.push_back((bands[k].y1 + bands[k + 1].y0) * 0.5f);
  bool rows_from_rules = false;
  if (!hin.empty()) {
    // Rows ruled one by one (most rule intervals hold at most one text row): a second text
    // row between two rules is a cell's second line, not a row.
    std::vector<float> edges{Y0};
    edges.insert(edges.end(), hin.begin(), hin.end());
    edges.push_back(Y1);
    int single = 0, intervals = 0;
    // Ruled both ways: where an interval holds several text rows, they are a few cells' wrapped
    // lines, not rows in every column (an unruled body under a ruled header).
    std::vector<float> cx{X0};
    cx.insert(cx.end(), vin.begin(), vin.end());
    cx.push_back(X1);
    bool cells_as_drawn = ruled_cols && hin.size() >= 2;
    for (std::size_t k = 0; k + 1 < edges.size(); ++k) {
      int n = 0;
      for (const Band& b : bands) {
        const float c = (b.y0 + b.y1) * 0.5f;
        n += c > edges[k] && c < edges[k + 1];
      }
      if (n > 0) ++intervals, single += n <= 1;
      if (n < 4 || !cells_as_drawn) continue;  // up to 3: a row of wrapped cells
      int cols_text = 0, cols_multi = 0;
      for (std::size_t q = 0; q + 1 < cx.size(); ++q) {
        int in = 0;
        for (const TextPiece& p : pieces) {
          const float px = 0.5f * (p.x0 + p.x1), py = 0.5f * (p.y0 + p.y1);
          in += px > cx[q] && px < cx[q + 1] && py > edges[k] && py < edges[k + 1];
        }
        cols_text += in > 0;
        cols_multi += in > 1;
      }
      if (2 * cols_multi > cols_text) cells_as_drawn = false;
    }
    const bool one_by_one = hin.size() >= 2 && intervals > 0 && single * 10 >= intervals * 6;
    rows_from_rules = ruled_cols || one_by_one;
    // A grid ruled both ways, row by row: its cells are as drawn (docs/tables.md).
    g.ruled = cells_as_drawn;
  }
  for (float y : hin) row_seps.push_back({y, true});
  if (!rows_from_rules) {
    for (std::size_t k = 0; k + 1 < bands.size(); ++k) {
      const float y = gaps[k];
      // A gap with a rule between the same two text rows is that rule.
      bool ruled = false;
      for (float r : hin)
        ruled = ruled || (r > bands[k].y1 - tol && r < bands[k + 1].y0 + tol) ||
                std::fabs(r - y) <= std::max(tol, 0.5f * hmed);
      if (!ruled) row_seps.push_back({y, false});
    }
    std::sort(row_seps.begin(), row_seps.end(),
              [](const Sep& a, const Sep& b) { return a.pos < b.pos; });
  }
  if (static_cast<int>(col_seps.size()) >= kMaxTableCols) {
    col_seps.resize(kMaxTableCols - 1);
    g.truncated = true;
  }
  if (static_cast<int>(row_seps.size()) >= kMaxTableRows) {
    row_seps.resize(kMaxTableRows - 1);
    g.truncated = true;
  }

  std::vector<float> xs{X0}, ys{Y0};
  for (const Sep& s : col_seps) xs.push_back(s.pos);
  for (const Sep& s : row_seps) ys.push_back(s.pos);
  xs.push_back(X1);
  ys.push_back(Y1);
  const int C = static_cast<int>(xs.size()) - 1, R = static_cast<int>(ys.size()) - 1;
  if (static_cast<std::int64_t>(R) * C > kMaxGridSlots) {
    g.note = "a grid of " + std::to_string(R) + " x " + std::to_string(C) +
             " slots is more than a table (over " + std::to_string(kMaxGridSlots) + ")";
    g.truncated = true;
    return g;
  }
  const std::size_t n_slots = static_cast<std::size_t>(R) * static_cast<std::size_t>(C);

  // Which text row and columns each piece lies in (rows by its centre).
  auto row_of = [&](float y) {
    return static_cast<int>(std::upper_bound(ys.begin() + 1, ys.end() - 1, y) - ys.begin()) - 1;
  };
  auto col_of = [&](float x) {
    return static_cast<int>(std::upper_bound(xs.begin() + 1, xs.end() - 1, x) - xs.begin()) - 1;
  };

  // Slots joined where no rule or text gap divides them.
  std::vector<int> parent(n_slots);
  std::iota(parent.begin(), parent.end(), 0);
  auto unite = [&](int a, int b) {
    a = find(parent, a), b = find(parent, b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  };
  const float cross = std::max(1.f, 0.15f * hmed);
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c + 1 < C; ++c) {
      const Sep& s = col_seps[c];
      bool open;
      if (s.rule) {
        open = rule_cover(vr, s.pos, tol, ys[r], ys[r + 1]) < 0.5f;
      } else {
        open = false;
        for (const TextPiece& p : pieces)
          open = open || (row_of((p.y0 + p.y1) * 0.5f) == r && p.x0 < s.pos - cross &&
                          p.x1 > s.pos + cross);
      }
      if (open) unite(r * C + c, r * C + c + 1);
    }
  }
  for (int r = 0; r + 1 < R; ++r) {
    const Sep& s = row_seps[r];
    for (int c = 0; c < C; ++c) {
      bool open;
      if (s.rule) {
        open = rule_cover(hr, s.pos, tol, xs[c], xs[c + 1]) < 0.5f;
      } else {
        open = false;
        for (const TextPiece& p : pieces)
          open = open || (col_of((p.x0 + p.x1) * 0.5f) == c && p.y0 < s.pos - cross &&
                          p.y1 > s.pos + cross);
      }
      if (open) unite(r * C + c, (r + 1) * C + c);
    }
  }
  // Each group of slots grows to its bounding rectangle (absorbing the groups inside it).
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<int> r0(n_slots, R), r1(n_slots, -1), c0(n_slots, C), c1(n_slots, -1);
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) {
        const int k = find(parent, r * C + c);
        r0[k] = std::min(r0[k], r), r1[k] = std::max(r1[k], r);
        c0[k] = std::min(c0[k], c), c1[k] = std::max(c1[k], c);
      }
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) {
        const int k = find(parent, r * C + c);
        if (k != r * C + c) continue;
        for (int rr = r0[k]; rr <= r1[k]; ++rr)
          for (int cc = c0[k]; cc <= c1[k]; ++cc)
            if (find(parent, rr * C + cc) != k) {
              unite(k, rr * C + cc);
              changed = true;
            }
      }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const int k = find(parent, r * C + c);
      if (k != r * C + c) continue;  // not the group's top-left slot
      int rs = 1, cs = 1;
      while (c + cs < C && find(parent, r * C + c + cs) == k) ++cs;
      while (r + rs < R && find(parent, (r + rs) * C + c) == k) ++rs;
      GridCell cell;
      cell.row = r, cell.col = c, cell.row_span = rs, cell.col_span = cs;
      const float x0 = xs[c], x1 = xs[c + cs], y0 = ys[r], y1 = ys[r + rs];
      const float poly[8] = {x0, y0, x1, y0, x1, y1, x0, y1};
      std::copy(poly, poly + 8, cell.poly);
      cell.has_poly = true;
      g.cells.push_back(cell);
    }
  g.rows = R;
  g.cols = C;
  g.score = 1.f;
  if (rules.capped)
    g.note = "more ruled lines than " + std::to_string(kMaxRules) + "; some left out";
  if (g.truncated)
    g.note += std::string(g.note.empty() ? "" : "; ") + "rows or columns beyond the caps left out";
  return g;
}

float share_inside(const TableRect& item, const TableRect& cell) {
  if (!finite_rect(item) || !finite_rect(cell)) return 0.f;
  const float area = (item.x1 - item.x0) * (item.y1 - item.y0);
  if (!(area > 0)) return 0.f;
  return overlap_1d(item.x0, item.x1, cell.x0, cell.x1) *
         overlap_1d(item.y0, item.y1, cell.y0, cell.y1) / area;
}

std::vector<int> assign_to_cells(const std::vector<TableRect>& cells,
                                 const std::vector<TableRect>& items) {
  std::vector<int> out(items.size(), -1);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const TableRect& it = items[i];
    if (!finite_rect(it)) continue;
    int best = -1;
    float best_share = 0.f;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const float s = share_inside(it, cells[c]);
      if (s > best_share) best_share = s, best = static_cast<int>(c);
    }
    if (best < 0) {
      float best_d = std::numeric_limits<float>::infinity();
      for (std::size_t c = 0; c < cells.size(); ++c) {
        const TableRect& b = cells[c];
        if (!finite_rect(b)) continue;
        const float dx = std::max({0.f, b.x0 - it.x1, it.x0 - b.x1});
        const float dy = std::max({0.f, b.y0 - it.y1, it.y0 - b.y1});
        const float d = dx * dx + dy * dy;
        if (d < best_d) best_d = d, best = static_cast<int>(c);
      }
    }
    out[i] = best;
  }
  return out;
}

}  // namespace edgeocr
