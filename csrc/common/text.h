// Text from files and callers inside error messages: UTF-8 checks and quoting. Every message the
// core gives (C's edgeocr_last_error(), Python's exceptions) is valid UTF-8, whatever bytes a
// caller or a file supplied.
#pragma once

#include <cstddef>
#include <string>

namespace edgeocr {

// Length (2 to 4) of the well-formed UTF-8 sequence that starts at p[0] of the n bytes at p, 1 for
// an ASCII byte, 0 when the bytes there are not well-formed UTF-8 (a stray continuation byte, an
// overlong form, a surrogate, past U+10FFFF, or cut short by the end). n must be at least 1.
std::size_t utf8_sequence_length(const unsigned char* p, std::size_t n) noexcept;

// Index of the first byte of `s` that is not well-formed UTF-8, or std::string::npos.
std::size_t utf8_error(const std::string& s) noexcept;

// `s` with every byte that is not well-formed UTF-8 written as \xHH; valid text unchanged.
// What edgeocr::Error does to every message, so that none is invalid UTF-8.
std::string escape_invalid_utf8(const std::string& s);

// `s` as one line of valid UTF-8: invalid bytes become '?', control characters (newlines
// included) a space. For text from a file that a message shows as it is (bundle members).
std::string printable(const std::string& s);

// Caller text quoted for an error message: 'text', valid UTF-8 and on one line whatever the
// bytes, so that the message can be shown and read back. Inside the quotes a byte that is not
// well-formed UTF-8 is written \xHH, a control character (U+0000-U+001F, U+007F-U+009F) \n, \r,
// \t or \xHH / \u0085, and a backslash \\. Text longer than `max_bytes` is cut at a character
// boundary and ends with "..." inside the quotes.
std::string quoted(const std::string& s, std::size_t max_bytes = 60);

}  // namespace edgeocr
