// The reading-order rule (document/reading_order.h) and PicoDet's decoding
// (document/layout_decode.h) on synthetic pages, including hostile ones.
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "check.h"
#include "document/layout_decode.h"
#include "document/reading_order.h"

using namespace edgeocr;

namespace {

Region reg(RegionType t, float x0, float y0, float x1, float y1, float score = 0.9f) {
  Region r;
  r.type = t;
  r.label = "x";
  r.score = score;
  r.box = {x0, y0, x1, y1};
  return r;
}

Quad quad(float x0, float y0, float x1, float y1) {
  Quad q;
  q.p[0] = {x0, y0};
  q.p[1] = {x1, y0};
  q.p[2] = {x1, y1};
  q.p[3] = {x0, y1};
  return q;
}

// Lines filling a region: n lines of height h, 1.5 h apart.
void fill(std::vector<Quad>& lines, std::vector<std::string>& texts, const BoxF& b, float h,
          const std::string& tag) {
  int k = 0;
  for (float y = b.y0 + 2; y + h <= b.y1 - 1; y += 1.5f * h, ++k) {
    lines.push_back(quad(b.x0 + 4, y, b.x1 - 4, y + h));
    texts.push_back(tag + std::to_string(k));
  }
}

// Names for messages only (the pipeline layer owns region_type_name).
const char* region_type_name_for_test(RegionType t) {
  static const char* n[] = {"text",           "title",       "list",          "figure",
                            "figure_caption", "table",       "table_caption", "header",
                            "footer",         "page_number", "reference",     "equation"};
  return n[static_cast<int>(t)];
}

// The regions' first line's text in order (tags name regions).
std::vector<std::string> tags(const std::vector<Region>& out, const std::vector<std::string>& t) {
  std::vector<std::string> v;
  for (const Region& r : out) {
    std::string s = r.lines.empty() ? std::string("<") + region_type_name_for_test(r.type) + ">"
                                    : t[static_cast<std::size_t>(r.lines[0])];
    const std::size_t tag_end = s.find_last_not_of("0123456789");
    v.push_back(tag_end == std::string::npos ? s : s.substr(0, tag_end + 1));
  }
  return v;
}

// Every line index appears in exactly one region.
bool each_line_once(const std::vector<Region>& out, std::size_t n) {
  std::vector<int> seen(n, 0);
  for (const Region& r : out)
    for (int i : r.lines) {
      if (i < 0 || static_cast<std::size_t>(i) >= n) return false;
      ++seen[static_cast<std::size_t>(i)];
    }
  for (int s : seen)
    if (s != 1) return false;
  return true;
}

}  // namespace

