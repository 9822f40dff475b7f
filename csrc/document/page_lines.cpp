#include "document/page_lines.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "common/checked.h"
#include "document/geometry.h"
#include "document/reading_order.h"
#include "document/text_cues.h"

namespace edgeocr {
namespace {

using namespace geo;

std::size_t chars_of(const std::string& s) {
  std::size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80 && c != ' ') ++n;
  return n;
}

// Luminance of pixel (x, y) of a view (alpha ignored: the ink is what matters).
inline int luma(const ImageView& v, int x, int y) {
  const std::uint8_t* p = v.row(y) + static_cast<std::ptrdiff_t>(x) * v.channels();
  switch (v.format) {
    case PixelFormat::kGray:
    case PixelFormat::kGrayAlpha:
      return p[0];
    case PixelFormat::kRGB:
    case PixelFormat::kRGBA:
      return (p[0] * 77 + p[1] * 150 + p[2] * 29) >> 8;
    default:  // BGR(A)
      return (p[2] * 77 + p[1] * 150 + p[0] * 29) >> 8;
  }
}

int otsu(const std::array<int, 256>& hist) {
  long long total = 0, sum = 0;
  for (int i = 0; i < 256; ++i) total += hist[i], sum += static_cast<long long>(i) * hist[i];
  if (total == 0) return 128;
  long long wb = 0, sb = 0;
  double best = -1;
  int thr = 128;
  for (int t = 0; t < 256; ++t) {
    wb += hist[t];
    if (wb == 0) continue;
    const long long wf = total - wb;
    if (wf == 0) break;
    sb += static_cast<long long>(t) * hist[t];
    const double mb = static_cast<double>(sb) / wb, mf = static_cast<double>(sum - sb) / wf;
    const double between = static_cast<double>(wb) * wf * (mb - mf) * (mb - mf);
    if (between > best) best = between, thr = t;
  }
  return thr;
}

float quad_h(const Quad& q) {
  const float l = std::hypot(q.p[3].x - q.p[0].x, q.p[3].y - q.p[0].y);
  const float r = std::hypot(q.p[2].x - q.p[1].x, q.p[2].y - q.p[1].y);
  return std::isfinite(l + r) ? 0.5f * (l + r) : 0.f;
}

Quad map_quad(const Quad& q, int turns, int w, int h, bool back, int* shift) {
  Quad m;
  for (int i = 0; i < 4; ++i) m.p[i] = turn_point(q.p[i], turns, w, h, back);
  int k0 = 0;
  for (int i = 1; i < 4; ++i) {
    const float a = m.p[i].x + m.p[i].y, b = m.p[k0].x + m.p[k0].y;
    if (a < b || (a == b && m.p[i].y < m.p[k0].y)) k0 = i;
  }
  Quad out;
  for (int i = 0; i < 4; ++i) out.p[i] = m.p[(k0 + i) % 4];
  if (shift) *shift = k0;
  return out;
}

Quad with_shift(const Quad& q, int turns, int w, int h, bool back, int k0) {
  Quad m, out;
  for (int i = 0; i < 4; ++i) m.p[i] = turn_point(q.p[i], turns, w, h, back);
  for (int i = 0; i < 4; ++i) out.p[i] = m.p[(k0 + i) % 4];
  return out;
}

}  // namespace

OcrLine text_line(std::string text, const Quad& box, std::vector<OcrWord> words) {
  OcrLine l;
  int k0 = 0;
  l.box = map_quad(box, 0, 0, 0, false, &k0);
  l.turns = (4 - k0) % 4;
  l.text = std::move(text);
  l.score = 1.f;
  l.det_score = 1.f;
  l.flipped = l.turns == 2;
  for (OcrWord& w : words) w.box = with_shift(w.box, 0, 0, 0, false, k0);
  l.words = std::move(words);
  return l;
}

float text_skew(const std::vector<OcrLine>& lines) {
  std::vector<float> angles;
  for (const OcrLine& l : lines) {
    if (l.turns % 2 != 0) continue;
    const float dx = 0.5f * (l.box.p[1].x - l.box.p[0].x + l.box.p[2].x - l.box.p[3].x);
    const float dy = 0.5f * (l.box.p[1].y - l.box.p[0].y + l.box.p[2].y - l.box.p[3].y);
    const float h = quad_h(l.box);
    if (!(dx > 8.f * h) || !(h > 0.f) || !std::isfinite(dy)) continue;
    angles.push_back(std::atan2(dy, dx) * 57.29578f);
  }
  if (angles.size() < 5) return 0.f;
  const float m = median(angles);
  std::size_t agree = 0;
  for (float a : angles) agree += std::fabs(a - m) <= 1.f;
  return agree >= 5 && 2 * agree >= angles.size() ? m : 0.f;
}

