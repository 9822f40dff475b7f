// Numbers as text for settings (see pipeline/number_text.h).
#include "pipeline/number_text.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <locale>
#include <sstream>

namespace edgeocr {
namespace {

// Numbers as text in the C locale whatever the process locale is (a C app
// may have called setlocale; "0,3" must never appear or be expected).
std::string c_locale_text(double v, int precision, bool fixed) {
  std::ostringstream out;
  out.imbue(std::locale::classic());
  if (fixed) out << std::fixed;
  out << std::setprecision(precision) << v;
  return out.str();
}

double c_locale_double(const std::string& s) {
  std::istringstream in(s);
  in.imbue(std::locale::classic());
  double d = 0;
  in >> d;
  return d;
}

}  // namespace

std::string number_text(double v) {
  // Integers without a fraction, others in the shortest form that reads back.
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
    return c_locale_text(v, 0, true);
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
  std::string t;
  for (int p = 6; p <= 17; ++p) {
    t = c_locale_text(v, p, false);
    if (c_locale_double(t) == v) break;
  }
  return t;
}

std::string float_text(float v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
  if (v == std::floor(v) && std::fabs(v) < 1e7) return c_locale_text(v, 1, true);
  std::string t;
  for (int p = 6; p <= 9; ++p) {
    t = c_locale_text(v, p, false);
    if (static_cast<float>(c_locale_double(t)) == v) break;
  }
  return t;
}

std::string trim_space(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

namespace {

// Whether `t` is one number in JSON's grammar (RFC 8259, section 6), the one bundle manifests are
// written in: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?. *integer: without fraction or
// exponent.
bool json_number(const std::string& t, bool* integer) {
  auto digit = [&](std::size_t k) { return k < t.size() && t[k] >= '0' && t[k] <= '9'; };
  std::size_t i = 0;
  if (i < t.size() && t[i] == '-') ++i;
  if (!digit(i)) return false;
  if (t[i] == '0')
    ++i;  // no leading zeros: "0100" is not a number (octal to some readers, 100 to others)
  else
    while (digit(i)) ++i;
  *integer = true;
  if (i < t.size() && t[i] == '.') {
    ++i;
    if (!digit(i)) return false;
    while (digit(i)) ++i;
    *integer = false;
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (!digit(i)) return false;
    while (digit(i)) ++i;
    *integer = false;
  }
  return i == t.size();
}

}  // namespace

SettingValue parse_number(const std::string& text, bool* ok) {
  const std::string t = trim_space(text);
  *ok = false;
  bool integer = false;
  if (t.empty() || t.size() > 64 || !json_number(t, &integer)) return SettingValue::of_string(text);
  if (integer) {
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(t.c_str(), &end, 10);
    if (errno == 0 && end == t.c_str() + t.size()) {
      *ok = true;
      return SettingValue::of_int(v);
    }
    // Too large for 64 bits: a float, so that the range check names it.
  }
  std::istringstream in(t);
  in.imbue(std::locale::classic());
  double d = 0;
  in >> d;
  if (!in.fail() && in.peek() == std::char_traits<char>::eof()) {
    *ok = true;
    return SettingValue::of_float(d);
  }
  return SettingValue::of_string(text);  // out of a double's range (1e400)
}

}  // namespace edgeocr