TEST(two_columns_with_a_spanning_title_table_and_a_figure) {
  // A page as tools/gen_doc_pages.py --preset two-column draws it: the title box narrower than its
  // line (as the CDLA model gives it), a left-column heading that does not overlap it horizontally.
  std::vector<Region> layout = {
      reg(RegionType::kFigure, 640, 950, 1150, 1300),
      reg(RegionType::kText, 100, 290, 590, 515),  // L1
      reg(RegionType::kTitle, 442, 132, 896, 175),
      reg(RegionType::kTitle, 104, 240, 292, 262),  // left heading
      reg(RegionType::kText, 640, 236, 1130, 372),  // R1
      reg(RegionType::kText, 100, 542, 565, 680),   // L2
      reg(RegionType::kTitle, 643, 404, 772, 426),  // right heading
      reg(RegionType::kText, 640, 452, 1133, 650),  // R2
      reg(RegionType::kTableCaption, 100, 729, 460, 748),
      reg(RegionType::kTable, 95, 753, 1155, 919),
      reg(RegionType::kText, 100, 1015, 593, 1184),  // L3
      reg(RegionType::kFigureCaption, 643, 1311, 1006, 1332),
      reg(RegionType::kText, 640, 1363, 1136, 1502),  // R3
      reg(RegionType::kFooter, 600, 1679, 630, 1694),
      reg(RegionType::kText, 100, 49, 335, 65),  // a running header the model calls text
  };
  std::vector<Quad> lines;
  std::vector<std::string> texts;
  lines.push_back(quad(250, 132, 990, 176));  // the title's line, wider than its box
  texts.push_back("title");
  fill(lines, texts, layout[1].box, 24, "L1_");
  fill(lines, texts, layout[4].box, 24, "R1_");
  fill(lines, texts, layout[5].box, 24, "L2_");
  fill(lines, texts, layout[7].box, 24, "R2_");
  fill(lines, texts, layout[10].box, 24, "L3_");
  fill(lines, texts, layout[12].box, 24, "R3_");
  lines.push_back(quad(104, 240, 292, 262));
  texts.push_back("intro");
  lines.push_back(quad(643, 404, 772, 428));
  texts.push_back("method");
  lines.push_back(quad(102, 729, 460, 748));
  texts.push_back("tcap");
  fill(lines, texts, {95, 760, 1155, 919}, 20, "cell");
  lines.push_back(quad(643, 1311, 1006, 1332));
  texts.push_back("fcap");
  lines.push_back(quad(611, 1679, 622, 1694));
  texts.push_back("3");
  lines.push_back(quad(100, 49, 335, 65));
  texts.push_back("head");
  const std::vector<Region> out = order_regions(layout, lines, texts, 1240, 1754);
  const std::vector<std::string> want = {"head", "title",    "intro", "L1_",  "L2_",
                                         "R1_",  "method",   "R2_",   "tcap", "cell",
                                         "L3_",  "<figure>", "fcap",  "R3_",  "3"};
  const std::vector<std::string> got = tags(out, texts);
  CHECK(got == want);
  if (got != want)
    for (const std::string& s : got) std::fprintf(stderr, "  %s\n", s.c_str());
  CHECK(each_line_once(out, lines.size()));
  CHECK(out.front().type == RegionType::kHeader && out.front().furniture);
  CHECK(out.back().furniture);
  CHECK(out[1].heading_level == 1);
  CHECK(out[2].heading_level == 2 && out[6].heading_level == 2);
  CHECK(out[8].caption_of == 9);    // the table caption above its table
  CHECK(out[12].caption_of == 11);  // the figure caption below its figure
  CHECK(out[3].caption_of == -1);
}

TEST(a_figure_spanning_two_of_three_columns_does_not_break_the_order) {
  // Column 1 runs the page's height; a figure spans columns 2 and 3 in the middle (XY-cut finds no
  // cut through the whole page there and reads across the columns).
  std::vector<Region> layout = {
      reg(RegionType::kText, 50, 100, 330, 400),   // C1a
      reg(RegionType::kText, 50, 420, 330, 700),   // C1b
      reg(RegionType::kText, 50, 720, 330, 1000),  // C1c
      reg(RegionType::kText, 370, 100, 650, 380),  // C2a
      reg(RegionType::kText, 690, 100, 970, 380),  // C3a
      reg(RegionType::kFigure, 370, 420, 970, 680),
      reg(RegionType::kText, 370, 720, 650, 1000),  // C2b
      reg(RegionType::kText, 690, 720, 970, 1000),  // C3b
  };
  std::vector<Quad> lines;
  std::vector<std::string> texts;
  const char* names[] = {"C1a", "C1b", "C1c", "C2a", "C3a", "", "C2b", "C3b"};
  for (int i = 0; i < 8; ++i)
    if (i != 5) fill(lines, texts, layout[static_cast<std::size_t>(i)].box, 20, names[i]);
  const auto out = order_regions(layout, lines, texts, 1020, 1100);
  const std::vector<std::string> want = {"C1a", "C1b",      "C1c", "C2a",
                                         "C3a", "<figure>", "C2b", "C3b"};
  CHECK(tags(out, texts) == want);
  CHECK(each_line_once(out, lines.size()));
}

