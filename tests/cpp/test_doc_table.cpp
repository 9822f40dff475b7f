// SLANet token decoding, ruled-line search and the grid method on hand-made inputs.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "check.h"
#include "document/table_structure.h"

using namespace edgeocr;

namespace {

// The classes as rapid_table orders them: sos, the model's metadata tokens, eos.
std::vector<std::string> slanet_tokens() {
  std::vector<std::string> t = {"sos",  "<thead>", "</thead>", "<tbody>", "</tbody>",
                                "<tr>", "</tr>",   "<td",      ">",       "</td>"};
  for (int n = 2; n <= 20; ++n) t.push_back(" colspan=\"" + std::to_string(n) + "\"");
  for (int n = 2; n <= 20; ++n) t.push_back(" rowspan=\"" + std::to_string(n) + "\"");
  t.push_back("<td></td>");
  t.push_back("eos");
  return t;
}

int index_of(const std::vector<std::string>& toks, const std::string& s) {
  for (std::size_t i = 0; i < toks.size(); ++i)
    if (toks[i] == s) return static_cast<int>(i);
  std::fprintf(stderr, "no token %s\n", s.c_str());
  return 0;
}

// One-hot probabilities (0.9 on the token) and a box per step: cell k's box is (k, k + 1).
struct Steps {
  std::vector<float> probs, boxes;
  int n = 0;
};

Steps encode(const std::vector<std::string>& toks, const std::vector<std::string>& seq) {
  Steps s;
  s.n = static_cast<int>(seq.size());
  s.probs.assign(seq.size() * toks.size(), 0.001f);
  s.boxes.assign(seq.size() * 8, 0.f);
  for (std::size_t t = 0; t < seq.size(); ++t) {
    s.probs[t * toks.size() + index_of(toks, seq[t])] = 0.9f;
    for (int i = 0; i < 8; ++i) s.boxes[t * 8 + i] = 0.01f * static_cast<float>(t) + 0.001f * i;
  }
  return s;
}

TableGrid decode(const std::vector<std::string>& seq, int max_cells = kMaxTableCells) {
  const auto toks = slanet_tokens();
  Steps s = encode(toks, seq);
  return decode_slanet(s.probs.data(), s.boxes.data(), s.n, toks, max_cells);
}

const GridCell* at(const TableGrid& g, int r, int c) {
  for (const GridCell& x : g.cells)
    if (x.row == r && x.col == c) return &x;
  return nullptr;
}

}  // namespace

TEST(slanet_decodes_a_plain_table) {
  const TableGrid g =
      decode({"sos", "<thead>", "<tr>", "<td></td>", "<td></td>", "</tr>", "</thead>", "<tbody>",
              "<tr>", "<td></td>", "<td></td>", "</tr>", "</tbody>", "eos", "<tr>"});
  CHECK(g.rows == 2 && g.cols == 2);
  CHECK(g.cells.size() == 4);
  CHECK(g.repairs == 0 && !g.truncated && g.note.empty());
  CHECK(g.cells[0].header && g.cells[1].header && !g.cells[2].header);
  // Cell (1, 0) comes from step 9: its box is that step's.
  const GridCell* c = at(g, 1, 0);
  CHECK(c != nullptr && c->has_poly);
  if (c) CHECK_NEAR(c->poly[0], 0.09, 1e-6);
  CHECK_NEAR(g.score, 0.9, 1e-6);
  CHECK(g.tokens == 12);
}

TEST(slanet_lays_spans_out_as_a_browser) {
  // | a (rowspan 2) | b (colspan 2)   |
  // |               | c     | d       |
  const TableGrid g =
      decode({"<tr>", "<td", " rowspan=\"2\"", ">", "</td>", "<td", " colspan=\"2\"", ">", "</td>",
              "</tr>", "<tr>", "<td></td>", "<td></td>", "</tr>", "eos"});
  CHECK(g.rows == 2 && g.cols == 3);
  CHECK(g.repairs == 0);
  const GridCell* a = at(g, 0, 0);
  const GridCell* b = at(g, 0, 1);
  CHECK(a && a->row_span == 2 && a->col_span == 1);
  CHECK(b && b->col_span == 2);
  CHECK(at(g, 1, 1) && at(g, 1, 2));
  // Box of a spanning cell: the "<td" step (1).
  if (a) CHECK_NEAR(a->poly[0], 0.01, 1e-6);
}

