// Overflow-checked size arithmetic. Every size that comes from a file, a
// model or a caller goes through these before it allocates or indexes: an
// overflow throws Error(code, "<what>: ... overflows") instead of wrapping to
// a small allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>

#include "edgeocr/status.h"

namespace edgeocr {

// a * b, or fail(code) naming `what` when it does not fit in size_t.
inline std::size_t checked_mul(std::size_t a, std::size_t b, const char* what,
                               StatusCode code = StatusCode::kOutOfMemory) {
  std::size_t r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    fail(code, std::string(what) + ": size " + std::to_string(a) + " x " + std::to_string(b) +
                   " overflows size_t");
  return r;
}

// a + b, or fail(code) naming `what`.
inline std::size_t checked_add(std::size_t a, std::size_t b, const char* what,
                               StatusCode code = StatusCode::kOutOfMemory) {
  std::size_t r = 0;
  if (__builtin_add_overflow(a, b, &r))
    fail(code, std::string(what) + ": size " + std::to_string(a) + " + " + std::to_string(b) +
                   " overflows size_t");
  return r;
}

// The product of non-negative factors (e.g. sizeof(float) * 3 * h * w * n);
// a negative factor or an overflow fails with `code`.
inline std::size_t checked_product(std::initializer_list<std::int64_t> factors, const char* what,
                                   StatusCode code = StatusCode::kOutOfMemory) {
  std::size_t r = 1;
  for (std::int64_t f : factors) {
    if (f < 0) fail(code, std::string(what) + ": negative size " + std::to_string(f));
    r = checked_mul(r, static_cast<std::size_t>(f), what, code);
  }
  return r;
}

// v as int, or fail(code) when it is outside [lo, hi].
inline int checked_int(std::int64_t v, const char* what, std::int64_t lo = 0,
                       std::int64_t hi = std::numeric_limits<int>::max(),
                       StatusCode code = StatusCode::kInvalidModel) {
  if (v < lo || v > hi)
    fail(code, std::string(what) + " is " + std::to_string(v) + ", outside [" + std::to_string(lo) +
                   ", " + std::to_string(hi) + "]");
  return static_cast<int>(v);
}

}  // namespace edgeocr