TEST(a_single_column_reads_top_to_bottom_and_lines_in_their_order) {
  std::vector<Region> layout = {reg(RegionType::kText, 100, 500, 900, 700),
                                reg(RegionType::kText, 100, 100, 900, 300)};
  // Lines given out of order (and one slightly tilted).
  std::vector<Quad> lines = {quad(110, 560, 880, 580), quad(110, 510, 880, 530),
                             quad(110, 150, 880, 170), quad(110, 110, 880, 130)};
  std::vector<std::string> texts = {"b2", "b1", "a2", "a1"};
  const auto out = order_regions(layout, lines, texts, 1000, 1000);
  CHECK(out.size() == 2);
  CHECK(out[0].lines == std::vector<int>({3, 2}));
  CHECK(out[1].lines == std::vector<int>({1, 0}));
}

TEST(stray_lines_get_regions_and_page_numbers_are_furniture) {
  std::vector<Region> layout = {reg(RegionType::kText, 100, 100, 900, 300)};
  std::vector<Quad> lines = {quad(110, 110, 880, 130),
                             // two lines below every region: one stray paragraph
                             quad(110, 500, 880, 520), quad(110, 530, 700, 550),
                             // far to the side: another
                             quad(120, 800, 300, 820),
                             // a page number at the bottom
                             quad(490, 960, 510, 980)};
  std::vector<std::string> texts = {"a", "s1", "s2", "side", "- 12 -"};
  const auto out = order_regions(layout, lines, texts, 1000, 1000);
  CHECK(each_line_once(out, lines.size()));
  CHECK(out.size() == 4);
  CHECK(out[0].from_layout && out[0].lines == std::vector<int>({0}));
  CHECK(!out[1].from_layout && out[1].type == RegionType::kText &&
        out[1].lines == std::vector<int>({1, 2}));
  CHECK(!out[2].from_layout && out[2].lines == std::vector<int>({3}));
  CHECK(out[3].type == RegionType::kPageNumber && out[3].furniture);
}

TEST(text_that_opens_a_caption_beside_a_figure_or_table_is_its_caption) {
  // A figure with "Figure 3. ..." read as text below it, a table with "Table 2 shows ..." (a
  // sentence, no caption) below it, and "Table IV: ..." far from any table.
  std::vector<Region> layout = {
      reg(RegionType::kFigure, 100, 100, 900, 400), reg(RegionType::kText, 100, 410, 900, 440),
      reg(RegionType::kTable, 100, 500, 900, 700), reg(RegionType::kText, 100, 710, 900, 740),
      reg(RegionType::kText, 100, 800, 900, 830)};  // above the bottom furniture band
  std::vector<Quad> lines = {quad(110, 415, 880, 435), quad(110, 715, 880, 735),
                             quad(110, 805, 880, 825)};
  std::vector<std::string> texts = {"Figure 3. Results on the test set", "Table 2 shows the costs",
                                    "Table IV: the costs"};
  const auto out = order_regions(layout, lines, texts, 1000, 1000);
  CHECK(out.size() == 5);
  CHECK(out[1].type == RegionType::kFigureCaption && out[1].caption_of == 0);
  CHECK(out[3].type == RegionType::kText && out[3].caption_of == -1);
  CHECK(out[4].type == RegionType::kText && out[4].caption_of == -1);
}

TEST(an_equations_number_beside_it_joins_it) {
  std::vector<Region> layout = {reg(RegionType::kEquation, 300, 100, 500, 140),
                                reg(RegionType::kText, 850, 105, 890, 135),
                                reg(RegionType::kText, 850, 300, 890, 330)};
  std::vector<Quad> lines = {quad(310, 110, 490, 130), quad(852, 110, 888, 130),
                             quad(852, 305, 888, 325)};
  std::vector<std::string> texts = {"E = mc2", "(1)", "(2)"};  // (2): no equation beside it
  const auto out = order_regions(layout, lines, texts, 1000, 1000);
  CHECK(each_line_once(out, lines.size()));
  CHECK(out.size() == 2);
  CHECK(out[0].type == RegionType::kEquation && out[0].lines == std::vector<int>({0, 1}));
  CHECK(out[0].box.x1 == 890.f);
  CHECK(out[1].type == RegionType::kText && out[1].lines == std::vector<int>({2}));
}

