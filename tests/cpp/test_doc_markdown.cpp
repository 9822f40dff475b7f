// Lists as the core decides them (document/structure.cpp: find_list_items) and the Markdown
// writer (document/markdown.cpp) on hand-made pages: lists (bullets, numbers, markers),
// references one per paragraph, what is not a list.
#include <cstdio>
#include <string>
#include <vector>

#include "check.h"
#include "document/reading_order.h"
#include "edgeocr/document.h"

using namespace edgeocr;

namespace {

// A page of one region of `type` holding `texts` as its lines.
DocumentResult page(RegionType type, const std::vector<std::string>& texts) {
  DocumentResult doc;
  Region r;
  r.type = type;
  for (const std::string& t : texts) {
    OcrLine line;
    line.text = t;
    r.lines.push_back(static_cast<int>(doc.ocr.lines.size()));
    doc.ocr.lines.push_back(line);
  }
  doc.regions.push_back(r);
  PageLines lines;
  for (const OcrLine& l : doc.ocr.lines) lines.texts.push_back(l.text);
  find_list_items(doc.regions, lines);
  return doc;
}

// Equal, or both printed.
bool same(const std::string& got, const std::string& want) {
  if (got != want) std::printf("got:\n%s\nwant:\n%s\n", got.c_str(), want.c_str());
  return got == want;
}

}  // namespace

TEST(bullets_are_a_list_and_lines_after_an_item_go_on_it) {
  const auto md = to_markdown(page(RegionType::kText, {"\xE2\x80\xA2 one", "more", "- two"}));
  CHECK(same(md, std::string("- one more\n- two\n")));
}

TEST(numbered_lines_are_an_ordered_list_with_their_numbers) {
  const auto md =
      to_markdown(page(RegionType::kText, {"1. A short warm-up run precedes every", "measurement.",
                                           "2) The data.", "3. The baselines."}));
  CHECK(same(md, std::string("1. A short warm-up run precedes every measurement.\n2. The data.\n"
                             "3. The baselines.\n")));
}

TEST(a_number_out_of_sequence_goes_on_the_item_before) {
  const auto md = to_markdown(page(RegionType::kText, {"1. Founded in", "12. it grew", "2. Then"}));
  CHECK(same(md, std::string("1. Founded in 12. it grew\n2. Then\n")));
}

TEST(numbering_from_1_again_is_a_list_of_its_own) {
  const auto md = to_markdown(page(RegionType::kText, {"1. a", "2. b", "1. c", "2. d"}));
  CHECK(same(md, std::string("1. a\n2. b\n\n1. c\n2. d\n")));
}

TEST(markers_are_kept_on_their_items) {
  const auto md = to_markdown(page(RegionType::kList, {"(i) first", "(ii) second"}));
  CHECK(same(md, std::string("- (i) first\n- (ii) second\n")));
}

TEST(references_are_a_paragraph_each) {
  const auto md = to_markdown(page(
      RegionType::kReference, {"[1] L. Silva. Fast Document", "Parsing. 1995.", "[2] F. Novak."}));
  CHECK(same(md, std::string("[1] L. Silva. Fast Document Parsing. 1995.\n\n[2] F. Novak.\n")));
}

TEST(one_numbered_line_in_a_paragraph_is_no_list) {
  const auto md = to_markdown(page(RegionType::kText, {"1. Introduction to the", "data we use"}));
  CHECK(same(md, std::string("1\\. Introduction to the data we use\n")));
  const auto mid = to_markdown(page(RegionType::kText, {"We counted", "1. then 2. then", "2. x"}));
  CHECK(same(mid, std::string("We counted 1. then 2. then 2. x\n")));
}

TEST_MAIN()
