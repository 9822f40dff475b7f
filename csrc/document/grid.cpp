#include "document/grid.h"

#include <algorithm>
#include <cmath>

#include "document/geometry.h"
#include "document/text_cues.h"

namespace edgeocr {
namespace {

using namespace geo;

// Merges x intervals (sorted on return) that overlap or lie closer than `tol`.
void merge_intervals(std::vector<std::pair<float, float>>* iv, float tol) {
  std::sort(iv->begin(), iv->end());
  std::vector<std::pair<float, float>> out;
  for (const auto& v : *iv) {
    if (!out.empty() && v.first <= out.back().second + tol)
      out.back().second = std::max(out.back().second, v.second);
    else
      out.push_back(v);
  }
  *iv = std::move(out);
}

}  // namespace

std::vector<std::vector<int>> text_grids(std::vector<GridPiece> pcs, float hmed,
                                         const std::vector<std::string>& texts,
                                         const DocumentRules& R) {
  const int kGridCols = R.grid_cols, kGridRows = R.grid_rows;
  const float kGridRowGap = R.grid_row_gap, kGridColGap = R.grid_col_gap;
  const float kGridCellWidth = R.grid_cell_width;
  std::vector<std::vector<int>> out;
  if (pcs.size() < static_cast<std::size_t>(kGridCols * kGridRows) || !(hmed > 0.f)) return out;
  std::sort(pcs.begin(), pcs.end(), [](const GridPiece& a, const GridPiece& b) {
    return yc(a.b) != yc(b.b) ? yc(a.b) < yc(b.b) : a.b.x0 < b.b.x0;
  });
  // Rows: a piece joins the row whose band it shares half of its (or the row's) height with.
  struct Row {
    BoxF band;
    std::vector<std::pair<float, float>> xs;  // the pieces' x extents, merged
    std::vector<int> lines;
    std::vector<int> words;  // the pieces' words
  };
  std::vector<Row> rows;
  for (const GridPiece& pc : pcs) {
    if (rows.empty() || !same_row(rows.back().band, pc.b)) rows.push_back({pc.b, {}, {}, {}});
    Row& r = rows.back();
    r.band = unite(r.band, pc.b);
    r.xs.push_back({pc.b.x0, pc.b.x1});
    r.lines.push_back(pc.line);
    r.words.push_back(pc.words);
  }
  for (Row& r : rows) merge_intervals(&r.xs, 0.f);
  const std::size_t n = rows.size();
  auto columns_of = [&](std::size_t a, std::size_t b) {  // rows [a, b)
    std::vector<std::pair<float, float>> iv;
    for (std::size_t k = a; k < b; ++k) iv.insert(iv.end(), rows[k].xs.begin(), rows[k].xs.end());
    merge_intervals(&iv, kGridColGap * hmed);
    return iv;
  };
  auto close = [&](std::size_t upper, std::size_t lower) {
    return rows[lower].band.y0 - rows[upper].band.y1 <= kGridRowGap * hmed;
  };
  // A row consistent with a grid's columns: each of its pieces within one column.
  auto fits = [&](std::size_t k, const std::vector<std::pair<float, float>>& cols) {
    if (rows[k].xs.size() < 2) return false;
    for (const auto& x : rows[k].xs) {
      int hit = 0;
      for (const auto& c : cols)
        if (x.first < c.second && x.second > c.first) ++hit;
      if (hit != 1) return false;
    }
    return true;
  };
  std::size_t i = 0, floor = 0;  // rows below `floor` belong to an earlier grid
  while (i < n) {
    if (rows[i].xs.size() < static_cast<std::size_t>(kGridCols)) {
      ++i;
      continue;
    }
    std::size_t j = i + 1, full = 1;
    std::vector<std::pair<float, float>> cols = columns_of(i, j);
    while (j < n && close(j - 1, j)) {
      if (rows[j].xs.size() >= static_cast<std::size_t>(kGridCols)) {
        std::vector<std::pair<float, float>> wider = cols;
        wider.insert(wider.end(), rows[j].xs.begin(), rows[j].xs.end());
        merge_intervals(&wider, kGridColGap * hmed);
        if (wider.size() < static_cast<std::size_t>(kGridCols)) break;
        cols = std::move(wider);
        ++j, ++full;
        continue;
      }
      // A section row between full rows ("(b)", "Women"): one piece inside the first column,
      // the grid going on below it. It belongs to the grid but does not count as a full row.
      const bool section = rows[j].xs.size() == 1 && j + 1 < n && close(j, j + 1) &&
                           rows[j + 1].xs.size() >= static_cast<std::size_t>(kGridCols) &&
                           !cols.empty() && rows[j].xs[0].second <= cols.front().second &&
                           rows[j].xs[0].first < cols.front().second;
      if (!section) break;
      ++j;
    }
    if (full < static_cast<std::size_t>(kGridRows)) {
      i = j;
      continue;
    }
    // Guards: cells, not lines of running text (columns of body text are long lines), and
    // words, not a matrix of numbers.
    std::vector<float> widths, words;
    std::vector<int> lines;
    int prose = 0, counted = 0;
    for (std::size_t k = i; k < j; ++k) {
      for (const auto& x : rows[k].xs) widths.push_back(x.second - x.first);
      for (int w : rows[k].words) {
        if (w <= 0) continue;
        words.push_back(static_cast<float>(w));
        ++counted;
        if (w >= R.prose_words) ++prose;
      }
      lines.insert(lines.end(), rows[k].lines.begin(), rows[k].lines.end());
    }
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
    int worded = 0;
    for (int l : lines)
      if (static_cast<std::size_t>(l) < texts.size() &&
          has_word(texts[static_cast<std::size_t>(l)]))
        ++worded;
    const bool prose_like =
        counted > 0 && (median(words) > R.grid_cell_words || prose > R.grid_prose_share * counted);
    if (median(widths) > kGridCellWidth * hmed || worded < 2 || prose_like) {
      i = j;
      continue;
    }
    // Rows next to the run whose pieces fall in its columns (a header of spanning cells, a row
    // with empty cells) join it.
    std::size_t a = i, b = j;
    while (a > floor && close(a - 1, a) && fits(a - 1, cols)) --a;
    while (b < n && close(b - 1, b) && fits(b, cols)) ++b;
    for (std::size_t k = a; k < b; ++k)
      lines.insert(lines.end(), rows[k].lines.begin(), rows[k].lines.end());
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
    out.push_back(std::move(lines));
    i = floor = b;
  }
  return out;
}

}  // namespace edgeocr
