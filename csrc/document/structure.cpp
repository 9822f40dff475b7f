// Lists and references (reading_order.h: find_list_items): which lines of a region open items.
// The Markdown writer, the JSON and the C API read Region::items; none of them decides.
#include <string>
#include <vector>

#include "document/reading_order.h"

namespace edgeocr {
namespace {

bool bullet_start(const std::string& t, std::size_t* skip) {
  static const char* kBullets[] = {"\xE2\x80\xA2", "\xC2\xB7", "\xE2\x96\xAA",
                                   "\xE2\x97\x8F", "- ",       "* "};
  for (const char* b : kBullets) {
    const std::size_t n = std::char_traits<char>::length(b);
    if (t.compare(0, n, b) == 0) {
      *skip = n;
      return true;
    }
  }
  return false;
}

// How a list item or a reference entry opens.
struct ItemStart {
  enum Kind { kNone, kBullet, kNumber, kMarker, kReference } kind = kNone;
  int number = 0;        // kNumber, kReference: its number
  std::size_t skip = 0;  // bytes of the opening (the marker and the spaces after it)
  std::string marker;    // kMarker: "(i)", "a)" as written
};

// The digits at t[i..] (at most 3) as a number; *end past them. -1 when there are none.
int digits_at(const std::string& t, std::size_t i, std::size_t* end) {
  int v = 0;
  std::size_t k = i;
  while (k < t.size() && k - i < 3 && t[k] >= '0' && t[k] <= '9') v = v * 10 + (t[k++] - '0');
  *end = k;
  return k == i || (k < t.size() && t[k] >= '0' && t[k] <= '9') ? -1 : v;
}

// A bullet; "12." or "12)" (kNumber); "(iv)", "(b)", "b)" (kMarker); "[12]" (kReference),
// each followed by a space (or the end of the line for a marker alone on it).
ItemStart item_start(const std::string& t) {
  ItemStart s;
  std::size_t skip = 0, e = 0;
  auto spaced = [&](std::size_t k) { return k == t.size() || t[k] == ' '; };
  auto done = [&](ItemStart::Kind kind, std::size_t k) {
    while (k < t.size() && t[k] == ' ') ++k;
    s.kind = kind;
    s.skip = k;
    return s;
  };
  if (bullet_start(t, &skip)) return done(ItemStart::kBullet, skip);
  if (t.empty()) return s;
  const int n = digits_at(t, 0, &e);
  if (n >= 0 && e < t.size() && (t[e] == '.' || t[e] == ')') && e + 1 < t.size() &&
      t[e + 1] == ' ') {
    s.number = n;
    return done(ItemStart::kNumber, e + 1);
  }
  if (t[0] == '[') {
    const int r = digits_at(t, 1, &e);
    if (r >= 0 && e < t.size() && t[e] == ']' && spaced(e + 1)) {
      s.number = r;
      return done(ItemStart::kReference, e + 1);
    }
  }
  // (i) (iv) (b) b): a letter or a short roman numeral in brackets.
  std::size_t k = t[0] == '(' ? 1 : 0;
  const std::size_t from = k;
  while (k < t.size() && k - from < 4 && t[k] >= 'a' && t[k] <= 'z') ++k;
  const bool roman = t.find_first_not_of("ivx", from) >= k;
  if (k > from && (k - from == 1 || roman) && k < t.size() && t[k] == ')' && spaced(k + 1) &&
      k + 1 < t.size()) {
    s.marker = t.substr(0, k + 1);
    return done(ItemStart::kMarker, k + 1);
  }
  return s;
}

}  // namespace

void find_list_items(std::vector<Region>& regions, const PageLines& lines) {
  for (Region& r : regions) {
    r.items.clear();
    if (r.furniture || r.lines.empty() ||
        !(r.type == RegionType::kText || r.type == RegionType::kList ||
          r.type == RegionType::kReference))
      continue;
    std::vector<ListItem> items;
    std::vector<ItemStart> starts;
    bool ok = true;
    for (std::size_t k = 0; k < r.lines.size() && ok; ++k) {
      const std::size_t u = static_cast<std::size_t>(r.lines[k]);
      const std::string& t = u < lines.texts.size() ? lines.texts[u] : std::string();
      std::size_t lead = 0;
      while (lead < t.size() && t[lead] == ' ') ++lead;
      ItemStart s = item_start(t.substr(lead));
      s.skip += lead;
      bool opens = s.kind != ItemStart::kNone;
      if (opens && !starts.empty()) {
        const ItemStart& first = starts.front();
        const ItemStart& last = starts.back();
        if (s.kind != first.kind)
          opens = false;  // a list keeps its kind of opening
        else if ((s.kind == ItemStart::kNumber || s.kind == ItemStart::kReference) &&
                 s.number != last.number + 1 && !(s.kind == ItemStart::kNumber && s.number == 1))
          opens = false;  // "12. the year ..." wrapped to a line's start; "1." starts a new list
      }
      if (opens) {
        ListItem it;
        it.kind = s.kind == ItemStart::kBullet   ? ListItem::kBullet
                  : s.kind == ItemStart::kNumber ? ListItem::kNumber
                  : s.kind == ItemStart::kMarker ? ListItem::kMarker
                                                 : ListItem::kReference;
        it.first = static_cast<int>(k);
        it.count = 1;
        it.number = s.number;
        it.skip = s.skip;
        it.marker = s.kind == ItemStart::kMarker ? s.marker : t.substr(lead, s.skip - lead);
        while (!it.marker.empty() && it.marker.back() == ' ') it.marker.pop_back();
        items.push_back(std::move(it));
        starts.push_back(s);
      } else if (items.empty()) {
        ok = false;  // the first line opens no item
      } else {
        ++items.back().count;
      }
    }
    if (!ok || items.empty() || (items.size() < 2 && r.type != RegionType::kList)) continue;
    if (items[0].kind == ListItem::kReference)
      r.type = RegionType::kReference;
    else
      r.type = RegionType::kList;
    r.items = std::move(items);
  }
}

}  // namespace edgeocr