Point2f rotate_point(Point2f p, float degrees, int w, int h, bool back) {
  const float t = (back ? -degrees : degrees) * 0.017453292f;
  const float cx = 0.5f * static_cast<float>(w), cy = 0.5f * static_cast<float>(h);
  const float x = p.x - cx, y = p.y - cy;
  return {cx + x * std::cos(t) - y * std::sin(t), cy + x * std::sin(t) + y * std::cos(t)};
}

TurnedImage rotate_image(const ImageView& img, float degrees) {
  TurnedImage t;
  const int W = img.width, H = img.height, ch = img.channels();
  t.pixels.assign(checked_product({W, H, ch}, "deskewed page"), 255);
  if (has_alpha(img.format))  // transparent outside the page: opaque white
    for (std::size_t i = static_cast<std::size_t>(ch - 1); i < t.pixels.size(); i += ch)
      t.pixels[i] = 255;
  for (int y = 0; y < H; ++y) {
    std::uint8_t* out = t.pixels.data() + static_cast<std::size_t>(y) * W * ch;
    for (int x = 0; x < W; ++x) {
      // The source of each output pixel: the inverse rotation (nearest pixel).
      const Point2f s = rotate_point({x + 0.5f, y + 0.5f}, degrees, W, H, true);
      const int sx = static_cast<int>(std::floor(s.x)), sy = static_cast<int>(std::floor(s.y));
      if (sx < 0 || sy < 0 || sx >= W || sy >= H) continue;
      const std::uint8_t* in = img.row(sy) + static_cast<std::ptrdiff_t>(sx) * ch;
      std::copy(in, in + ch, out + static_cast<std::size_t>(x) * ch);
    }
  }
  t.view = img;
  t.view.data = t.pixels.data();
  t.view.stride = static_cast<std::ptrdiff_t>(W) * ch;
  return t;
}

void rotate_lines(std::vector<OcrLine>& lines, float degrees, int w, int h, bool back) {
  for (OcrLine& l : lines) {
    for (Point2f& p : l.box.p) p = rotate_point(p, degrees, w, h, back);
    for (OcrWord& wd : l.words)
      for (Point2f& p : wd.box.p) p = rotate_point(p, degrees, w, h, back);
  }
}

void rotate_result_back(DocumentResult& doc, float degrees, int w, int h) {
  rotate_lines(doc.ocr.lines, degrees, w, h, true);
  auto box_back = [&](BoxF& b) {
    Quad q;
    q.p[0] = {b.x0, b.y0}, q.p[1] = {b.x1, b.y0}, q.p[2] = {b.x1, b.y1}, q.p[3] = {b.x0, b.y1};
    for (Point2f& p : q.p) p = rotate_point(p, degrees, w, h, true);
    b = quad_bounds(q);
  };
  for (Region& r : doc.regions) {
    box_back(r.box);
    for (TableCell& c : r.table.cells) box_back(c.box);
  }
}

int text_turns(const std::vector<OcrLine>& lines) {
  std::array<std::size_t, 4> by{0, 0, 0, 0};
  std::size_t total = 0;
  for (const OcrLine& l : lines) {
    const std::size_t n = chars_of(l.text);
    if (n < 3) continue;
    by[static_cast<std::size_t>(((l.turns % 4) + 4) % 4)] += n;
    total += n;
  }
  if (total < 40) return 0;
  for (int t = 1; t < 4; ++t)
    if (by[static_cast<std::size_t>(t)] * 10 >= total * 6) return t;
  return 0;
}

Point2f turn_point(Point2f p, int turns, int w, int h, bool back) {
  const float W = static_cast<float>(w), H = static_cast<float>(h);
  switch (((turns % 4) + 4) % 4) {
    case 1:
      return back ? Point2f{W - p.y, p.x} : Point2f{p.y, W - p.x};
    case 2:
      return {W - p.x, H - p.y};
    case 3:
      return back ? Point2f{p.y, H - p.x} : Point2f{H - p.y, p.x};
    default:
      return p;
  }
}

