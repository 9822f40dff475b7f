// THE reading-order rule of a document page (one implementation, for Python and C): layout
// regions and OCR lines in, regions in the order a person reads them out, every line in exactly
// one region. docs/document-parsing.md, "Reading order", says it in words.
#pragma once

#include <string>
#include <vector>

#include "edgeocr/document.h"

namespace edgeocr {

struct ReadingOrderParams {
  // A line belongs to the region that holds the largest share of its box, when that share is
  // at least this; other lines are strays and get regions of their own.
  float line_in_region = 0.5f;
  // Regions (after clean-up) ordered by the precedence rule below at most; a page with more (a
  // hostile model, thousands of stray lines) is ordered top to bottom in bands instead.
  int max_ordered = 400;
};

// Orders a page: `layout` holds the layout model's regions (type, label, score, box; lines
// ignored), `lines` the OCR lines' boxes and `texts` their texts (or empty: no page-number
// detection), width x height the page. Returns the regions in reading order, top furniture
// first and bottom furniture last, each with its line indices (into `lines`) in reading order:
//
// 1. Clean-up: regions with a non-finite or empty box are dropped, boxes clipped to the page; a
//    region overlapping a better-scoring one by IoU > 0.8 is dropped, and so is a non-caption
//    region lying (>= 85%) inside a table, a figure or a larger region of its own type.
// 2. Lines: each goes to the region holding the largest share of its box (>= line_in_region;
//    ties: the smaller region). The rest are grouped (overlapping in x, each within 1.5 line
//    heights of the group's last) into text regions of their own (from_layout = false); a
//    stray line of digits only ("3", "- 3 -", "3/12", "Page 3") in the top or bottom 10% of
//    the page is a page number. A text region of one line reading "(3)" or "(2.1)", level
//    with an equation (sharing half the smaller height) and right of it, joins the nearest
//    such equation (its box grows to hold it). Text-like regions left without lines are
//    dropped (figures, tables and equations stay).
//    Text grids: the lines' pieces (`line_pieces[i]`: line i's runs of words between wide gaps,
//    as the table stage splits them; the line's bounds where empty) are put in rows (sharing
//    half the height); a grid is a run of >= 3 rows, each within 2 line heights of the last,
//    each of >= 3 pieces, whose pieces together leave >= 3 columns (x extents merged when
//    closer than 0.3 line heights), the median piece no wider than 6 line heights (columns of
//    running text are longer lines) and >= 2 of its lines holding a word (two letters, or a
//    CJK character: a matrix of numbers is no table); rows next to it whose >= 2 pieces each
//    fall in one of its columns (a header with spans, a row with empty cells) join it. A text
//    region whose lines are one grid becomes a table; one that also holds other text is split
//    into the grids' tables (boxed by their lines) and text regions for the lines above,
//    between and below them. An equation or figure region >= 60% of whose lines are in grids
//    is treated so too, its tables keeping its box's sides (and its top and bottom where no
//    text was cut off: a caption it holds becomes a text region). Grids among the stray lines
//    become tables before the rest are grouped.
// 3. Furniture: header, footer and page-number regions, ordered apart (above the page's middle:
//    before the body, else after it), top to bottom then left to right. A text region in the
//    top (bottom) 6% of the page, above (below) every other region by 1.5 of its line heights,
//    whose lines are no taller than 1.2x the body's, is a running header (footer).
// 4. Captions: each caption goes with the figure (figure_caption) or table (table_caption; the
//    other kind when there is none) nearest above or below it that overlaps it horizontally,
//    and is read right before it (when above) or after it (when below); caption_of is set.
//    A text region whose first line opens a caption ("Figure 2.", "Fig. 3", "Table IV:",
//    "图 1", "表 2") is a caption of that kind when such a figure or table is within reach (3 of
//    its heights or 8% of the page), and stays text otherwise.
// 5. Body: a region a comes before b when they overlap horizontally (by >= 30% of the narrower)
//    and a is higher, or when a lies left of b, they share some height, and no third region
//    lying between them vertically overlaps both horizontally (Breuel's rule, side by side
//    only). The order is the topological order of that relation; of the regions ready to be
//    read, one below the last region read and overlapping it horizontally comes first (its
//    column goes on), else the top-most (then left-most); a cycle is broken at its top-most
//    region. Columns come out top to bottom, the left first, and a title, table or figure
//    spanning columns stays in place: the columns above it are read before it, those below
//    after it (no horizontal cut through the whole page is needed, so a figure that spans only
//    some of the columns does not break the order, as it breaks XY-cut's).
// 6. Headings: a title region's level is 1 when its lines are the tallest of the page's titles
//    and >= 1.6x the body's median line height; the other titles are 2, or 3 when numbered two
//    deep or more ("2.1 Data"), or unnumbered with lines under 0.75x those of the tallest of
//    them (line boxes measure ink, so sizes closer than that are not told apart).
// Thread-safe; time O(R^2 + L * R) for R regions (O(R^3) worst case of the rule, R capped by
// max_ordered) and L lines.
std::vector<Region> order_regions(const std::vector<Region>& layout, const std::vector<Quad>& lines,
                                  const std::vector<std::string>& texts, int width, int height,
                                  const ReadingOrderParams& params = {},
                                  const std::vector<std::vector<BoxF>>& line_pieces = {});

// The axis-aligned bounds of a quad (non-finite corners count as 0).
BoxF quad_bounds(const Quad& q);

}  // namespace edgeocr