TEST(slanet_repairs_unbalanced_tags) {
  // No <tr> before the first cell, a row left open, a stray </td> and </tr>, a cell left open.
  const TableGrid g = decode({"<td></td>", "</td>", "<td></td>", "<tr>", "<td", ">", "<td></td>",
                              "</tr>", "</tr>", "<tr>", "<td></td>", "eos"});
  CHECK(g.rows == 3);
  CHECK(g.cols == 2);
  CHECK(g.cells.size() == 5);
  CHECK(g.repairs >= 5);
  CHECK(!g.truncated);
  CHECK(g.note.find("repaired") != std::string::npos);
}

TEST(slanet_applies_an_isolated_span_to_its_cell) {
  // PaddleOCR's "<td></td> rowspan=..." case: the span belongs to the plain cell before it.
  const TableGrid g = decode({"<tr>", "<td></td>", " colspan=\"3\"", "</tr>", "eos"});
  CHECK(g.cols == 3 && g.cells.size() == 1 && g.cells[0].col_span == 3);
  CHECK(g.repairs == 1);
}

TEST(slanet_clips_rowspans_past_the_last_row) {
  const TableGrid g =
      decode({"<tr>", "<td", " rowspan=\"20\"", ">", "</td>", "<td></td>", "</tr>", "eos"});
  CHECK(g.rows == 1 && g.cells[0].row_span == 1);
  CHECK(g.repairs >= 1);
}

TEST(slanet_stops_without_an_end_token_and_at_the_cell_cap) {
  std::vector<std::string> seq;
  for (int i = 0; i < 600; ++i) {
    if (i % 10 == 0) seq.push_back("<tr>");
    seq.push_back("<td></td>");
  }
  const TableGrid g = decode(seq);
  CHECK(g.truncated);
  CHECK(g.cells.size() == 600);
  CHECK(g.note.find("no end token") != std::string::npos);
  const TableGrid capped = decode(seq, 100);
  CHECK(capped.truncated && capped.cells.size() == 100);
  CHECK(capped.note.find("100 cells") != std::string::npos);
  // Thousands of colspan-20 cells in one row: columns stop at the cap.
  std::vector<std::string> wide = {"<tr>"};
  for (int i = 0; i < 3000; ++i) {
    for (const char* t : {"<td", " colspan=\"20\"", ">", "</td>"}) wide.push_back(t);
  }
  wide.push_back("eos");
  const TableGrid w = decode(wide);
  CHECK(w.cols <= kMaxTableCols);
  CHECK(w.cells.size() < 3000);
  CHECK(w.repairs > 0);
}

TEST(slanet_survives_non_finite_numbers) {
  const auto toks = slanet_tokens();
  Steps s = encode(toks, {"<tr>", "<td></td>", "<td></td>", "</tr>", "<tr>", "eos"});
  for (int i = 0; i < 8; ++i) s.boxes[1 * 8 + i] = std::numeric_limits<float>::quiet_NaN();
  s.boxes[2 * 8] = std::numeric_limits<float>::infinity();
  TableGrid g = decode_slanet(s.probs.data(), s.boxes.data(), s.n, toks);
  CHECK(g.cells.size() == 2);
  CHECK(!g.cells[0].has_poly && !g.cells[1].has_poly);
  // NaN probabilities at step 4: decoding ends there.
  for (std::size_t k = 0; k < toks.size(); ++k)
    s.probs[4 * toks.size() + k] = std::numeric_limits<float>::quiet_NaN();
  g = decode_slanet(s.probs.data(), s.boxes.data(), s.n, toks);
  CHECK(g.truncated && g.cells.size() == 2);
  // Garbage class names and no steps.
  g = decode_slanet(nullptr, nullptr, 0, toks);
  CHECK(g.cells.empty() && g.truncated);
  CHECK_THROWS(decode_slanet(s.probs.data(), s.boxes.data(), -1, toks));
  CHECK_THROWS(decode_slanet(nullptr, s.boxes.data(), 3, toks));
  CHECK_THROWS(decode_slanet(s.probs.data(), s.boxes.data(), s.n, {"a", "b", "c"}));
}