namespace {

// A borderless table's cells as OCR lines: rows x cols cells of height 30, 42 apart, each
// `cell_w` wide at columns `pitch` apart from (x, y); texts from `words` in turn.
void grid_lines(std::vector<Quad>& lines, std::vector<std::string>& texts, float x, float y,
                int rows, int cols, float cell_w, const std::vector<std::string>& words,
                float pitch = 200.f) {
  std::size_t k = 0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c, ++k) {
      const float x0 = x + pitch * c, y0 = y + 42.f * r;
      lines.push_back(quad(x0, y0, x0 + cell_w, y0 + 30));
      texts.push_back(words[k % words.size()]);
    }
}

std::size_t count_type(const std::vector<Region>& out, RegionType t) {
  std::size_t n = 0;
  for (const Region& r : out) n += r.type == t;
  return n;
}

}  // namespace

TEST(a_text_region_holding_a_grid_of_cells_is_a_table) {
  // A borderless table the layout model calls text: 5 rows of 4 short cells.
  std::vector<Region> layout = {reg(RegionType::kText, 90, 90, 910, 320)};
  std::vector<Quad> lines;
  std::vector<std::string> texts;
  grid_lines(lines, texts, 100, 100, 5, 4, 90, {"Method", "0.81", "North", "12%", "45.1"});
  const auto out = order_regions(layout, lines, texts, 1000, 1000);
  CHECK(each_line_once(out, lines.size()));
  CHECK(out.size() == 1);
  CHECK(out[0].type == RegionType::kTable && out[0].from_layout);
  CHECK(out[0].lines.size() == 20);
}

TEST(a_text_region_with_a_paragraph_and_a_grid_is_split) {
  // A paragraph of 3 lines, then a 4 x 3 grid (cells split from whole lines by their pieces:
  // each row is one OCR line with wide word gaps), then a line of text.
  std::vector<Region> layout = {reg(RegionType::kText, 90, 90, 910, 600)};
  std::vector<Quad> lines;
  std::vector<std::string> texts;
  std::vector<std::vector<BoxF>> pieces;
  for (int k = 0; k < 3; ++k) {
    lines.push_back(quad(100, 100 + 42.f * k, 900, 130 + 42.f * k));
    texts.push_back("the running text of a paragraph");
    pieces.push_back({});
  }
  for (int r = 0; r < 4; ++r) {
    const float y = 260 + 42.f * r;
    lines.push_back(quad(100, y, 590, y + 30));
    texts.push_back("Region 3,508 90%");
    pieces.push_back({{100, y, 220, y + 30}, {300, y, 390, y + 30}, {500, y, 590, y + 30}});
  }
  lines.push_back(quad(100, 500, 900, 530));
  texts.push_back("more running text below the table");
  pieces.push_back({});
  const auto out = order_regions(layout, lines, texts, 1000, 1000, {}, pieces);
  CHECK(each_line_once(out, lines.size()));
  CHECK(out.size() == 3);
  CHECK(out[0].type == RegionType::kText && out[0].lines == std::vector<int>({0, 1, 2}));
  CHECK(out[1].type == RegionType::kTable && out[1].lines == std::vector<int>({3, 4, 5, 6}));
  CHECK(out[1].box.y0 == 260.f && out[1].box.x1 == 590.f);
  CHECK(out[2].type == RegionType::kText && out[2].lines == std::vector<int>({7}));
  // Without the pieces the rows are one long line each: no grid, one text region.
  const auto whole = order_regions(layout, lines, texts, 1000, 1000);
  CHECK(whole.size() == 1 && whole[0].type == RegionType::kText);
}

