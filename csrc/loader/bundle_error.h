// Errors of the bundle reader: an edgeocr::Error (InvalidModel, or Unsupported
// for versions and features) with the kind of failure, which the Python
// binding maps to edgeocr.pack.Bundle*Error.
#pragma once

#include <string>

#include "edgeocr/status.h"

namespace edgeocr {
namespace loader {

// `s` as one line of valid UTF-8: invalid bytes become '?', control
// characters (newlines included) a space. Bundle messages quote member names
// and parser output from the file, which may hold any bytes.
inline std::string printable(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      out.push_back(c < 0x20 || c == 0x7f ? ' ' : static_cast<char>(c));
      ++i;
      continue;
    }
    std::size_t len = c >= 0xC2 && c <= 0xDF   ? 2
                      : c >= 0xE0 && c <= 0xEF ? 3
                      : c >= 0xF0 && c <= 0xF4 ? 4
                                               : 0;
    bool ok = len > 0 && i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k) ok = (p[i + k] & 0xC0) == 0x80;
    if (ok && len == 3) ok = !(c == 0xE0 && p[i + 1] < 0xA0) && !(c == 0xED && p[i + 1] > 0x9F);
    if (ok && len == 4) ok = !(c == 0xF0 && p[i + 1] < 0x90) && !(c == 0xF4 && p[i + 1] > 0x8F);
    if (!ok) {
      out.push_back('?');
      ++i;
      continue;
    }
    out.append(s, i, len);
    i += len;
  }
  return out;
}

enum class BundleErrorKind : int { kFormat = 0, kManifest = 1, kVersion = 2, kChecksum = 3 };

class BundleError : public Error {
 public:
  BundleError(BundleErrorKind kind, const std::string& message)
      : Error(kind == BundleErrorKind::kVersion ? StatusCode::kUnsupported
                                                : StatusCode::kInvalidModel,
              printable(message)),
        kind_(kind) {}
  BundleErrorKind kind() const noexcept { return kind_; }

 private:
  BundleErrorKind kind_;
};

[[noreturn]] inline void bundle_fail(BundleErrorKind kind, const std::string& message) {
  throw BundleError(kind, message);
}

}  // namespace loader
}  // namespace edgeocr