namespace {

// A white map with dark rules drawn on it.
struct Map {
  int w, h;
  std::vector<std::uint8_t> px;
  Map(int w_, int h_) : w(w_), h(h_), px(static_cast<std::size_t>(w_) * h_, 255) {}
  void hline(int y, int x0, int x1, int t = 1) {
    for (int k = 0; k < t; ++k)
      for (int x = x0; x <= x1; ++x) px[(y + k) * w + x] = 0;
  }
  void vline(int x, int y0, int y1, int t = 1) {
    for (int k = 0; k < t; ++k)
      for (int y = y0; y <= y1; ++y) px[y * w + x + k] = 0;
  }
};

}  // namespace

TEST(rules_are_found_and_thick_areas_are_not) {
  Map m(200, 100);
  m.hline(10, 5, 195, 2);
  m.hline(50, 5, 100);
  m.vline(5, 10, 90);
  for (int y = 70; y < 90; ++y) m.hline(y, 120, 190);  // a dark block: not a rule
  m.hline(30, 20, 24);                                 // too short
  const TableRules r = find_rules(m.px.data(), m.w, m.h, 1, 128, 30.f, 6.f);
  CHECK(r.horizontal.size() == 2);
  if (r.horizontal.size() == 2) {
    CHECK_NEAR(r.horizontal[0].pos, 11.0, 0.01);
    CHECK_NEAR(r.horizontal[0].from, 5.0, 0.01);
    CHECK_NEAR(r.horizontal[0].to, 196.0, 0.01);
    CHECK_NEAR(r.horizontal[1].pos, 50.5, 0.01);
  }
  CHECK(r.vertical.size() == 1);
  CHECK(!r.capped);
}

TEST(rules_are_capped_on_a_hatched_map) {
  Map m(400, 2000);
  for (int y = 0; y < 2000; y += 3) m.hline(y, 0, 399);
  for (int x = 0; x < 400; x += 3) m.vline(x, 0, 1999);
  const TableRules r = find_rules(m.px.data(), m.w, m.h, 1, 128, 20.f, 1.f);
  CHECK(r.horizontal.size() <= static_cast<std::size_t>(kMaxRules));
  CHECK(r.vertical.size() <= static_cast<std::size_t>(kMaxRules));
}

namespace {

TableRect rect(float x0, float y0, float x1, float y1) {
  return TableRect{x0, y0, x1, y1};
}

}  // namespace

TEST(grid_from_ruled_lines_with_spans) {
  // 3 columns x 3 rows of 100 x 40; cell (0, 1)-(0, 2) merged (no rule between them on row 0),
  // cell (1, 0)-(2, 0) merged.
  TableRules r;
  for (float y : {0.f, 120.f}) r.horizontal.push_back({y, 0, 300});
  r.horizontal.push_back({40, 0, 300});
  r.horizontal.push_back({80, 100, 300});  // not under the rowspan cell
  for (float x : {0.f, 300.f}) r.vertical.push_back({x, 0, 120});
  r.vertical.push_back({100, 0, 120});
  r.vertical.push_back({200, 40, 120});  // not through the colspan cell
  std::vector<TextPiece> text = {rect(10, 10, 60, 30),   rect(150, 10, 250, 30),
                                 rect(10, 70, 60, 90),   rect(110, 50, 190, 70),
                                 rect(210, 50, 290, 70), rect(110, 90, 190, 110),
                                 rect(210, 90, 290, 110)};
  const TableGrid g = grid_table(r, text, 300, 120);
  CHECK(g.rows == 3 && g.cols == 3);
  CHECK(g.cells.size() == 7);
  const GridCell* c01 = at(g, 0, 1);
  const GridCell* c10 = at(g, 1, 0);
  CHECK(c01 && c01->col_span == 2 && c01->row_span == 1);
  CHECK(c10 && c10->row_span == 2 && c10->col_span == 1);
  if (c10) {
    CHECK_NEAR(c10->poly[1], 40, 0.01);
    CHECK_NEAR(c10->poly[5], 120, 0.01);
  }
}