TEST(equations_and_figures_holding_a_grid_of_words_are_tables) {
  std::vector<Region> layout = {reg(RegionType::kEquation, 90, 90, 910, 300),
                                reg(RegionType::kFigure, 90, 400, 910, 610)};
  std::vector<Quad> lines;
  std::vector<std::string> texts;
  grid_lines(lines, texts, 100, 100, 4, 4, 90, {"方法", "5,497", "西部", "87.8"});
  grid_lines(lines, texts, 100, 410, 4, 4, 90, {"Site", "0.5", "East", "7"});
  const auto out = order_regions(layout, lines, texts, 1000, 1000);
  CHECK(each_line_once(out, lines.size()));
  CHECK(out.size() == 2);
  CHECK(out[0].type == RegionType::kTable && out[0].box.x0 == 90.f);
  CHECK(out[1].type == RegionType::kTable && out[1].box.y1 == 610.f);
}

TEST(a_figure_holding_a_caption_and_a_grid_gives_the_caption_and_the_table) {
  std::vector<Region> layout = {reg(RegionType::kFigure, 90, 60, 910, 300)};
  std::vector<Quad> lines = {quad(100, 65, 600, 90)};
  std::vector<std::string> texts = {"Table 2: the costs"};
  grid_lines(lines, texts, 100, 100, 4, 4, 90, {"Site", "0.5", "East", "7"});
  const auto out = order_regions(layout, lines, texts, 1000, 1000);
  CHECK(each_line_once(out, lines.size()));
  CHECK(out.size() == 2);
  CHECK(out[0].type == RegionType::kTableCaption && out[0].lines == std::vector<int>({0}));
  CHECK(out[1].type == RegionType::kTable && out[1].lines.size() == 16);
  CHECK(out[1].box.x0 == 90.f && out[1].box.x1 == 910.f && out[1].box.y0 == 100.f &&
        out[1].box.y1 == 300.f);
}

TEST(running_text_matrices_and_charts_are_no_tables) {
  std::vector<Region> layout;
  std::vector<Quad> lines;
  std::vector<std::string> texts;
  // Three columns of body text inside one text region (lines 250 px wide, 30 high: running
  // text, longer than cells).
  layout.push_back(reg(RegionType::kText, 90, 40, 910, 260));
  grid_lines(lines, texts, 100, 50, 5, 3, 250, {"the survey found that most households"}, 280);
  // Two columns of body text: two pieces a row.
  layout.push_back(reg(RegionType::kText, 90, 290, 910, 500));
  grid_lines(lines, texts, 100, 300, 5, 2, 150, {"prefer bills"});
  // A matrix in an equation: numbers only.
  layout.push_back(reg(RegionType::kEquation, 90, 530, 910, 700));
  grid_lines(lines, texts, 100, 540, 3, 3, 40, {"1", "0", "-2", "x"});
  // A justified paragraph: one piece a line.
  layout.push_back(reg(RegionType::kText, 90, 720, 910, 900));
  for (int k = 0; k < 4; ++k) {
    lines.push_back(quad(100, 730 + 42.f * k, 900, 760 + 42.f * k));
    texts.push_back("a justified line of running text");
  }
  // A chart: tick labels in one column and one row.
  layout.push_back(reg(RegionType::kFigure, 1000, 40, 1900, 700));
  for (int k = 0; k < 5; ++k) {
    lines.push_back(quad(1010, 60 + 100.f * k, 1050, 90 + 100.f * k));
    texts.push_back(std::to_string(10 * k) + " units");
    lines.push_back(quad(1100 + 150.f * k, 650, 1180 + 150.f * k, 680));
    texts.push_back("Year " + std::to_string(2000 + k));
  }
  const auto out = order_regions(layout, lines, texts, 2000, 1000);
  CHECK(each_line_once(out, lines.size()));
  CHECK(count_type(out, RegionType::kTable) == 0);
  CHECK(count_type(out, RegionType::kEquation) == 1);
  CHECK(count_type(out, RegionType::kFigure) == 1);
}

