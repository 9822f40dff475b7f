// The whole-document pass (finish_document in edgeocr/document.h): what one page cannot tell,
// read across a document's pages. Its steps, in order, each over all pages (a null page is an
// empty one, which nothing continues across):
//  1. running_furniture: a short text region in the top or bottom band whose text, numbers
//     aside (repeat_key), is at the same place on enough pages is a header or footer (a page
//     number when its text is one).
//  2. page_numbers: a page number's text in the margins (page_number_value, alone or as the
//     first or last word of a header's line) whose number goes on by one a page on a page
//     nearby is a page number (a header or footer when it carries other words).
//  3. continued_tables: a page's last body region and the next page's first (after a
//     "(continued)" caption) both tables with the same columns: the second continues.
//  4. cut_paragraphs: a text region ending mid-sentence and the next body text region, on the
//     next page or at the top of the next column, going on with it: the second continues.
//     In both, "last" and "next" pass over asides: regions in smaller type (footnotes at a
//     page's or column's foot, a margin's stamp) and figures, at most 3.
//  5. heading_levels: one heading scale for the document (heading_levels' comment).
// Then pages with new furniture are put back in the page's order (top furniture, body, bottom
// furniture; lines follow their regions). Every step compares a page with its neighbours, or
// counts keys in a hash map: O(pages x regions) time; what the pass allocates is listed on
// finish_document's definition.
#pragma once

#include <string>
#include <vector>

#include "edgeocr/document.h"

namespace edgeocr {
namespace docpass {

// A region's lines' texts joined by " " (lines out of range skipped), at most `max_bytes`
// bytes (cut at a line's end; 0: no limit).
std::string region_text(const DocumentResult& page, const Region& r, std::size_t max_bytes = 0);

// A paragraph as the Markdown writer writes it: a text or references region without list items.
bool paragraph_like(const Region& r);

// Indices of a page's body regions (not furniture), in reading order.
std::vector<int> body_of(const DocumentResult& page);

// The body region of `page` a region continuing a page break opens with: the first body region
// after at most two "(continued)" captions (continued_cue); *cues gets those captions. -1 for a
// page without body.
int first_body(const DocumentResult& page, std::vector<int>* cues = nullptr);

// The steps, in order (finish_document runs them all); pages before `first` are read, not
// changed.
void running_furniture(std::vector<DocumentResult*>& pages, const DocumentRules& rules,
                       std::size_t first);
void page_numbers(std::vector<DocumentResult*>& pages, const DocumentRules& rules,
                  std::size_t first);
void continued_tables(std::vector<DocumentResult*>& pages, const DocumentRules& rules,
                      std::size_t first);
void cut_paragraphs(std::vector<DocumentResult*>& pages, const DocumentRules& rules,
                    std::size_t first);
void heading_levels(std::vector<DocumentResult*>& pages, const DocumentRules& rules,
                    std::size_t first);

// Whether table `b` (on a page `wb` pixels wide) continues table `a` (on a page `wa` wide): the
// columns of a's last row and b's first row, same count, boundaries within column_distance.
bool same_columns(const TableStructure& a, float wa, const TableStructure& b, float wb,
                  const DocumentRules& rules);

// Table `b` appended to table `a` as one table: b's rows after a's, b's first row left out when
// it repeats a's header (first) row; b's cells are no header. Cells keep no lines.
TableStructure appended_table(const TableStructure& a, const TableStructure& b);

// The page in its order after regions became furniture: top furniture (above the page's middle)
// by position, the body as it was, bottom furniture by position; captions' targets, the lines
// (regions' lines contiguous, in region order) and their styles follow.
// Returns each old region's new index (empty when nothing moved).
std::vector<int> restore_order(DocumentResult& page);

}  // namespace docpass
}  // namespace edgeocr
