// THE reading-order rule of a document page (one implementation, for Python and C): layout
// regions and text lines in (from OCR or the caller's text layer), regions in the order a person
// reads them out, every line in exactly one region, with headings, captions, furniture and
// lists decided. docs/document-parsing.md, "Reading order", says it in words; each step below is
// a function of its own in reading_order.cpp (headings: headings.cpp, lists: structure.cpp, text
// grids: grid.cpp) and every threshold is a field of DocumentRules.
#pragma once

#include <string>
#include <vector>

#include "document/grid.h"
#include "edgeocr/document.h"

namespace edgeocr {

// What the reading order reads of a page's lines. Every vector but `boxes` may be empty or
// shorter (missing entries: no text, no style, the line's bounds as its one piece).
struct PageLines {
  std::vector<Quad> boxes;
  std::vector<std::string> texts;
  std::vector<LineStyle> styles;
  std::vector<std::vector<LinePiece>> pieces;  // runs of words between wide gaps
};

// The steps, in order (docs/document-parsing.md, "Reading order"):
//  1. clean_up: regions with a non-finite or empty box dropped, boxes clipped to the page; a
//     region overlapping a better-scoring one by IoU > duplicate_iou dropped, and one lying
//     (>= inside_share) inside a table, a figure or a larger region of its own type.
//  2. assign_lines: each line to the region holding the largest share of its box
//     (>= line_in_region; ties: the smaller region); the rest are strays.
//  3. text figures: a figure whose lines are prose is text; a figure over figure_page_share of
//     the page is none; either way its lines become strays (grouped and gridded below).
//  4. grids: text grids (grid.h) in text, equation and figure regions become tables (a region
//     that also holds other text is split); grids among the strays too.
//  5. strays: grouped into text regions; a page number's text in the page's margins is a page
//     number; a one-line formula the layout called a title (or text with its number beside it)
//     is an equation; "(3)" level with an equation joins it.
//  6. headings split off: a title region of lines of different type sizes or case is one
//     heading per run of lines; a text region's first line that is a heading by the heading
//     rule (numbered, bold or large, short, ending early) is a heading of its own.
//  7. furniture: layout headers/footers/page numbers (unless their text is a title's size),
//     and text regions in the top/bottom furniture_band apart from the body.
//  8. captions to their figure or table (caption_cue for text regions).
//  9. body order: the precedence rule (Breuel's, side by side only) over units (a figure or
//     table with its captions), topologically, a column going on before a jump.
// 10. headings: the heading rule (headings.cpp) over title and short text regions, levels.
// 11. lists: items of list and reference regions (structure.cpp).
// Thread-safe; time O(R^2 + L * R) for R regions (R capped by max_ordered for the precedence
// rule, else bands) and L lines.
std::vector<Region> order_regions(const std::vector<Region>& layout, const PageLines& lines,
                                  int width, int height, const DocumentRules& rules = {});

// The same from boxes and texts alone (no styles; `pieces` as boxes): kept for tests.
using ReadingOrderParams = DocumentRules;
std::vector<Region> order_regions(const std::vector<Region>& layout, const std::vector<Quad>& lines,
                                  const std::vector<std::string>& texts, int width, int height,
                                  const DocumentRules& rules = {},
                                  const std::vector<std::vector<BoxF>>& line_pieces = {});

// The axis-aligned bounds of a quad (non-finite corners count as 0).
BoxF quad_bounds(const Quad& q);

// The heading rule (headings.cpp): sets heading_level of the title regions and of the short
// text regions that stand out (then type kTitle), demotes title regions that are paragraphs to
// text. `body_size`: the body lines' median size (LineStyle::size, or the line height).
void assign_headings(std::vector<Region>& regions, const PageLines& lines, float body_size,
                     const DocumentRules& rules);

// Whether these lines (indices into `lines`) read as one heading by the heading rule, with
// `from_title` true for a region the layout called a title.
bool heading_like(const std::vector<int>& region_lines, const PageLines& lines, float body_size,
                  bool from_title, const DocumentRules& rules);

// Lists (structure.cpp): the items of each text, list and reference region whose lines open
// items (bullets, numbers counting up, markers, "[n]" references); such a text region becomes a
// list (>= 2 items) or stays references.
void find_list_items(std::vector<Region>& regions, const PageLines& lines);

// A line's size for the heading rule: its style's size, else its box's height.
float line_size(const PageLines& lines, int i);

// How much larger than the body a heading's type must be (heading_size, or heading_size_ocr for
// an OCR line: a line box's height varies with its letters).
float heading_step(const PageLines& lines, int i, const DocumentRules& rules);

}  // namespace edgeocr