TEST(a_grid_among_stray_lines_is_a_table) {
  // No region at all: a paragraph of stray lines and, below it, a 4 x 5 grid of stray cells.
  std::vector<Quad> lines;
  std::vector<std::string> texts;
  for (int k = 0; k < 3; ++k) {
    lines.push_back(quad(100, 100 + 42.f * k, 900, 130 + 42.f * k));
    texts.push_back("a stray paragraph of running text");
  }
  grid_lines(lines, texts, 100, 300, 4, 5, 100, {"Site", "0.801", "East", "3,195", "46%"});
  const auto out = order_regions({}, lines, texts, 1100, 1000);
  CHECK(each_line_once(out, lines.size()));
  CHECK(out.size() == 2);
  CHECK(out[0].type == RegionType::kText && out[0].lines.size() == 3);
  CHECK(out[1].type == RegionType::kTable && !out[1].from_layout && out[1].lines.size() == 20);
}

TEST(regions_inside_tables_and_figures_and_duplicates_are_dropped) {
  std::vector<Region> layout = {reg(RegionType::kTable, 100, 100, 900, 500, 0.8f),
                                reg(RegionType::kText, 120, 120, 400, 200, 0.95f),  // in the table
                                reg(RegionType::kText, 100, 600, 900, 800, 0.9f),
                                reg(RegionType::kTitle, 101, 601, 899, 799, 0.6f),  // duplicate
                                reg(RegionType::kText, 100, 850, 900, 950, 0.9f)};  // no lines
  std::vector<Quad> lines = {quad(130, 130, 390, 150), quad(110, 610, 880, 630)};
  std::vector<std::string> texts = {"cell", "para"};
  const auto out = order_regions(layout, lines, texts, 1000, 1000);
  CHECK(out.size() == 2);
  CHECK(out[0].type == RegionType::kTable && out[0].lines == std::vector<int>({0}));
  CHECK(out[1].type == RegionType::kText && out[1].lines == std::vector<int>({1}));
}

TEST(hostile_regions_give_a_bounded_result) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-200.f, 1200.f);
  std::vector<Region> layout;
  // Thousands of random, overlapping regions of every type; NaN, infinite, inverted, zero-size.
  for (int i = 0; i < 5000; ++i)
    layout.push_back(reg(static_cast<RegionType>(i % kRegionTypeCount), u(rng), u(rng), u(rng),
                         u(rng), u(rng) / 1000.f));
  layout.push_back(reg(RegionType::kText, nan, 0, 10, 10));
  layout.push_back(reg(RegionType::kText, 0, 0, inf, 10));
  layout.push_back(reg(RegionType::kText, 5, 5, 5, 5));
  layout.push_back(reg(RegionType::kText, 0, 0, 100, 100, nan));
  std::vector<Quad> lines;
  std::vector<std::string> texts;
  for (int i = 0; i < 3000; ++i) {
    const float x = u(rng), y = u(rng);
    lines.push_back(quad(x, y, x + 50 + u(rng) / 10, y + 12));
    texts.push_back(std::to_string(i));
  }
  lines.push_back(quad(nan, nan, nan, nan));
  texts.push_back("nan");
  const auto t0 = std::chrono::steady_clock::now();
  const auto out = order_regions(layout, lines, texts, 1000, 1000);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("5004 regions, 3001 lines: %zu regions out in %.2f s\n", out.size(), s);
  CHECK(each_line_once(out, lines.size()));
  for (const Region& r : out) {
    CHECK(std::isfinite(r.box.x0) && std::isfinite(r.box.y1));
    CHECK(r.box.x0 >= 0.f && r.box.x1 <= 1000.f && r.box.y0 >= 0.f && r.box.y1 <= 1000.f);
    CHECK(r.caption_of < static_cast<int>(out.size()));
  }
  // All regions the same box: one is kept.
  std::vector<Region> same(3000, reg(RegionType::kText, 10, 10, 500, 500));
  const auto one = order_regions(same, {quad(20, 20, 400, 40)}, {"x"}, 1000, 1000);
  CHECK(one.size() == 1 && one[0].lines.size() == 1);
  // Nothing at all.
  CHECK(order_regions({}, {}, {}, 1000, 1000).empty());
  // Lines without a layout, and a page of zero size.
  CHECK(each_line_once(order_regions({}, lines, texts, 0, 0), lines.size()));
}

