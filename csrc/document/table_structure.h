// Table structure: a table-structure model's (SLANet's) tokens decoded into a grid of cells, and
// the grid method (ruled lines + text alignment) for when there is no model or its output does
// not fit. Plain arrays and boxes in, a TableGrid out; csrc/pipeline/table.cpp (TableRecognizer)
// runs them on a page's table region. The rules are described in docs/tables.md.
//
// Every function is bounded by its arguments (the caps below): a model that emits garbage
// (unbalanced tags, absurd spans, thousands of tokens, non-finite numbers) or a region full of
// lines gives a bounded grid with `repairs` / `truncated` / `note` saying what happened, never an
// unbounded allocation. Thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace edgeocr {

// An axis-aligned rectangle (x0 <= x1, y0 <= y1 once normalised).
struct TableRect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  float width() const { return x1 - x0; }
  float height() const { return y1 - y0; }
};

struct GridCell {
  int row = 0, col = 0, row_span = 1, col_span = 1;
  bool header = false;  // inside <thead>
  // Corners top-left, top-right, bottom-right, bottom-left (x, y pairs) in the decoder's frame:
  // SLANet's normalised [0, 1] input frame, or the grid method's region pixels.
  float poly[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  bool has_poly = false;  // false: the model gave no usable box for this cell
};

struct TableGrid {
  int rows = 0, cols = 0;
  std::vector<GridCell> cells;  // ordered by (row, col) of their top-left slot
  int tokens = 0;               // structure tokens read (model)
  float score = 0.f;            // mean max probability of the tokens read (model)
  int repairs = 0;              // structure the decoder repaired (see decode_slanet)
  bool truncated = false;       // no end token within the steps, or a cap was reached
  bool ruled = false;           // grid method: rows and columns both from ruled lines
  std::string note;             // what was repaired, capped or left out, in words ("" if nothing)
};

// The most cells a decoded table keeps, and the most columns / rows a grid may have: a hostile
// model or region gives a bounded grid.
constexpr int kMaxTableCells = 4096;
constexpr int kMaxTableCols = 512;
constexpr int kMaxTableRows = 2048;
constexpr int kMaxTableSpan = 64;
constexpr int kMaxGridSlots = 65536;  // rows x columns the grid method lays out

// SLANet's structure tokens for one image -> grid. `probs`: steps x tokens.size() probabilities
// (row-major), `boxes`: steps x 8 cell polygons (normalised to the padded input frame), both
// untrusted. `tokens`: the class names in output order; "sos" and "eos" are the start and end
// classes (the end class stops decoding except at step 0, as PaddleOCR's TableLabelDecode);
// the cell tokens are "<td></td>" (a plain cell) and "<td" [' colspan="n"' | ' rowspan="n"']*
// ">" "</td>" (a spanning cell), rows "<tr>" ... "</tr>", header rows inside "<thead>". Each
// cell's box is the one at its "<td" or "<td></td>" step.
// Repaired (each counts in `repairs`): a cell or row left open (closed where the next one
// starts), a cell outside a row (a row is opened), stray closing tags and attributes (ignored), a
// span attribute right after a "<td></td>" (applied to that cell: PaddleOCR's isolated spans),
// spans above kMaxTableSpan or reaching past kMaxTableCols (clipped), rowspans past the last row
// (clipped), empty rows (dropped), non-finite probabilities (the step ends decoding) and
// non-finite or out-of-frame boxes (has_poly false / clamped to the frame). At most
// min(max_cells, kMaxTableCells) cells (then truncated). Throws InvalidArgument for
// steps < 0, null arrays with steps > 0, fewer than 3 tokens or no "sos"/"eos".
TableGrid decode_slanet(const float* probs, const float* boxes, int steps,
                        const std::vector<std::string>& tokens, int max_cells = kMaxTableCells);

// A ruled line found in a darkness map: horizontal at y = pos from x = from to x = to (or
// vertical at x = pos from y = from to y = to), region pixels.
struct RuleLine {
  float pos = 0, from = 0, to = 0;
};

struct TableRules {
  std::vector<RuleLine> horizontal, vertical;
  bool capped = false;  // more lines than kMaxRules were found; the rest are left out
};

constexpr int kMaxRules = 256;  // per direction

// Ruled lines in a darkness map (luminance_min_map of the region: map_w x map_h bytes, one byte
// per cell x cell region pixels). A pixel is dark below `dark_below`. A horizontal line is a run
// of dark map pixels (gaps of one pixel bridged) at least min_length region pixels long, and
// runs on neighbouring map rows that overlap are one line, kept only if at most max_thickness
// region pixels thick (thicker dark areas are shading or pictures, not rules); vertical lines
// likewise on columns. At most kMaxRules per direction (the longest; `capped` then). Positions
// in region pixels (map pixel centres times `cell`).
TableRules find_rules(const std::uint8_t* map, int map_w, int map_h, int cell, int dark_below,
                      float min_length, float max_thickness);

// A piece of text inside the region (an OCR line, or part of one split at a wide gap between its
// words), region pixels.
using TextPiece = TableRect;

// The grid method on a region of width x height pixels: rows and columns from the ruled lines
// where the region has them, else from the text's alignment (rows: pieces that overlap
// vertically by half their height; columns: gaps between pieces that few rows cover), cells from
// the slots the rules or the text do not divide (spans). Cell polygons are the cells' rectangles
// in region pixels. A region with no text and no rules gives an empty grid with a note. The
// rules are those of docs/tables.md ("The grid method").
TableGrid grid_table(const TableRules& rules, const std::vector<TextPiece>& pieces, float width,
                     float height);

// For each item, the cell it belongs to: the one holding the largest share of the item's area;
// an item overlapping no cell goes to the nearest cell (gap between the rectangles), ties to the
// lower index; -1 only when there are no cells. Rectangles with non-finite corners overlap
// nothing and are nearest to nothing (-1).
std::vector<int> assign_to_cells(const std::vector<TableRect>& cells,
                                 const std::vector<TableRect>& items);

// The share of `item`'s area inside `cell` (0 for an empty or non-finite item).
float share_inside(const TableRect& item, const TableRect& cell);

}  // namespace edgeocr
