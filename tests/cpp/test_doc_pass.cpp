// The whole-document pass (document/document_pass.h: finish_document) and the document's
// Markdown (document_markdown) on hand-made pages: running headers and footers with changing
// numbers, page numbers in each form and in sequence, continued tables (the same columns and
// not), paragraphs cut by page and column breaks, one heading scale, the page's order kept, and
// 500 pages of repeated headers with thousands of margin regions (bounded: its result is
// checked here, its time by ctest's timeout).
#include <cstdio>
#include <string>
#include <vector>

#include "check.h"
#include "document/document_pass.h"
#include "edgeocr/document.h"

using namespace edgeocr;

namespace {

constexpr int kW = 1000, kH = 1400;

Quad quad(const BoxF& b) {
  Quad q;
  q.p[0] = {b.x0, b.y0};
  q.p[1] = {b.x1, b.y0};
  q.p[2] = {b.x1, b.y1};
  q.p[3] = {b.x0, b.y1};
  return q;
}

// A page being made: regions added in reading order, each with its lines stacked in its box
// (each line as wide as the box unless `last_width` says the last one's share).
struct Page {
  DocumentResult doc;
  Page() {
    doc.width = kW;
    doc.height = kH;
  }
  int add(RegionType type, BoxF box, const std::vector<std::string>& lines, float size = 20.f,
          float last_width = 1.f, bool furniture = false) {
    Region r;
    r.type = type;
    r.box = box;
    r.furniture = furniture;
    const float h = (box.y1 - box.y0) / static_cast<float>(std::max<std::size_t>(1, lines.size()));
    for (std::size_t i = 0; i < lines.size(); ++i) {
      OcrLine l;
      l.text = lines[i];
      BoxF lb{box.x0, box.y0 + h * static_cast<float>(i), box.x1,
              box.y0 + h * static_cast<float>(i + 1)};
      if (i + 1 == lines.size()) lb.x1 = box.x0 + last_width * (box.x1 - box.x0);
      l.box = quad(lb);
      r.lines.push_back(static_cast<int>(doc.ocr.lines.size()));
      doc.ocr.lines.push_back(l);
      LineStyle st;
      st.size = size;
      doc.styles.push_back(st);
    }
    doc.regions.push_back(r);
    return static_cast<int>(doc.regions.size()) - 1;
  }
  // A table of `rows` given as texts, columns at `edges` (cols + 1 x positions), in `box`.
  int table(BoxF box, const std::vector<std::vector<std::string>>& rows,
            const std::vector<float>& edges) {
    const int k = add(RegionType::kTable, box, {});
    Region& r = doc.regions[static_cast<std::size_t>(k)];
    r.has_table = true;
    r.table.rows = static_cast<int>(rows.size());
    r.table.cols = static_cast<int>(edges.size()) - 1;
    r.table.method = "grid";
    const float h = (box.y1 - box.y0) / static_cast<float>(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
      for (std::size_t c = 0; c + 1 < edges.size(); ++c) {
        TableCell cell;
        cell.row = static_cast<int>(i);
        cell.col = static_cast<int>(c);
        cell.box = {edges[c], box.y0 + h * static_cast<float>(i), edges[c + 1],
                    box.y0 + h * static_cast<float>(i + 1)};
        cell.text = c < rows[i].size() ? rows[i][c] : "";
        cell.header = i == 0;
        r.table.cells.push_back(cell);
      }
    return k;
  }
};

std::vector<DocumentResult*> pointers(std::vector<Page>& pages) {
  std::vector<DocumentResult*> out;
  for (Page& p : pages) out.push_back(&p.doc);
  return out;
}

std::string markdown_of(const std::vector<Page>& pages) {
  std::vector<const DocumentResult*> ps;
  for (const Page& p : pages) ps.push_back(&p.doc);
  return document_markdown(ps);
}

bool has(const std::string& s, const std::string& part) {
  if (s.find(part) == std::string::npos) {
    std::printf("missing %s in:\n%s\n", part.c_str(), s.c_str());
    return false;
  }
  return true;
}

// The region holding `text` as its first line, or null.
const Region* region_with(const DocumentResult& d, const std::string& text) {
  for (const Region& r : d.regions)
    if (!r.lines.empty() && d.ocr.lines[static_cast<std::size_t>(r.lines[0])].text == text)
      return &r;
  return nullptr;
}

// The page keeps DocumentResult's order: top furniture, body, bottom furniture; every region's
// lines contiguous and in region order, styles one per line.
bool in_order(const DocumentResult& d) {
  int stage = 0;  // 0 top furniture, 1 body, 2 bottom furniture
  int next_line = 0;
  for (const Region& r : d.regions) {
    const int s = !r.furniture ? 1 : (r.box.y0 + r.box.y1 < static_cast<float>(d.height) ? 0 : 2);
    if (s < stage) return false;
    stage = s;
    for (int i : r.lines)
      if (i != next_line++) return false;
  }
  return next_line == static_cast<int>(d.ocr.lines.size()) && d.styles.size() == d.ocr.lines.size();
}

// A body page: a header line at the top (as the page rule left it: body text), two
// paragraphs, a footer line at the bottom.
Page report_page(int n, const std::string& header, float header_x0 = 100.f) {
  Page p;
  p.add(RegionType::kText, {header_x0, 40, header_x0 + 400, 70}, {header});
  p.add(RegionType::kText, {100, 200, 900, 500},
        {"The first paragraph of page " + std::to_string(n) + " says", "what it says in full."});
  p.add(RegionType::kText, {100, 600, 900, 900}, {"Another paragraph.", "It ends here."}, 20.f,
        0.5f);
  return p;
}

}  // namespace

TEST(running_headers_with_changing_numbers_are_furniture) {
  std::vector<Page> pages;
  for (int n = 1; n <= 4; ++n) {
    pages.push_back(report_page(n, "Annual Report 2019 | Page " + std::to_string(n)));
    pages.back().add(RegionType::kText, {450, 1340, 550, 1365}, {"- " + std::to_string(n) + " -"});
  }
  std::vector<DocumentResult*> ps = pointers(pages);
  finish_document(ps);
  for (const Page& p : pages) {
    const Region& top = p.doc.regions.front();
    CHECK(top.furniture && top.type == RegionType::kHeader);
    const Region& bottom = p.doc.regions.back();
    CHECK(bottom.furniture && bottom.type == RegionType::kPageNumber);
    int body = 0;
    for (const Region& r : p.doc.regions) body += r.furniture ? 0 : 1;
    CHECK(body == 2);
    CHECK(in_order(p.doc));
  }
  const std::string md = markdown_of(pages);
  CHECK(md.find("Annual Report") == std::string::npos && md.find("- 3 -") == std::string::npos);
  CHECK(has(md, "<!-- page 2 -->"));
}

TEST(alternating_headers_and_roman_numbers_repeat_on_every_other_page) {
  // Even pages carry "Methodology" at the right, odd ones "Healthy Lives" at the left; page
  // numbers in roman numerals alternate sides.
  std::vector<Page> pages;
  const char* roman[] = {"i", "ii", "iii", "iv", "v", "vi"};
  for (int n = 0; n < 6; ++n) {
    const bool even = n % 2 == 0;
    pages.push_back(report_page(n, even ? "Methodology" : "Healthy Lives", even ? 500.f : 100.f));
    const float x = even ? 850.f : 100.f;
    pages.back().add(RegionType::kText, {x, 1330, x + 50, 1360}, {roman[n]});
  }
  std::vector<DocumentResult*> ps = pointers(pages);
  finish_document(ps);
  for (const Page& p : pages) {
    CHECK(p.doc.regions.front().furniture);
    CHECK(p.doc.regions.back().type == RegionType::kPageNumber);
    CHECK(in_order(p.doc));
  }
}

TEST(text_on_one_page_or_mid_page_stays_in_the_body) {
  std::vector<Page> pages;
  pages.push_back(report_page(1, "Introduction to the method"));
  pages.push_back(report_page(2, "A different first line"));
  // The same text on both pages, but in the middle of the page: not furniture.
  for (Page& p : pages) p.add(RegionType::kText, {100, 700, 500, 730}, {"Note: see above"});
  std::vector<DocumentResult*> ps = pointers(pages);
  finish_document(ps);
  for (const Page& p : pages)
    for (const Region& r : p.doc.regions) CHECK(!r.furniture);
}

TEST(page_numbers_in_each_form_in_sequence_are_page_numbers) {
  // Alone on their line at alternating sides (so no place repeats): the sequence decides.
  const std::vector<std::vector<std::string>> forms = {{"3", "4"},
                                                       {"- 3 -", "- 4 -"},
                                                       {"Page 3 of 10", "Page 4 of 10"},
                                                       {"第3页", "第4页"},
                                                       {"第 3 页 共 6 页", "第 4 页 共 6 页"},
                                                       {"iv", "v"},
                                                       {"47698", "47699"}};
  for (const auto& form : forms) {
    std::vector<Page> pages;
    for (int n = 0; n < 2; ++n) {
      pages.push_back(report_page(n, n == 0 ? "A first line" : "Another first line"));
      const float x = n == 0 ? 100.f : 800.f;
      pages.back().add(RegionType::kText, {x, 1340, x + 120, 1365},
                       {form[static_cast<std::size_t>(n)]});
    }
    std::vector<DocumentResult*> ps = pointers(pages);
    finish_document(ps);
    for (const Page& p : pages) {
      const Region& last = p.doc.regions.back();
      if (!(last.furniture && last.type == RegionType::kPageNumber))
        std::printf("not a page number: %s\n", form[0].c_str());
      CHECK(last.furniture && last.type == RegionType::kPageNumber);
    }
  }
  // Out of sequence (3 then 7), at different places: left in the body.
  std::vector<Page> pages;
  for (int n = 0; n < 2; ++n) {
    pages.push_back(report_page(n, n == 0 ? "A first line" : "Another first line"));
    const float x = n == 0 ? 100.f : 800.f;
    pages.back().add(RegionType::kText, {x, 1340, x + 60, 1365}, {n == 0 ? "3" : "7"});
  }
  std::vector<DocumentResult*> ps = pointers(pages);
  finish_document(ps);
  for (const Page& p : pages) CHECK(!p.doc.regions.back().furniture);
}

TEST(a_header_line_carrying_the_page_number_is_a_header) {
  // "Methodology 9" then "Results 10": the words differ, the numbers run on.
  std::vector<Page> pages;
  pages.push_back(report_page(0, "Methodology 9", 600.f));
  pages.push_back(report_page(1, "10 Results", 100.f));
  std::vector<DocumentResult*> ps = pointers(pages);
  finish_document(ps);
  for (const Page& p : pages) {
    CHECK(p.doc.regions.front().furniture);
    CHECK(p.doc.regions.front().type == RegionType::kHeader);
  }
}

TEST(a_table_continued_with_the_same_columns_is_one_table) {
  const std::vector<float> edges = {100, 300, 600, 900};
  std::vector<Page> pages(2);
  pages[0].add(RegionType::kText, {100, 100, 900, 200}, {"Shareholders at the end of the period:"});
  pages[0].table(
      {100, 300, 900, 1300},
      {{"Name", "Shares", "Kind"}, {"Zhang", "3,992,100", "A"}, {"Li", "2,431,359", "A"}}, edges);
  pages[1].add(RegionType::kText, {100, 40, 500, 70}, {"Report 2018"}, 20.f, 1.f, true);
  pages[1].add(RegionType::kTableCaption, {400, 100, 600, 130}, {"(continued)"});
  // The header repeated, columns a few pixels off.
  const std::vector<float> edges2 = {95, 305, 598, 903};
  pages[1].table({100, 150, 900, 600}, {{"Name", "Shares", "Kind"}, {"Wang", "1,000", "B"}},
                 edges2);
  pages[1].add(RegionType::kText, {100, 700, 900, 800}, {"After the table."});
  std::vector<DocumentResult*> ps = pointers(pages);
  finish_document(ps);
  const Region& t2 = pages[1].doc.regions[2];
  CHECK(t2.continues && t2.joined == "table");
  const std::string md = markdown_of(pages);
  CHECK(has(md,
            "| Name | Shares | Kind |\n| --- | --- | --- |\n| Zhang | 3,992,100 | A |\n"
            "| Li | 2,431,359 | A |\n| Wang | 1,000 | B |"));
  CHECK(md.find("continued") == std::string::npos);  // the caption goes with the join
  size_t names = 0;
  for (size_t at = md.find("Name"); at != std::string::npos; at = md.find("Name", at + 1)) ++names;
  CHECK(names == 1);  // the repeated header row is left out
  // Each page's own Markdown keeps its own rows.
  CHECK(has(to_markdown(pages[1].doc), "| Wang | 1,000 | B |"));
  CHECK(to_markdown(pages[1].doc).find("Zhang") == std::string::npos);
}

TEST(a_table_with_other_columns_is_not_joined) {
  std::vector<Page> pages(2);
  pages[0].table({100, 300, 900, 1300}, {{"a", "b", "c"}, {"1", "2", "3"}}, {100, 300, 600, 900});
  // Same count, other boundaries.
  pages[1].table({100, 150, 900, 600}, {{"x", "y", "z"}, {"4", "5", "6"}}, {100, 500, 700, 900});
  // And a table with another count on a third page.
  Page third;
  third.table({100, 150, 900, 600}, {{"p", "q"}, {"7", "8"}}, {100, 300, 900});
  pages.push_back(third);
  std::vector<DocumentResult*> ps = pointers(pages);
  finish_document(ps);
  CHECK(!pages[1].doc.regions[0].continues);
  CHECK(!pages[2].doc.regions[0].continues);
  // A table followed by a paragraph on its page is not continued either.
  std::vector<Page> more(2);
  more[0].table({100, 300, 900, 1000}, {{"a", "b", "c"}}, {100, 300, 600, 900});
  more[0].add(RegionType::kText, {100, 1100, 900, 1200}, {"Source: ours."});
  more[1].table({100, 150, 900, 600}, {{"1", "2", "3"}}, {100, 300, 600, 900});
  std::vector<DocumentResult*> ms = pointers(more);
  finish_document(ms);
  CHECK(!more[1].doc.regions[0].continues);
}

TEST(a_paragraph_cut_by_a_page_break_is_one_paragraph) {
  std::vector<Page> pages(2);
  pages[0].add(
      RegionType::kText, {100, 1000, 900, 1300},
      {"A paragraph runs to the end of the page and", "its last line is full but the sen-"});
  pages[0].add(RegionType::kText, {480, 1340, 520, 1365}, {"1"}, 20.f, 1.f, true);
  pages[1].add(RegionType::kText, {100, 100, 900, 300}, {"tence goes on here. It ends.", "Yes."},
               20.f, 0.3f);
  pages[1].add(RegionType::kText, {100, 400, 900, 600}, {"A new paragraph.", "Done."}, 20.f, 0.3f);
  std::vector<DocumentResult*> ps = pointers(pages);
  finish_document(ps);
  CHECK(pages[1].doc.regions[0].continues && pages[1].doc.regions[0].joined == "paragraph");
  CHECK(!pages[1].doc.regions[1].continues);
  const std::string md = markdown_of(pages);
  CHECK(has(md,
            "A paragraph runs to the end of the page and its last line is full but the "
            "sentence goes on here. It ends. Yes.\n\n<!-- page 2 -->\n\nA new paragraph."));
  // Per page, each keeps its own half.
  CHECK(has(to_markdown(pages[1].doc), "tence goes on here."));
}

TEST(paragraphs_that_end_or_start_anew_are_not_joined) {
  std::vector<std::vector<std::string>> cases = {
      // ends a sentence
      {"The paragraph ends", "with a full stop.", "the next starts lower case."},
      // starts upper case after a short last line (a paragraph's end)
      {"The paragraph ends", "without", "The next starts anew."},
      // a numbered heading or list after an open end
      {"Steps to take, in this order, are the", "following ones listed here",
       "2.1 Method of the work"}};
  for (const auto& c : cases) {
    std::vector<Page> pages(2);
    const float last = c[1] == "without" ? 0.2f : 1.f;
    pages[0].add(RegionType::kText, {100, 1000, 900, 1300}, {c[0], c[1]}, 20.f, last);
    pages[1].add(RegionType::kText, {100, 100, 900, 300}, {c[2], "more text of it"});
    std::vector<DocumentResult*> ps = pointers(pages);
    finish_document(ps);
    CHECK(!pages[1].doc.regions[0].continues);
  }
  // Upper case after a full last line ending in a lower-case word: goes on ("a Bachelor of" /
  // "Communications").
  std::vector<Page> pages(2);
  pages[0].add(RegionType::kText, {100, 1000, 900, 1300},
               {"Students were selected from a", "range of courses such as a Bachelor of"});
  pages[1].add(RegionType::kText, {100, 100, 900, 300}, {"Communications and Law. The", "rest."});
  std::vector<DocumentResult*> ps = pointers(pages);
  finish_document(ps);
  CHECK(pages[1].doc.regions[0].continues);
}

TEST(chinese_paragraphs_join_unless_the_first_ends_a_sentence) {
  std::vector<Page> pages(3);
  pages[0].add(
      RegionType::kText, {100, 1000, 900, 1300},
      {"神鹰集团系由原国有诸暨神鹰制衣厂改制设立，", "公司针对神鹰集团的担保取得的反抵押资产"});
  pages[1].add(RegionType::kText, {100, 100, 900, 300}, {"情况如下所述。", "其余内容。"}, 20.f,
               0.4f);
  pages[2].add(RegionType::kText, {100, 100, 900, 300}, {"新的段落开始了", "其余内容。"});
  std::vector<DocumentResult*> ps = pointers(pages);
  finish_document(ps);
  CHECK(pages[1].doc.regions[0].continues);
  CHECK(!pages[2].doc.regions[0].continues);  // page 2 ends with 。
  CHECK(has(markdown_of(pages), "反抵押资产情况如下所述。其余内容。"));
}

TEST(a_paragraph_cut_by_a_column_break_is_joined) {
  std::vector<Page> pages(1);
  pages[0].add(RegionType::kTitle, {100, 100, 900, 140}, {"Two columns"});
  pages[0].doc.regions[0].heading_level = 1;
  pages[0].add(RegionType::kText, {100, 200, 480, 1300},
               {"The left column runs down", "to its end in the middle of a"});
  pages[0].add(RegionType::kText, {520, 200, 900, 700}, {"sentence that the right column", "ends."},
               20.f, 0.3f);
  pages[0].add(RegionType::kText, {520, 800, 900, 1300}, {"Then another", "paragraph."}, 20.f,
               0.3f);
  std::vector<DocumentResult*> ps = pointers(pages);
  finish_document(ps);
  CHECK(pages[0].doc.regions[2].continues && pages[0].doc.regions[2].joined == "paragraph");
  CHECK(!pages[0].doc.regions[3].continues);
  const std::string md = markdown_of(pages);
  CHECK(has(md,
            "# Two columns\n\nThe left column runs down to its end in the middle of a "
            "sentence that the right column ends.\n\nThen another paragraph.\n"));
  // The page's own Markdown is as before.
  CHECK(has(to_markdown(pages[0].doc), "middle of a\n\nsentence"));
}

TEST(footnotes_between_the_parts_of_a_paragraph_are_passed_over) {
  // Page 1: a running header, a paragraph cut at the page's foot, footnotes in smaller type
  // under it; page 2: the same header, the paragraph goes on in the left column, footnotes
  // under it, the right column goes on with the left.
  std::vector<Page> pages(2);
  for (Page& p : pages) p.add(RegionType::kText, {100, 30, 600, 60}, {"Federal Register"});
  pages[0].add(RegionType::kText, {100, 200, 900, 1100},
               {"The paragraph runs down the page to", "the airport of Soekarno-"});
  pages[0].add(RegionType::kText, {100, 1150, 900, 1300},
               {"1 A footnote in small type.", "2 Another one."}, 12.f, 0.3f);
  pages[1].add(RegionType::kText, {100, 200, 480, 1000},
               {"Hatta in Jakarta, and the flight", "crew of the airplane"});
  pages[1].add(RegionType::kText, {100, 1100, 480, 1300}, {"3 A footnote."}, 12.f);
  pages[1].add(RegionType::kText, {520, 200, 900, 1000}, {"received an alert.", "Done."}, 20.f,
               0.4f);
  std::vector<DocumentResult*> ps = pointers(pages);
  finish_document(ps);
  // The header became furniture and moved first: the links follow the regions.
  const Region& hatta = *region_with(pages[1].doc, "Hatta in Jakarta, and the flight");
  CHECK(hatta.continues && hatta.from_previous_page);
  CHECK(hatta.continues_region >= 0 &&
        region_with(pages[0].doc, "The paragraph runs down the page to") ==
            &pages[0].doc.regions[static_cast<std::size_t>(hatta.continues_region)]);
  const Region& right = *region_with(pages[1].doc, "received an alert.");
  CHECK(right.continues && !right.from_previous_page);
  CHECK(region_with(pages[1].doc, "Hatta in Jakarta, and the flight") ==
        &pages[1].doc.regions[static_cast<std::size_t>(right.continues_region)]);
  // One paragraph across both breaks, the footnotes after it.
  const std::string md = markdown_of(pages);
  CHECK(has(md,
            "The paragraph runs down the page to the airport of Soekarno- Hatta in Jakarta, "
            "and the flight crew of the airplane received an alert. Done.\n\n"
            "1 A footnote in small type. 2 Another one.\n\n<!-- page 2 -->\n\n3 A footnote."));
}

TEST(headings_that_look_alike_get_one_level) {
  // Page 1: the title (size 40) and a section heading (size 24); page 2 has two sizes of
  // headings (24 and 18), which its page rule made 2 and 3; page 3 only size-18 headings, which
  // its page rule made 2. One scale: title 1, 24 -> 2, 18 -> 3 on every page; numbered "2.1"
  // keeps 3 (its numbering).
  std::vector<Page> pages(3);
  auto heading = [](Page& p, float y, const std::string& text, float size, int level) {
    const int k = p.add(RegionType::kTitle, {100, y, 600, y + size}, {text}, size);
    p.doc.regions[static_cast<std::size_t>(k)].heading_level = level;
  };
  heading(pages[0], 100, "The Document Title", 40.f, 1);
  heading(pages[0], 300, "Background", 24.f, 2);
  heading(pages[1], 100, "Method", 24.f, 2);
  heading(pages[1], 300, "Sampling", 18.f, 3);
  heading(pages[1], 500, "2.1 Data", 18.f, 3);
  heading(pages[2], 100, "Results", 18.f, 2);
  std::vector<DocumentResult*> ps = pointers(pages);
  finish_document(ps);
  CHECK(pages[0].doc.regions[0].heading_level == 1);
  CHECK(pages[0].doc.regions[1].heading_level == 2);
  CHECK(pages[1].doc.regions[0].heading_level == 2);
  CHECK(pages[1].doc.regions[1].heading_level == 3);
  CHECK(pages[1].doc.regions[2].heading_level == 3);
  CHECK(pages[2].doc.regions[0].heading_level == 3);
  // The largest style on several pages is no title: level 2.
  std::vector<Page> again(2);
  heading(again[0], 100, "Chapter heading", 40.f, 1);
  heading(again[1], 100, "Another chapter", 40.f, 1);
  std::vector<DocumentResult*> as = pointers(again);
  finish_document(as);
  CHECK(again[0].doc.regions[0].heading_level == 2 && again[1].doc.regions[0].heading_level == 2);
}

TEST(empty_and_failed_pages_break_every_chain) {
  std::vector<Page> pages(3);
  pages[0].add(RegionType::kText, {100, 1000, 900, 1300},
               {"A text that is cut at the", "end of the"});
  pages[2].add(RegionType::kText, {100, 100, 900, 300}, {"page and goes on", "here."});
  // Page 2 failed: a null page.
  std::vector<DocumentResult*> ps = {&pages[0].doc, nullptr, &pages[2].doc};
  finish_document(ps);
  CHECK(!pages[2].doc.regions[0].continues);
  // An empty page between them.
  std::vector<DocumentResult*> es = pointers(pages);
  finish_document(es);
  CHECK(!pages[2].doc.regions[0].continues);
  std::vector<const DocumentResult*> cs = {&pages[0].doc, nullptr, &pages[2].doc};
  CHECK(has(document_markdown(cs, {}, {4, 5, 6}), "<!-- page 5 -->\n\n<!-- page 6 -->"));
  // No pages, one page, pages of no size.
  std::vector<DocumentResult*> none;
  finish_document(none);
  Page zero;
  zero.doc.width = 0;
  zero.doc.height = 0;
  zero.add(RegionType::kText, {0, 0, 0, 0}, {"x"});
  std::vector<DocumentResult*> zs = {&zero.doc, &zero.doc};
  finish_document(zs);
  CHECK(document_markdown({}).empty());
}

TEST(one_page_without_joins_writes_as_its_own_markdown) {
  Page p = report_page(1, "Header");
  p.add(RegionType::kFigure, {100, 950, 500, 1200}, {});
  std::vector<const DocumentResult*> one = {&p.doc};
  CHECK(document_markdown(one) == to_markdown(p.doc));
  // Later pages name their figures page-N-figure-K, as Python's per-page default.
  std::vector<const DocumentResult*> two = {&p.doc, &p.doc};
  CHECK(has(document_markdown(two), "](page-2-figure-1)"));
}

TEST(five_hundred_pages_of_repeated_headers_and_crowded_margins) {
  // 500 pages: a running header and a page number each, body paragraphs, and on every tenth
  // page 2000 one-word regions crowding the bottom margin (a hostile layout).
  std::vector<Page> pages(500);
  for (int n = 0; n < 500; ++n) {
    Page& p = pages[static_cast<std::size_t>(n)];
    p.add(RegionType::kText, {100, 40, 700, 70}, {"The Same Running Header"});
    for (int k = 0; k < 8; ++k)
      p.add(RegionType::kText, {100, 150.f + 140.f * k, 900, 260.f + 140.f * k},
            {"Body text " + std::to_string(k) + " of the page.", "More."}, 20.f, 0.4f);
    if (n % 10 == 0)
      for (int k = 0; k < 2000; ++k) {
        const float x = static_cast<float>(k % 100) * 9.f,
                    y = 1250.f + static_cast<float>(k / 100) * 7.f;
        p.add(RegionType::kText, {x, y, x + 8.f, y + 6.f}, {"x"});
      }
    p.add(RegionType::kText, {480, 1370, 520, 1395}, {std::to_string(n + 1)});
  }
  std::vector<DocumentResult*> ps = pointers(pages);
  finish_document(ps);
  int headers = 0, numbers = 0;
  for (const Page& p : pages) {
    const Region* h = region_with(p.doc, "The Same Running Header");
    headers += h && h->furniture ? 1 : 0;
    numbers += p.doc.regions.back().type == RegionType::kPageNumber ? 1 : 0;
    CHECK(in_order(p.doc));
  }
  CHECK(headers == 500);
  CHECK(numbers == 500);
  // Only the margin candidates nearest the edge are keyed: most of the crowd stays in the body.
  int crowd_body = 0;
  for (const Region& r : pages[0].doc.regions)
    crowd_body += !r.furniture && !r.lines.empty() &&
                          pages[0].doc.ocr.lines[static_cast<std::size_t>(r.lines[0])].text == "x"
                      ? 1
                      : 0;
  CHECK(crowd_body >= 2000 - 8);
  std::vector<const DocumentResult*> cs(ps.begin(), ps.end());
  const std::string md = document_markdown(cs);
  CHECK(md.find("The Same Running Header") == std::string::npos);
  CHECK(has(md, "<!-- page 500 -->"));
}

TEST(pages_before_first_are_context_only) {
  // Three pages with a running header and a paragraph cut at each break; the first page is
  // given as context (already finished by a caller's earlier window): it stays as it was, the
  // others are finished with it.
  std::vector<Page> pages(3);
  for (Page& p : pages) {
    p.add(RegionType::kText, {100, 40, 600, 70}, {"The Running Header"});
    p.add(RegionType::kText, {100, 200, 900, 1300}, {"goes on from before and", "is cut again at"});
  }
  const std::string before = to_markdown(pages[0].doc);
  std::vector<DocumentResult*> ps = pointers(pages);
  finish_document(ps, DocumentRules{}, 1);
  CHECK(to_markdown(pages[0].doc) == before && !pages[0].doc.regions[0].furniture);
  CHECK(!pages[0].doc.regions[1].continues);
  for (std::size_t p = 1; p < 3; ++p) {
    CHECK(pages[p].doc.regions[0].furniture);
    const Region& body = pages[p].doc.regions[1];
    CHECK(body.continues && body.from_previous_page && body.continues_region == 1);
  }
}

TEST(the_pass_is_idempotent) {
  std::vector<Page> pages;
  for (int n = 1; n <= 3; ++n)
    pages.push_back(report_page(n, "Running title " + std::to_string(n)));
  std::vector<DocumentResult*> ps = pointers(pages);
  finish_document(ps);
  std::vector<const DocumentResult*> cs(ps.begin(), ps.end());
  const std::string once = document_markdown(cs);
  finish_document(ps);
  CHECK(document_markdown(cs) == once);
}

TEST_MAIN()