TEST(many_regions_are_ordered_in_bands) {
  // More than max_ordered regions: rows top to bottom, left to right (bounded time).
  std::vector<Region> layout;
  std::vector<Quad> lines;
  std::vector<std::string> texts;
  for (int r = 0; r < 30; ++r)
    for (int c = 0; c < 20; ++c) {
      const float x = 10.f + c * 50, y = 10.f + r * 30;
      layout.push_back(reg(RegionType::kText, x, y, x + 40, y + 20));
      lines.push_back(quad(x + 2, y + 2, x + 38, y + 18));
      texts.push_back(std::to_string(r * 20 + c));
    }
  ReadingOrderParams p;
  p.max_ordered = 100;
  const auto out = order_regions(layout, lines, texts, 1100, 1000, p);
  CHECK(out.size() == 600);
  bool in_order = true;
  for (std::size_t k = 0; k < out.size(); ++k)
    in_order = in_order && out[k].lines.size() == 1 && out[k].lines[0] == static_cast<int>(k);
  CHECK(in_order);
}

// ---- PicoDet decoding -----------------------------------------------------------------------

namespace {

struct Heads {
  std::vector<std::vector<float>> scores, dist;
  std::vector<LayoutLevel> levels;
};

// An in_w x in_h input's four levels (strides 8..64), all scores `base`, distributions peaked
// at bin 0.
Heads heads(int in_w, int in_h, int classes, int bins, float base) {
  Heads h;
  for (int s : {8, 16, 32, 64}) {
    const int gw = (in_w + s - 1) / s, gh = (in_h + s - 1) / s;
    h.scores.emplace_back(static_cast<std::size_t>(gw) * gh * classes, base);
    std::vector<float> d(static_cast<std::size_t>(gw) * gh * 4 * bins, -20.f);
    for (std::size_t i = 0; i < d.size(); i += bins) d[i] = 20.f;
    h.dist.push_back(std::move(d));
  }
  const int strides[] = {8, 16, 32, 64};
  for (int i = 0; i < 4; ++i) {
    LayoutLevel lv;
    lv.scores = h.scores[i].data();
    lv.dist = h.dist[i].data();
    lv.cells = static_cast<std::int64_t>(h.scores[i].size() / classes);
    lv.stride = strides[i];
    lv.grid_w = (in_w + strides[i] - 1) / strides[i];
    h.levels.push_back(lv);
  }
  return h;
}

}  // namespace

TEST(layout_strides_follow_the_grid) {
  CHECK(layout_stride_for(7600, 608, 800) == 8);
  CHECK(layout_stride_for(1900, 608, 800) == 16);
  CHECK(layout_stride_for(475, 608, 800) == 32);
  CHECK(layout_stride_for(130, 608, 800) == 64);
  CHECK(layout_stride_for(131, 608, 800) == 0);
}

