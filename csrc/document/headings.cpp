// The heading rule (reading_order.h: assign_headings, heading_like): one rule for OCR lines and a
// text layer's lines, typography (size against the body's, weight) and numbering as its inputs.
#include <algorithm>
#include <cmath>

#include "document/geometry.h"
#include "document/reading_order.h"
#include "document/text_cues.h"

namespace edgeocr {
namespace {

std::string joined_text(const std::vector<int>& ls, const PageLines& lines) {
  std::string t;
  for (int i : ls) {
    const std::size_t u = static_cast<std::size_t>(i);
    if (u >= lines.texts.size()) continue;
    if (!t.empty()) t += ' ';
    t += lines.texts[u];
  }
  return t;
}

struct Facts {
  TextShape shape;
  Numbering numbering;
  float size = 0.f;  // over the body's
  float step = 0.f;  // heading_step of its first line
  bool bold = false;
  int lines = 0;
  bool boxes = false;  // holds check boxes (a form's line)
};

bool cjk_scheme(Numbering::Scheme s) {
  return s == Numbering::kCjk || s == Numbering::kCjkParen || s == Numbering::kDigitComma ||
         s == Numbering::kChapter || s == Numbering::kSection;
}

Facts facts_of(const std::vector<int>& ls, const PageLines& lines, float body,
               const DocumentRules& R) {
  Facts f;
  const std::string text = joined_text(ls, lines);
  f.shape = text_shape(text);
  f.numbering = heading_numbering(text);
  f.lines = static_cast<int>(ls.size());
  std::vector<float> sizes;
  int bold = 0;
  for (int i : ls) {
    sizes.push_back(line_size(lines, i));
    const std::size_t u = static_cast<std::size_t>(i);
    if (u < lines.styles.size() && lines.styles[u].bold) ++bold;
  }
  f.size = body > 0.f ? geo::median(sizes) / body : 1.f;
  f.bold = !ls.empty() && 2 * bold > static_cast<int>(ls.size());
  f.step = ls.empty() ? R.heading_size : heading_step(lines, ls[0], R);
  for (char32_t c : to_u32(text))
    f.boxes = f.boxes || c == 0x25A1 || c == 0x25A0 || c == 0x2610 || c == 0x2611 || c == 0x2612 ||
              c == 0x221A || c == 0x2713 || c == 0x2714;
  return f;
}

}  // namespace

bool heading_like(const std::vector<int>& ls, const PageLines& lines, float body, bool from_title,
                  const DocumentRules& R) {
  if (ls.empty()) return false;
  const Facts f = facts_of(ls, lines, body, R);
  if (f.boxes) return false;
  const float units = f.shape.units();
  // A heading has words: a number alone, a stamp of digits, is none.
  if (f.shape.letters < 2 && f.shape.cjk < 2) return false;
  // Text running up or down the page (a margin stamp) is no heading.
  for (int i : ls) {
    const std::size_t u = static_cast<std::size_t>(i);
    if (u < lines.boxes.size()) {
      const BoxF b = quad_bounds(lines.boxes[u]);
      if (geo::height(b) > 1.5f * geo::width(b)) return false;
    }
  }
  // Long text is a paragraph, whatever the layout called it.
  const int max_lines = from_title ? R.heading_lines + 1 : R.heading_lines;
  if (f.lines > max_lines || units > R.heading_words) return false;
  // A sentence ending is a paragraph's (a short numbered one, "4. Results.", is a heading).
  if ((f.shape.ends_sentence || f.shape.ends_comma) && units > 4.f && !from_title) return false;
  const bool larger = f.size >= f.step;
  if (from_title) {
    // The layout's title: a heading unless it reads as a sentence of some length, or runs over
    // several lines of body type.
    if (f.shape.ends_sentence && units > 12.f) return false;
    return !(units > 12.f && f.lines >= 2 && !larger && !f.bold);
  }
  const bool caps = f.shape.all_caps && f.shape.letters >= 4;
  const bool numbered = f.numbering.depth > 0;
  // CJK headings say more in a line ("二、报告期末股东总数及前十名股东持股情况表").
  const float cjk_more = f.shape.cjk > 2 * f.shape.words ? 8.f : 0.f;
  if (f.lines > 2 && !larger) return false;
  if (larger && units <= 15.f + cjk_more) return true;
  if (f.bold && units <= 14.f + cjk_more) return true;
  if (numbered && f.lines == 1 && units <= 12.f + cjk_more && !f.shape.ends_sentence) return true;
  if (numbered && cjk_scheme(f.numbering.scheme) && f.lines <= 2 &&
      units <= R.heading_words + cjk_more && !f.shape.ends_sentence)
    return true;
  if (caps && f.lines == 1 && units <= 8.f && f.size >= 0.95f) return true;
  return false;
}

float heading_step(const PageLines& lines, int i, const DocumentRules& R) {
  const std::size_t u = static_cast<std::size_t>(i);
  const bool text_layer = u < lines.styles.size() && lines.styles[u].source == TextSource::kPdf;
  return text_layer ? R.heading_size : R.heading_size_ocr;
}

void assign_headings(std::vector<Region>& regs, const PageLines& lines, float body,
                     const DocumentRules& R) {
  // Which regions are headings.
  std::vector<std::size_t> heads;
  for (std::size_t k = 0; k < regs.size(); ++k) {
    Region& r = regs[k];
    r.heading_level = 0;
    if (r.furniture || r.lines.empty()) continue;
    if (r.type == RegionType::kTitle) {
      if (heading_like(r.lines, lines, body, true, R))
        heads.push_back(k);
      else
        r.type = RegionType::kText;
      continue;
    }
    if (r.type != RegionType::kText || r.lines.size() > static_cast<std::size_t>(R.heading_lines))
      continue;
    if (!heading_like(r.lines, lines, body, false, R)) continue;
    r.type = RegionType::kTitle;
    heads.push_back(k);
  }
  if (heads.empty()) return;
  // Levels: 1 for the page's title (title_size x the body's and the largest heading); numbered
  // headings by their numbering's depth (+1 under a page title); the rest by size, headings
  // within level_size of each other sharing a level, larger first.
  std::vector<float> size(regs.size(), 0.f);
  float largest = 0.f;
  for (std::size_t k : heads) {
    std::vector<float> s;
    for (int i : regs[k].lines) s.push_back(line_size(lines, i));
    size[k] = geo::median(s);
    largest = std::max(largest, size[k]);
  }
  bool has_title = false;
  for (std::size_t k : heads)
    if (body > 0.f && size[k] >= R.title_size * body && size[k] >= (1.f - R.level_size) * largest) {
      regs[k].heading_level = 1;
      has_title = true;
    }
  // Sizes of the unnumbered section headings, largest first, merged within level_size.
  std::vector<float> tiers;
  for (std::size_t k : heads) {
    if (regs[k].heading_level) continue;
    const Numbering n =
        heading_numbering(static_cast<std::size_t>(regs[k].lines[0]) < lines.texts.size()
                              ? lines.texts[static_cast<std::size_t>(regs[k].lines[0])]
                              : std::string());
    if (n.depth > 0) {
      regs[k].heading_level = std::min(6, n.depth + 1);
      continue;
    }
    tiers.push_back(size[k]);
  }
  std::sort(tiers.rbegin(), tiers.rend());
  std::vector<float> levels;
  for (float s : tiers)
    if (levels.empty() || s < (1.f - R.level_size) * levels.back()) levels.push_back(s);
  for (std::size_t k : heads) {
    if (regs[k].heading_level) continue;
    int tier = 0;
    while (tier + 1 < static_cast<int>(levels.size()) &&
           size[k] < (1.f - R.level_size) * levels[static_cast<std::size_t>(tier)])
      ++tier;
    regs[k].heading_level = std::min(6, 2 + tier);
  }
  (void)has_title;
}

}  // namespace edgeocr