BoxF turn_box(const BoxF& b, int turns, int w, int h, bool back) {
  const Point2f a = turn_point({b.x0, b.y0}, turns, w, h, back);
  const Point2f c = turn_point({b.x1, b.y1}, turns, w, h, back);
  return {std::min(a.x, c.x), std::min(a.y, c.y), std::max(a.x, c.x), std::max(a.y, c.y)};
}

TurnedImage turn_image(const ImageView& img, int turns) {
  turns = ((turns % 4) + 4) % 4;
  TurnedImage t;
  const int W = img.width, H = img.height, ch = img.channels();
  const int nw = turns % 2 ? H : W, nh = turns % 2 ? W : H;
  t.pixels.resize(checked_product({nw, nh, ch}, "turned page"));
  for (int y = 0; y < nh; ++y) {
    std::uint8_t* out = t.pixels.data() + static_cast<std::size_t>(y) * nw * ch;
    for (int x = 0; x < nw; ++x) {
      int sx = x, sy = y;
      if (turns == 1) sx = W - 1 - y, sy = x;
      if (turns == 2) sx = W - 1 - x, sy = H - 1 - y;
      if (turns == 3) sx = y, sy = H - 1 - x;
      const std::uint8_t* in = img.row(sy) + static_cast<std::ptrdiff_t>(sx) * ch;
      std::copy(in, in + ch, out + static_cast<std::size_t>(x) * ch);
    }
  }
  t.view = img;
  t.view.data = t.pixels.data();
  t.view.width = nw;
  t.view.height = nh;
  t.view.stride = static_cast<std::ptrdiff_t>(nw) * ch;
  return t;
}

void turn_lines(std::vector<OcrLine>& lines, int turns, int w, int h, bool back) {
  if (((turns % 4) + 4) % 4 == 0) return;
  for (OcrLine& l : lines) {
    int k0 = 0;
    l.box = map_quad(l.box, turns, w, h, back, &k0);
    l.turns = ((l.turns - k0) % 4 + 4) % 4;
    for (OcrWord& wd : l.words) wd.box = with_shift(wd.box, turns, w, h, back, k0);
  }
}

void turn_result_back(DocumentResult& doc, int turns, int w, int h) {
  if (((turns % 4) + 4) % 4 == 0) return;
  turn_lines(doc.ocr.lines, turns, w, h, true);
  for (Region& r : doc.regions) {
    r.box = turn_box(r.box, turns, w, h, true);
    for (TableCell& c : r.table.cells) c.box = turn_box(c.box, turns, w, h, true);
  }
}

