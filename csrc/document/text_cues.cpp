#include "document/text_cues.h"

#include <cctype>
#include <cstring>

namespace edgeocr {
namespace {

bool space(char32_t c) {
  return c == ' ' || c == '\t' || c == 0x3000 || c == 0xA0;
}

// Full-width ASCII forms to ASCII (digits, letters, punctuation), other code points as they are.
char32_t narrow(char32_t c) {
  if (c >= 0xFF01 && c <= 0xFF5E) return c - 0xFF01 + 0x21;
  return c;
}

// The text as narrow code points without leading/trailing spaces.
std::u32string trimmed(const std::string& s) {
  std::u32string u = to_u32(s);
  for (char32_t& c : u) c = narrow(c);
  std::size_t a = 0, b = u.size();
  while (a < b && space(u[a])) ++a;
  while (b > a && space(u[b - 1])) --b;
  return u.substr(a, b - a);
}

bool digit(char32_t c) {
  return c >= '0' && c <= '9';
}
bool lower(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 0xDF && c <= 0xFF && c != 0xF7);
}
bool upper(char32_t c) {
  return (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7);
}
char32_t to_lower(char32_t c) {
  return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

// The chinese numerals of outlines: 一 .. 十, 百, 零, 〇, 两.
bool cjk_numeral(char32_t c) {
  switch (c) {
    case 0x4E00:
    case 0x4E8C:
    case 0x4E09:
    case 0x56DB:
    case 0x4E94:  // 一二三四五
    case 0x516D:
    case 0x4E03:
    case 0x516B:
    case 0x4E5D:
    case 0x5341:  // 六七八九十
    case 0x767E:
    case 0x96F6:
    case 0x3007:
    case 0x4E24:  // 百零〇两
      return true;
    default:
      return false;
  }
}

// The value of a canonical roman numeral (1..3999), lower or upper case, of `n` characters at
// u[i..]; 0 for any other text.
int roman_value(const std::u32string& u, std::size_t i, std::size_t n) {
  if (n == 0 || n > 9 || i + n > u.size()) return 0;
  std::string s;
  for (std::size_t k = i; k < i + n; ++k) {
    const char32_t c = to_lower(u[k]);
    if (!std::strchr("ivxlcdm", static_cast<int>(c < 128 ? c : 0)) || c == 0) return 0;
    s.push_back(static_cast<char>(c));
  }
  // Greedy parse with the subtractive pairs; canonical form means re-encoding gives s back.
  static const struct {
    const char* sym;
    int val;
  } kTable[] = {{"m", 1000}, {"cm", 900}, {"d", 500}, {"cd", 400}, {"c", 100},
                {"xc", 90},  {"l", 50},   {"xl", 40}, {"x", 10},   {"ix", 9},
                {"v", 5},    {"iv", 4},   {"i", 1}};
  int v = 0;
  std::size_t k = 0;
  while (k < s.size()) {
    int best = -1;
    std::size_t len = 0;
    for (const auto& t : kTable) {
      const std::size_t l = std::strlen(t.sym);
      if (s.compare(k, l, t.sym) == 0 && (best < 0 || l > len)) best = t.val, len = l;
    }
    if (best < 0) return 0;
    v += best;
    k += len;
  }
  if (v <= 0 || v >= 4000) return 0;
  std::string again;
  int r = v;
  for (const auto& t : kTable)
    while (r >= t.val) again += t.sym, r -= t.val;
  // all the same case
  bool lo = false, up = false;
  for (std::size_t q = i; q < i + n; ++q) (u[q] >= 'a' ? lo : up) = true;
  return again == s && !(lo && up) ? v : 0;
}

// A canonical roman numeral (1..3999), lower or upper case, of `n` characters at u[i..].
bool roman(const std::u32string& u, std::size_t i, std::size_t n) {
  return roman_value(u, i, n) > 0;
}

std::size_t utf8_bytes(const std::u32string& u, std::size_t n) {
  std::size_t b = 0;
  for (std::size_t k = 0; k < n && k < u.size(); ++k) {
    const char32_t c = u[k];
    b += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return b;
}

}  // namespace

std::u32string to_u32(const std::string& s) {
  std::u32string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    int n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
    if (n < 0 || (n > 0 && i + static_cast<std::size_t>(n) >= s.size())) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    char32_t v = n == 0 ? c : (c & (0x3F >> n));
    bool ok = true;
    for (int k = 1; k <= n; ++k) {
      const unsigned char d = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if ((d & 0xC0) != 0x80) ok = false;
      v = (v << 6) | (d & 0x3F);
    }
    out.push_back(ok ? v : 0xFFFD);
    i += ok ? static_cast<std::size_t>(n) + 1 : 1;
  }
  return out;
}

bool is_cjk(char32_t c) {
  return (c >= 0x2E80 && c <= 0x9FFF) || (c >= 0xAC00 && c <= 0xD7AF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFF00 && c <= 0xFFEF) ||
         (c >= 0x20000 && c <= 0x2FFFF);
}

bool is_alnum(char32_t c) {
  if (c < 0x80) return std::isalnum(static_cast<int>(c)) != 0;
  if (c >= 0xC0 && c <= 0x24F) return c != 0xD7 && c != 0xF7;
  if (c >= 0x370 && c <= 0x52F) return true;    // Greek, Cyrillic
  if (c >= 0x3040 && c <= 0x30FF) return true;  // kana
  if (c >= 0x3400 && c <= 0x9FFF) return true;
  if (c >= 0xAC00 && c <= 0xD7AF) return true;
  if (c >= 0xFF10 && c <= 0xFF19) return true;
  if ((c >= 0xFF21 && c <= 0xFF3A) || (c >= 0xFF41 && c <= 0xFF5A)) return true;
  return c >= 0x20000 && c <= 0x2FFFF;
}

TextShape text_shape(const std::string& text) {
  TextShape s;
  const std::u32string u = to_u32(text);
  bool in_word = false;
  char32_t last = 0;
  for (char32_t c0 : u) {
    const char32_t c = narrow(c0);
    if (!space(c)) last = c;
    if (is_cjk(c0) && is_alnum(c0) && !(c0 >= 0xFF00 && c0 <= 0xFFEF)) {
      ++s.cjk;
      in_word = false;
      continue;
    }
    if (is_alnum(c)) {
      if (!in_word) ++s.words;
      in_word = true;
      if (digit(c)) {
        ++s.digits;
      } else {
        ++s.letters;
        if (upper(c)) ++s.upper;
      }
    } else if (c != '\'' && c != 0x2019 && c != '-') {
      in_word = false;
    }
  }
  s.ends_sentence = last == '.' || last == 0x3002 || last == '!' || last == '?' || last == ';';
  s.ends_comma = last == ',' || last == 0x3001 || last == 0xFF0C;
  s.all_caps = s.letters >= 3 && s.upper == s.letters;
  return s;
}

bool has_word(const std::string& t) {
  int run = 0;
  for (char32_t c : to_u32(t)) {
    if (is_cjk(c) && is_alnum(c)) return true;
    if (c >= 0x80 ? is_alnum(c) : std::isalpha(static_cast<int>(c)) != 0) {
      if (++run >= 2) return true;
    } else {
      run = 0;
    }
  }
  return false;
}

bool caption_cue(const std::string& text, RegionType* kind) {
  const std::u32string u = trimmed(text);
  static const struct {
    const char32_t* word;
    RegionType kind;
  } kCues[] = {{U"figure", RegionType::kFigureCaption}, {U"fig.", RegionType::kFigureCaption},
               {U"fig", RegionType::kFigureCaption},    {U"table", RegionType::kTableCaption},
               {U"tab.", RegionType::kTableCaption},    {U"\u56FE", RegionType::kFigureCaption},
               {U"\u8868", RegionType::kTableCaption}};
  for (const auto& c : kCues) {
    const std::u32string w = c.word;
    if (u.size() < w.size()) continue;
    bool match = true;
    for (std::size_t k = 0; k < w.size() && match; ++k) match = to_lower(u[k]) == w[k];
    if (!match) continue;
    std::size_t j = w.size();
    while (j < u.size() && space(u[j])) ++j;
    if (j < u.size() && (u[j] == ':' || u[j] == 0xFF1A) && w.back() != '.') {  // "Table: 5"
      ++j;
      while (j < u.size() && space(u[j])) ++j;
    }
    if (j >= u.size()) return false;
    // The number: digits ("3", "3.1", "3.", "3-2") or a roman numeral ("IV").
    std::size_t k = j;
    if (digit(u[k])) {
      while (k < u.size() && (digit(u[k]) || u[k] == '.' || u[k] == '-')) ++k;
    } else {
      while (k < u.size() && k - j < 8 &&
             std::strchr("ivxlcIVXLC", static_cast<int>(u[k] < 128 ? u[k] : 1)))
        ++k;
      if (k == j || !roman(u, j, k - j)) return false;
      if (k < u.size() && u[k] == '.') ++k;
    }
    if (k == j) return false;
    if (k == u.size() || u[k] == ':' || u[k] == '.' || u[k] == '|' || u[k] == '-' ||
        u[k] == 0xFF1A || u[k] == 0x3001 || u[k - 1] == '.' || u[k] == 0x2014 || u[k] == 0x2013) {
      *kind = c.kind;
      return true;
    }
    if (is_cjk(u[k])) {
      *kind = c.kind;
      return true;
    }
    if (!space(u[k])) return false;
    while (k < u.size() && space(u[k])) ++k;
    if (k < u.size() && (upper(u[k]) || is_cjk(u[k]) || u[k] == '(')) {
      *kind = c.kind;
      return true;
    }
    return false;
  }
  return false;
}

bool equation_number(const std::string& text) {
  const std::u32string u = trimmed(text);
  if (u.size() < 3 || u.size() > 8 || u.front() != '(' || u.back() != ')') return false;
  if (!digit(u[1])) return false;
  for (std::size_t k = 1; k + 1 < u.size(); ++k)
    if (!(digit(u[k]) || u[k] == '.' || (u[k] >= 'a' && u[k] <= 'z'))) return false;
  return true;
}

bool page_number_text(const std::string& text) {
  std::u32string u;
  for (char32_t c : trimmed(text))
    if (!space(c)) u.push_back(c);
  // Dashes and dots around the number: "- 3 -", "– 3 –", "· 3 ·".
  auto deco = [](char32_t c) {
    return c == '-' || c == 0x2013 || c == 0x2014 || c == 0x2012 || c == 0x2212 || c == '~' ||
           c == 0xB7 || c == 0x2022 || c == '|' || c == '.' || c == '[' || c == ']' || c == '(' ||
           c == ')';
  };
  std::size_t a = 0, b = u.size();
  while (a < b && deco(u[a])) ++a;
  while (b > a && deco(u[b - 1])) --b;
  if (a >= b) return false;
  const std::u32string t = u.substr(a, b - a);
  // 第3页, 第1页共6页, 共6页第1页, 第3頁
  {
    std::size_t k = 0;
    int numbers = 0;
    bool cjk_form = false;
    while (k < t.size()) {
      if (t[k] == 0x7B2C || t[k] == 0x5171) {  // 第 共
        cjk_form = true;
        ++k;
        std::size_t d = k;
        while (k < t.size() && digit(t[k])) ++k;
        if (k == d || k - d > 4) {
          cjk_form = false;
          break;
        }
        ++numbers;
        if (k >= t.size() || (t[k] != 0x9875 && t[k] != 0x9801)) {  // 页 頁
          cjk_form = false;
          break;
        }
        ++k;
        if (k < t.size() && (t[k] == ',' || t[k] == 0xFF0C || t[k] == 0x3001)) ++k;
      } else {
        cjk_form = false;
        break;
      }
    }
    if (cjk_form && numbers >= 1 && k == t.size()) return true;
  }
  std::string ascii;
  for (char32_t c : t) {
    if (c >= 0x80) return false;
    ascii.push_back(static_cast<char>(std::tolower(static_cast<int>(c))));
  }
  std::size_t k = 0;
  for (const char* prefix : {"page", "pg.", "pg", "p."}) {
    const std::size_t n = std::strlen(prefix);
    if (ascii.compare(0, n, prefix) == 0) {
      k = n;
      break;
    }
  }
  auto number_at = [&](std::size_t* i) {
    const std::size_t d = *i;
    while (*i < ascii.size() && std::isdigit(static_cast<unsigned char>(ascii[*i]))) ++*i;
    return *i > d && *i - d <= 4;
  };
  std::size_t i = k;
  if (number_at(&i)) {
    if (i == ascii.size()) return true;
    // "3 of 10", "3/12"
    std::size_t j = i;
    if (ascii.compare(j, 2, "of") == 0)
      j += 2;
    else if (ascii[j] == '/')
      j += 1;
    else
      return false;
    return number_at(&j) && j == ascii.size();
  }
  // A roman numeral alone (front matter), or after "page".
  return roman(t, k, t.size() - k) && t.size() - k <= 7;
}

Numbering heading_numbering(const std::string& text) {
  Numbering n;
  const std::u32string raw = to_u32(text);
  std::size_t lead = 0;
  while (lead < raw.size() && space(raw[lead])) ++lead;
  std::u32string u = raw.substr(lead);
  for (char32_t& c : u) c = narrow(c);
  if (u.empty()) return n;
  auto finish = [&](Numbering::Scheme s, int depth, std::size_t k) {
    while (k < u.size() && space(u[k])) ++k;
    // The numbering must be followed by text.
    if (k >= u.size()) return n;
    n.scheme = s;
    n.depth = depth;
    n.skip = utf8_bytes(raw, lead + k);
    return n;
  };
  // 第一章 / 第一节 / 第1章
  if (u[0] == 0x7B2C) {
    std::size_t k = 1;
    while (k < u.size() && (cjk_numeral(u[k]) || digit(u[k]))) ++k;
    if (k > 1 && k < u.size()) {
      if (u[k] == 0x7AE0 || u[k] == 0x7BC7 || u[k] == 0x90E8)  // 章 篇 部
        return finish(Numbering::kChapter, 1, k + 1);
      if (u[k] == 0x8282)  // 节
        return finish(Numbering::kSection, 2, k + 1);
    }
    return n;
  }
  // 一、
  if (cjk_numeral(u[0])) {
    std::size_t k = 0;
    while (k < u.size() && k < 4 && cjk_numeral(u[k])) ++k;
    if (k < u.size() && (u[k] == 0x3001 || u[k] == '.' || u[k] == 0xFF0E))
      return finish(Numbering::kCjk, 1, k + 1);
    return n;
  }
  // （一） (一) (1) (a)
  if (u[0] == '(') {
    std::size_t k = 1;
    if (k < u.size() && cjk_numeral(u[k])) {
      while (k < u.size() && k < 5 && cjk_numeral(u[k])) ++k;
      if (k < u.size() && u[k] == ')') return finish(Numbering::kCjkParen, 2, k + 1);
      return n;
    }
    std::size_t d = k;
    while (k < u.size() && k - d < 3 && (digit(u[k]) || (u[k] >= 'a' && u[k] <= 'z'))) ++k;
    if (k > d && k < u.size() && u[k] == ')') return finish(Numbering::kParen, 3, k + 1);
    return n;
  }
  // 1 / 1.2 / 1.2.3 / 1. / 1、 / 1)
  if (digit(u[0])) {
    std::size_t k = 0;
    int depth = 0;
    while (k < u.size() && digit(u[k])) {
      std::size_t d = k;
      while (k < u.size() && digit(u[k])) ++k;
      if (k - d > 2) return n;  // a year, a quantity, a decimal ("0.9037"): no section number
      ++depth;
      if (k < u.size() && u[k] == '.' && k + 1 < u.size() && digit(u[k + 1])) {
        ++k;
        continue;
      }
      break;
    }
    if (k < u.size() && u[k] == 0x3001) return finish(Numbering::kDigitComma, 3, k + 1);
    bool dot = false;
    if (k < u.size() && (u[k] == '.' || u[k] == 0xFF0E)) {
      ++k;
      dot = true;
    }
    if (k < u.size() && u[k] == ')') return finish(Numbering::kParen, 3, k + 1);
    if (k >= u.size()) return n;
    // "3 mm", "2 of them": a number then a lower-case word is a quantity unless dotted.
    std::size_t w = k;
    while (w < u.size() && space(u[w])) ++w;
    if (w == k && !dot) return n;  // "3rd", "2D"
    if (!dot && depth == 1 && w < u.size() && lower(u[w])) return n;
    return finish(Numbering::kDigits, depth, k);
  }
  // IV. / A. / Chapter 3 / Part II / Appendix A / Section 2
  {
    std::string word;
    std::size_t k = 0;
    while (k < u.size() && u[k] < 0x80 && std::isalpha(static_cast<int>(u[k])))
      word.push_back(static_cast<char>(std::tolower(static_cast<int>(u[k++]))));
    if (word == "chapter" || word == "part" || word == "appendix" || word == "section" ||
        word == "annex") {
      std::size_t j = k;
      while (j < u.size() && space(u[j])) ++j;
      std::size_t d = j;
      while (j < u.size() && (digit(u[j]) || upper(u[j]) || u[j] == '.')) ++j;
      if (j > d && (j == u.size() || space(u[j]) || u[j] == ':'))
        return finish(word == "section" ? Numbering::kDigits : Numbering::kChapter,
                      word == "section" ? 1 : 1, j == u.size() ? j : j + (u[j] == ':' ? 1 : 0));
      return n;
    }
    // Roman: "IV. Title", "II Title" (upper case only); letter: "A. Title", "B Title" needs a dot.
    if (k >= 1 && k < u.size()) {
      const bool dot = u[k] == '.';
      std::size_t after = k + (dot ? 1 : 0);
      if (after < u.size() && space(u[after])) {
        bool up = true;
        for (std::size_t q = 0; q < k; ++q) up = up && upper(u[q]);
        if (up && roman(u, 0, k) && (dot || k >= 2)) return finish(Numbering::kRoman, 1, after);
        if (up && k == 1 && dot) return finish(Numbering::kLetter, 2, after);
      }
    }
  }
  return n;
}

bool marker_only(const std::string& text) {
  const std::u32string u = trimmed(text);
  if (u.empty() || u.size() > 8) return false;
  if (u.size() == 1 && (u[0] == 0x2022 || u[0] == 0xB7 || u[0] == 0x25AA || u[0] == 0x25CF ||
                        u[0] == '-' || u[0] == '*' || u[0] == 0x2013 || u[0] == 0x25A0))
    return true;
  std::string t;
  for (char32_t c : u) {
    if (c >= 0x80) {
      t.clear();
      // Keep the text as given (CJK markers): heading_numbering narrows it itself.
      t = text;
      break;
    }
    t.push_back(static_cast<char>(c));
  }
  // A bare number ("3", a table's cell or a page number) is no marker; "3." and "2.1" are.
  bool digits = true;
  for (char32_t c : u) digits = digits && c >= '0' && c <= '9';
  if (digits) return false;
  // The text is a whole numbering when a word after it is read as the heading's.
  const std::string probe = t + " Text";
  const Numbering n = heading_numbering(probe);
  if (n.depth == 0) return false;
  std::size_t end = n.skip;
  return end + 4 == probe.size();
}

bool numbered_at_end(const std::string& text) {
  std::size_t a = 0, b = text.size();
  while (a < b && text[a] == ' ') ++a;
  while (b > a && text[b - 1] == ' ') --b;
  const std::size_t first_end = text.find(' ', a);
  const std::size_t last_start = text.rfind(' ', b == 0 ? 0 : b - 1);
  if (first_end == std::string::npos || first_end >= b) return false;  // one word only
  const std::string first = text.substr(a, first_end - a);
  const std::string last = text.substr(last_start + 1, b - last_start - 1);
  return page_number_text(first) || page_number_text(last);
}

namespace {

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

bool ascii_letter(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// The dashes, dots and brackets page_number_text allows around a page number.
bool number_deco(char32_t c) {
  return c == '-' || c == 0x2013 || c == 0x2014 || c == 0x2012 || c == 0x2212 || c == '~' ||
         c == 0xB7 || c == 0x2022 || c == '|' || c == '.' || c == '[' || c == ']' || c == '(' ||
         c == ')';
}

// The value of the digits u[a, b) (at most 9 of them), -1 if there are none or others.
int digits_value(const std::u32string& u, std::size_t a, std::size_t b) {
  if (a >= b || b - a > 9) return -1;
  int v = 0;
  for (std::size_t k = a; k < b; ++k) {
    if (!digit(u[k])) return -1;
    v = v * 10 + static_cast<int>(u[k] - '0');
  }
  return v;
}

}  // namespace

int page_number_value(const std::string& text) {
  std::u32string u;
  for (char32_t c : trimmed(text))
    if (!space(c)) u.push_back(c);
  std::size_t a = 0, b = u.size();
  while (a < b && number_deco(u[a])) ++a;
  while (b > a && number_deco(u[b - 1])) --b;
  if (a >= b) return -1;
  if (!page_number_text(text)) {
    // A long arabic number alone: the running page numbers of a gazette or a journal volume
    // ("47699"), which page_number_text leaves out (at most 4 digits there).
    return b - a >= 5 && b - a <= 6 ? digits_value(u, a, b) : -1;
  }
  // 第3页 / 共6页第1页 / 第1页共6页: the number after 第.
  for (std::size_t k = a; k < b; ++k)
    if (u[k] == 0x7B2C) {
      std::size_t e = k + 1;
      while (e < b && digit(u[e])) ++e;
      return digits_value(u, k + 1, e);
    }
  // "3", "Page 3 of 10", "3 / 12": the first number.
  for (std::size_t k = a; k < b; ++k)
    if (digit(u[k])) {
      std::size_t e = k;
      while (e < b && digit(u[e])) ++e;
      return digits_value(u, k, e);
    }
  // "iv", "Page xii": the roman numeral at the end.
  std::size_t r = b;
  while (r > a && u[r - 1] < 0x80 && std::strchr("ivxlcdmIVXLCDM", static_cast<int>(u[r - 1]))) --r;
  const int v = roman_value(u, r, b - r);
  return v > 0 ? v : -1;
}

int edge_page_number(const std::string& text) {
  std::size_t a = 0, b = text.size();
  while (a < b && text[a] == ' ') ++a;
  while (b > a && text[b - 1] == ' ') --b;
  const std::size_t first_end = text.find(' ', a);
  if (first_end == std::string::npos || first_end >= b) return -1;  // one word only
  const std::size_t last_start = text.rfind(' ', b - 1);
  const int last = page_number_value(text.substr(last_start + 1, b - last_start - 1));
  if (last >= 0) return last;
  return page_number_value(text.substr(a, first_end - a));
}

bool continued_cue(const std::string& text) {
  const std::u32string u = trimmed(text);
  if (u.empty() || u.size() > 80) return false;
  std::u32string low;
  for (char32_t c : u)
    if (!space(c)) low.push_back(to_lower(c));
  for (const char32_t* cue : {U"continued", U"(cont.", U"(cont)", U"cont'd", U"contd.",
                              U"\u7EED\u8868", U"\u7EED\u4E0A\u8868", U"\u63A5\u4E0A\u8868",
                              U"(\u7EED)", U"(\u7EED\u8868)"})  // 续表 续上表 接上表 (续)
    if (low.find(cue) != std::u32string::npos) return true;
  return false;
}

std::string repeat_key(const std::string& text) {
  const std::u32string u = trimmed(text);
  std::string key;
  key.reserve(text.size());
  for (std::size_t k = 0; k < u.size();) {
    const char32_t c = u[k];
    if (space(c)) {
      ++k;
      continue;
    }
    if (digit(c)) {
      while (k < u.size() && digit(u[k])) ++k;
      if (key.empty() || key.back() != '#') key.push_back('#');
      continue;
    }
    if (ascii_letter(c)) {
      std::size_t e = k;
      while (e < u.size() && ascii_letter(u[e])) ++e;
      if (roman(u, k, e - k)) {
        if (key.empty() || key.back() != '#') key.push_back('#');
      } else {
        for (std::size_t q = k; q < e; ++q) key.push_back(static_cast<char>(to_lower(u[q])));
      }
      k = e;
      continue;
    }
    append_utf8(key, c);
    ++k;
  }
  return key;
}

}  // namespace edgeocr
