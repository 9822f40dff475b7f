// The one rule of "is this a grid": which runs of text rows are a borderless table (columns of
// short cells aligned across rows) and not prose (columns of long lines). The reading order asks
// it of every text, equation and figure region and of the stray lines (docs/document-parsing.md,
// "Text grids"); the table stage lays out cells with the same rows (geo::rows_of).
#pragma once

#include <string>
#include <vector>

#include "edgeocr/document.h"

namespace edgeocr {

// A run of a line's words between wide gaps (the line itself when it has no such gap), page
// pixels, and its text.
struct LinePiece {
  BoxF box;
  std::string text;
};

struct GridPiece {
  BoxF b;
  int line = 0;   // the index of its line
  int words = 0;  // words (a CJK character: half a word, rounded up)
};

// The grids among `pieces`: each as the sorted indices of its lines. `hmed`: the lines' median
// height; `texts`: the lines' texts (a grid's lines must hold words: a matrix of numbers is none).
// Bounded: O(P log P + rows x columns).
std::vector<std::vector<int>> text_grids(std::vector<GridPiece> pieces, float hmed,
                                         const std::vector<std::string>& texts,
                                         const DocumentRules& rules);

}  // namespace edgeocr
