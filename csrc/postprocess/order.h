// Reading order of detected text lines.
#pragma once

#include <vector>

#include "edgeocr/image.h"

namespace edgeocr {

// Returns a permutation of 0..quads.size()-1: the boxes grouped into lines,
// lines top to bottom, boxes left to right within a line. Each quad must be in
// the Quad order (top-left, top-right, bottom-right, bottom-left).
//
// Each box is described by its centre, its text height (mean of its left and
// right edges) and the slope of its centre line. Two boxes belong to one line
// when, measured along their width-weighted mean slope, each one's centre lies
// within half the other's height: scale-free (no pixel threshold), tolerant of
// tilted lines and of slightly different heights, and a box spanning two lines
// matches neither. Lines are the connected groups of that relation. A box left
// alone then joins the line whose box band holds its centre best (a short word
// or punctuation mark whose box is much smaller than its neighbours'); it joins
// one line at most, so it cannot merge two lines.
//
// Lines are ordered by their centre line's height at the mean x of all boxes,
// boxes within a line by position along the line. The result depends only on
// the geometry, not on the input order (exact ties fall back to the index).
// No column detection: boxes side by side at one height share a line.
// Thread-safe; O(n log n) plus the pairs of boxes close enough vertically to match.
std::vector<int> reading_order(const std::vector<Quad>& quads);

}  // namespace edgeocr