int split_at_columns(std::vector<OcrLine>& lines, std::vector<LineStyle>& styles,
                     const std::vector<Region>& layout, const DocumentRules& R) {
  std::vector<BoxF> cols;
  for (const Region& r : layout)
    if (r.type != RegionType::kFigure && r.type != RegionType::kTable &&
        r.type != RegionType::kEquation && finite(r.box))
      cols.push_back(r.box);
  if (cols.size() < 2) return 0;
  std::vector<OcrLine> out;
  std::vector<LineStyle> out_styles;
  const bool has_styles = styles.size() == lines.size();
  out.reserve(lines.size());
  int cut = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    OcrLine& l = lines[i];
    const BoxF b = quad_bounds(l.box);
    // Regions the line crosses: they hold half its height and some of its width.
    // Columns of running text only: each at least prose_width line heights wide (the columns
    // of a table boxed one by one are narrow; a line across them is a table's row).
    std::vector<BoxF> hit;
    const float lh = height(b);
    if (l.words.size() >= 4 && l.turns % 2 == 0 && width(b) > 0.f)
      for (const BoxF& c : cols)
        if (y_overlap(b, c) >= 0.5f * lh && x_overlap(b, c) >= R.split_share * width(b) &&
            width(c) >= R.prose_width * lh)
          hit.push_back(c);
    std::sort(hit.begin(), hit.end(), [](const BoxF& a, const BoxF& c) { return a.x0 < c.x0; });
    // Keep regions side by side (each starting right of the last one's end).
    std::vector<float> cuts;
    for (std::size_t k = 1; k < hit.size(); ++k)
      if (hit[k].x0 >= hit[k - 1].x1 - 0.02f * width(b))
        cuts.push_back(0.5f * (hit[k - 1].x1 + hit[k].x0));
    if (cuts.empty()) {
      out.push_back(std::move(l));
      if (has_styles) out_styles.push_back(styles[i]);
      continue;
    }
    // Words by their centre's side of each cut.
    std::vector<std::vector<const OcrWord*>> parts(cuts.size() + 1);
    for (const OcrWord& wd : l.words) {
      float x = 0.f;
      for (const Point2f& p : wd.box.p) x += 0.25f * p.x;
      std::size_t k = 0;
      while (k < cuts.size() && x > cuts[k]) ++k;
      parts[k].push_back(&wd);
    }
    // Each side holds words of running text (two at least).
    std::size_t nonempty = 0;
    bool thin = false;
    for (const auto& p : parts) {
      nonempty += p.empty() ? 0 : 1;
      thin = thin || (!p.empty() && p.size() < 2);
    }
    if (nonempty < 2 || thin) {
      out.push_back(std::move(l));
      if (has_styles) out_styles.push_back(styles[i]);
      continue;
    }
    ++cut;
    for (const auto& p : parts) {
      if (p.empty()) continue;
      OcrLine piece;
      piece.score = l.score;
      piece.det_score = l.det_score;
      piece.flipped = l.flipped;
      piece.turns = l.turns;
      // The piece's box: the line's top and bottom edges between its first and last word.
      const Quad& a = p.front()->box;
      const Quad& z = p.back()->box;
      const bool rtl = l.turns == 2;  // words run from the box's right side
      piece.box = l.box;
      const float x0 = std::min(rtl ? z.p[0].x : a.p[0].x, rtl ? z.p[3].x : a.p[3].x);
      const float x1 = std::max(rtl ? a.p[1].x : z.p[1].x, rtl ? a.p[2].x : z.p[2].x);
      const float lo = std::min(x0, x1), hi = std::max(x0, x1);
      // Interpolate along the line's top (p0 -> p1) and bottom (p3 -> p2) edges.
      auto along = [&](const Point2f& s, const Point2f& e, float x) {
        const float dx = e.x - s.x;
        const float t = std::fabs(dx) > 1e-3f ? std::clamp((x - s.x) / dx, 0.f, 1.f) : 0.f;
        return Point2f{s.x + t * dx, s.y + t * (e.y - s.y)};
      };
      piece.box.p[0] = along(l.box.p[0], l.box.p[1], lo);
      piece.box.p[1] = along(l.box.p[0], l.box.p[1], hi);
      piece.box.p[2] = along(l.box.p[3], l.box.p[2], hi);
      piece.box.p[3] = along(l.box.p[3], l.box.p[2], lo);
      for (const OcrWord* wd : p) {
        if (!piece.text.empty()) piece.text += ' ';
        piece.text += wd->text;
        piece.words.push_back(*wd);
      }
      out.push_back(std::move(piece));
      if (has_styles) out_styles.push_back(styles[i]);
    }
  }
  lines = std::move(out);
  if (has_styles) styles = std::move(out_styles);
  return cut;
}