TEST(a_box_is_decoded_from_its_cell_and_distances) {
  const int classes = 3, bins = 8;
  Heads h = heads(608, 800, classes, bins, 0.f);
  // Level stride 32 (grid 19 wide): cell (row 5, col 4), class 2, distances l=2, t=1, r=3, b=4
  // bins (expected values of one-hot distributions) -> centre (144, 176).
  const std::size_t cell = 5 * 19 + 4;
  h.scores[2][cell * classes + 2] = 0.9f;
  float* d = h.dist[2].data() + cell * 4 * bins;
  const int want_bins[4] = {2, 1, 3, 4};
  for (int side = 0; side < 4; ++side) {
    for (int b = 0; b < bins; ++b) d[side * bins + b] = -20.f;
    d[side * bins + want_bins[side]] = 20.f;
  }
  LayoutParams p;
  // The image is twice the input's size: boxes scale by 2.
  const auto out = layout_boxes(h.levels, classes, bins, 608, 800, 1216, 1600, p);
  CHECK(out.size() == 1);
  if (out.size() == 1) {
    CHECK(out[0].cls == 2);
    CHECK_NEAR(out[0].score, 0.9, 1e-6);
    CHECK_NEAR(out[0].box.x0, (144 - 64) * 2, 1e-2);
    CHECK_NEAR(out[0].box.y0, (176 - 32) * 2, 1e-2);
    CHECK_NEAR(out[0].box.x1, (144 + 96) * 2, 1e-2);
    CHECK_NEAR(out[0].box.y1, (176 + 128) * 2, 1e-2);
  }
}

TEST(nms_keeps_the_best_of_overlapping_boxes_per_class) {
  const int classes = 2, bins = 8;
  Heads h = heads(608, 800, classes, bins, 0.f);
  // Two neighbouring stride-8 cells of class 0 with the same big distances: one box kept; the
  // same cell as class 1: kept too (NMS is per class).
  float* d = h.dist[0].data();
  for (std::size_t c : {std::size_t{100}, std::size_t{101}}) {
    for (int side = 0; side < 4; ++side) {
      for (int b = 0; b < bins; ++b) d[(c * 4 + side) * bins + b] = -20.f;
      d[(c * 4 + side) * bins + 7] = 20.f;
    }
  }
  h.scores[0][100 * classes + 0] = 0.8f;
  h.scores[0][101 * classes + 0] = 0.7f;
  h.scores[0][101 * classes + 1] = 0.6f;
  LayoutParams p;
  const auto out = layout_boxes(h.levels, classes, bins, 608, 800, 608, 800, p);
  CHECK(out.size() == 2);
  if (out.size() == 2) {
    CHECK(out[0].cls == 0 && std::fabs(out[0].score - 0.8f) < 1e-6f);
    CHECK(out[1].cls == 1);
  }
}

TEST(hostile_scores_give_a_bounded_result) {
  const int classes = 10, bins = 8;
  // Every cell of every class sure: bounded by the per-level top-k, NMS candidates, the cap.
  Heads h = heads(608, 800, classes, bins, 1.f);
  LayoutParams p;
  const auto t0 = std::chrono::steady_clock::now();
  auto out = layout_boxes(h.levels, classes, bins, 608, 800, 608, 800, p);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("all scores 1: %zu boxes in %.3f s\n", out.size(), s);
  CHECK(out.size() <= static_cast<std::size_t>(p.max_regions));
  // NaN and infinite values: skipped, never a box with a non-finite coordinate.
  Heads bad = heads(608, 800, classes, bins, std::numeric_limits<float>::quiet_NaN());
  CHECK(layout_boxes(bad.levels, classes, bins, 608, 800, 608, 800, p).empty());
  Heads inf = heads(608, 800, classes, bins, 0.9f);
  for (auto& d : inf.dist)
    for (float& v : d) v = std::numeric_limits<float>::infinity();
  out = layout_boxes(inf.levels, classes, bins, 608, 800, 608, 800, p);
  for (const LayoutBox& b : out)
    CHECK(std::isfinite(b.box.x0) && std::isfinite(b.box.y0) && std::isfinite(b.box.x1) &&
          std::isfinite(b.box.y1));
  // Nonsense sizes: nothing.
  CHECK(layout_boxes(h.levels, 0, bins, 608, 800, 608, 800, p).empty());
  CHECK(layout_boxes(h.levels, classes, bins, 608, 800, 0, 800, p).empty());
}

TEST_MAIN()