TEST(grid_from_alignment_without_rules) {
  // A borderless table: a header over columns 1-2 (a colspan), three body rows; the last column
  // has one long entry among short ones (not a column of its own).
  std::vector<TextPiece> text = {
      rect(0, 0, 40, 20),       rect(120, 0, 260, 20),  // header
      rect(0, 40, 50, 60),      rect(120, 40, 160, 60),
      rect(220, 40, 260, 60),   rect(300, 40, 330, 60),  // short
      rect(0, 80, 45, 100),     rect(120, 80, 165, 100),
      rect(215, 80, 260, 100),  rect(300, 80, 420, 100),  // long
      rect(0, 120, 40, 140),    rect(125, 120, 160, 140),
      rect(225, 120, 260, 140), rect(300, 120, 335, 140),
  };
  const TableGrid g = grid_table(TableRules{}, text, 430, 150);
  CHECK(g.rows == 4);
  CHECK(g.cols == 4);
  const GridCell* h = at(g, 0, 1);
  CHECK(h && h->col_span == 2);
  // The header row has nothing in column 3: an empty cell keeps the grid rectangular.
  CHECK(at(g, 0, 3) != nullptr);
  CHECK(g.cells.size() == 15);
}

TEST(grid_booktabs_rows_from_text_columns_from_gaps) {
  // Rules above and below the header and at the bottom only: body rows from the text.
  TableRules r;
  r.horizontal = {{0, 0, 300}, {30, 0, 300}, {130, 0, 300}};
  std::vector<TextPiece> text;
  for (int row = 0; row < 4; ++row) {
    const float y = row == 0 ? 5 : 40 + (row - 1) * 30;
    for (int col = 0; col < 3; ++col)
      text.push_back(rect(10 + col * 100, y, 70 + col * 100, y + 18));
  }
  const TableGrid g = grid_table(r, text, 300, 135);
  CHECK(g.rows == 4 && g.cols == 3 && g.cells.size() == 12);
}

TEST(grid_of_nothing_is_empty_with_a_note) {
  TableGrid g = grid_table(TableRules{}, {}, 100, 100);
  CHECK(g.cells.empty() && !g.note.empty());
  g = grid_table(TableRules{}, {rect(0, 0, 10, 10)}, 0, 100);
  CHECK(g.cells.empty());
  const float nan = std::numeric_limits<float>::quiet_NaN();
  g = grid_table(TableRules{}, {rect(nan, 0, 10, 10), rect(1, 1, 30, 12)}, 100, 100);
  CHECK(g.cells.size() == 1);
}

TEST(assignment_by_largest_share_then_nearest) {
  const std::vector<TableRect> cells = {rect(0, 0, 100, 50), rect(100, 0, 200, 50),
                                        rect(0, 50, 200, 100)};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<TableRect> items = {rect(10, 10, 90, 40), rect(80, 10, 190, 40),
                                        rect(10, 45, 100, 90), rect(250, 60, 260, 70),
                                        rect(nan, 0, 10, 10)};
  const std::vector<int> a = assign_to_cells(cells, items);
  CHECK(a[0] == 0 && a[1] == 1 && a[2] == 2 && a[3] == 2 && a[4] == -1);
  CHECK(assign_to_cells({}, items)[0] == -1);
  CHECK_NEAR(share_inside(rect(0, 0, 10, 10), rect(5, 0, 20, 20)), 0.5, 1e-6);
}

TEST_MAIN()