int join_markers(std::vector<OcrLine>& lines, std::vector<LineStyle>& styles,
                 const std::vector<Region>& layout) {
  const bool has_styles = styles.size() == lines.size();
  // The layout region holding most of a box (-1: none holds half of it).
  auto region_of = [&](const BoxF& b) {
    int best = -1;
    float share = 0.5f;
    for (std::size_t r = 0; r < layout.size(); ++r) {
      const float s = share_in(b, layout[r].box);
      if (s >= share) share = s, best = static_cast<int>(r);
    }
    return best;
  };
  std::vector<char> gone(lines.size(), 0);
  int joined = 0, looked = 0;
  for (std::size_t i = 0; i < lines.size() && looked < 4096; ++i) {
    if (lines[i].turns % 2 != 0 || !marker_only(lines[i].text)) continue;
    ++looked;
    const BoxF m = quad_bounds(lines[i].box);
    const float h = height(m);
    std::size_t best = lines.size();
    float best_gap = 4.f * h;
    for (std::size_t j = 0; j < lines.size(); ++j) {
      if (j == i || gone[j] || lines[j].turns % 2 != 0) continue;
      const BoxF b = quad_bounds(lines[j].box);
      const float gap = b.x0 - m.x1;
      if (gap < -0.25f * h || gap >= best_gap || !same_row(m, b)) continue;
      best_gap = gap;
      best = j;
    }
    if (best == lines.size() || marker_only(lines[best].text) ||
        region_of(m) != region_of(quad_bounds(lines[best].box)))
      continue;
    OcrLine& t = lines[best];
    const Quad mq = lines[i].box;
    t.text = lines[i].text + " " + t.text;
    std::vector<OcrWord> words = lines[i].words;
    if (words.empty()) words.push_back({lines[i].text, lines[i].score, mq});
    words.insert(words.end(), t.words.begin(), t.words.end());
    t.words = std::move(words);
    // The joined box: the marker's left edge, the text's right edge.
    t.box.p[0] = mq.p[0];
    t.box.p[3] = mq.p[3];
    t.score = std::min(t.score, lines[i].score);
    gone[i] = 1;
    ++joined;
  }
  if (!joined) return 0;
  std::vector<OcrLine> out;
  std::vector<LineStyle> out_styles;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (gone[i]) continue;
    out.push_back(std::move(lines[i]));
    if (has_styles) out_styles.push_back(std::move(styles[i]));
  }
  lines = std::move(out);
  if (has_styles) styles = std::move(out_styles);
  return joined;
}

void measure_styles(const ImageView& page, const std::vector<OcrLine>& lines,
                    std::vector<LineStyle>& styles, const DocumentRules& R) {
  styles.resize(lines.size());
  std::vector<float> strokes;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    LineStyle& s = styles[i];
    if (s.source != TextSource::kOcr) continue;
    const OcrLine& l = lines[i];
    const float h = quad_h(l.box);
    s.size = h;
    s.stroke = 0.f;
    s.bold = false;
    if (l.turns % 2 != 0 || !(h >= 6.f)) continue;
    const BoxF b = quad_bounds(l.box);
    const int x0 = std::max(0, static_cast<int>(std::floor(b.x0)));
    const int x1 = std::min(page.width, static_cast<int>(std::ceil(b.x1)));
    const int y0 = std::max(0, static_cast<int>(std::floor(b.y0)));
    const int y1 = std::min(page.height, static_cast<int>(std::ceil(b.y1)));
    if (x1 - x0 < 4 || y1 - y0 < 4) continue;
    const int rows = std::min(48, y1 - y0), cols = std::min(1024, x1 - x0);
    std::array<int, 256> hist{};
    auto sx = [&](int c) {
      return x0 + static_cast<int>(static_cast<long long>(c) * (x1 - x0) / cols);
    };
    auto sy = [&](int r) {
      return y0 + static_cast<int>(static_cast<long long>(r) * (y1 - y0) / rows);
    };
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) ++hist[static_cast<std::size_t>(luma(page, sx(c), sy(r)))];
    const int thr = otsu(hist);
    // Horizontal runs of ink, in page pixels (a sampled column stands for (x1-x0)/cols pixels).
    const float step = static_cast<float>(x1 - x0) / static_cast<float>(cols);
    std::array<int, 65> runs{};
    int n_runs = 0;
    for (int r = 0; r < rows; ++r) {
      int run = 0;
      for (int c = 0; c <= cols; ++c) {
        const bool ink = c < cols && luma(page, sx(c), sy(r)) <= thr;
        if (ink) {
          ++run;
        } else if (run > 0) {
          ++runs[static_cast<std::size_t>(std::min(run, 64))];
          ++n_runs;
          run = 0;
        }
      }
    }
    if (n_runs < 8) continue;
    int acc = 0, med = 1;
    for (int k = 1; k <= 64; ++k) {
      acc += runs[static_cast<std::size_t>(k)];
      if (2 * acc >= n_runs) {
        med = k;
        break;
      }
    }
    s.stroke = static_cast<float>(med) * step / h;
    if (chars_of(l.text) >= 4) strokes.push_back(s.stroke);
  }
  const float body = median(std::move(strokes));
  if (!(body > 0.f)) return;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (styles[i].source == TextSource::kOcr && styles[i].stroke > 0.f)
      styles[i].bold = styles[i].stroke >= R.bold_stroke * body;
}

}  // namespace edgeocr
