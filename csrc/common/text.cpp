#include "common/text.h"

#include <cstdio>

namespace edgeocr {
namespace {

void append_hex(std::string& out, unsigned char c) {
  char b[8];
  std::snprintf(b, sizeof b, "\\x%02X", c);
  out += b;
}

}  // namespace

std::size_t utf8_sequence_length(const unsigned char* p, std::size_t n) noexcept {
  const unsigned char c = p[0];
  if (c < 0x80) return 1;
  std::size_t len;
  unsigned lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // past U+10FFFF
  } else {
    return 0;
  }
  if (len > n) return 0;
  if (p[1] < lo || p[1] > hi) return 0;
  for (std::size_t k = 2; k < len; ++k)
    if (p[k] < 0x80 || p[k] > 0xBF) return 0;
  return len;
}

std::size_t utf8_error(const std::string& s) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_sequence_length(p + i, s.size() - i);
    if (len == 0) return i;
    i += len;
  }
  return std::string::npos;
}

std::string escape_invalid_utf8(const std::string& s) {
  if (utf8_error(s) == std::string::npos) return s;
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::string out;
  out.reserve(s.size() + 16);
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_sequence_length(p + i, s.size() - i);
    if (len == 0) {
      append_hex(out, p[i++]);
    } else {
      out.append(s, i, len);
      i += len;
    }
  }
  return out;
}

std::string printable(const std::string& s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_sequence_length(p + i, s.size() - i);
    if (len == 0) {
      out.push_back('?');
      ++i;
    } else if (len == 1) {
      out.push_back(p[i] < 0x20 || p[i] == 0x7f ? ' ' : static_cast<char>(p[i]));
      ++i;
    } else {
      out.append(s, i, len);
      i += len;
    }
  }
  return out;
}

std::string quoted(const std::string& s, std::size_t max_bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::string out = "'";
  std::size_t i = 0;
  while (i < s.size() && i < max_bytes) {
    const std::size_t len = utf8_sequence_length(p + i, s.size() - i);
    const unsigned char c = p[i];
    if (len == 0) {
      append_hex(out, c);
      ++i;
      continue;
    }
    if (len == 1) {
      switch (c) {
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\\':
          out += "\\\\";
          break;
        default:
          if (c < 0x20 || c == 0x7f)
            append_hex(out, c);
          else
            out.push_back(static_cast<char>(c));
      }
    } else if (len == 2 && c == 0xC2 && p[i + 1] <= 0x9F) {
      char b[8];  // a C1 control character, U+0080-U+009F
      std::snprintf(b, sizeof b, "\\u%04X", static_cast<unsigned>(p[i + 1]));
      out += b;
    } else {
      out.append(s, i, len);
    }
    i += len;
  }
  if (i < s.size()) out += "...";
  return out + "'";
}

}  // namespace edgeocr
