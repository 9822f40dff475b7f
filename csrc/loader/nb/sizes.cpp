// Overflow-checked arithmetic on sizes from the file, axes and broadcasting.
#include <algorithm>
#include <limits>

#include "loader/nb/translate.h"

namespace edgeocr {
namespace nb {

int64_t sadd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) corrupt("has sizes that overflow");
  return r;
}
int64_t smul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) corrupt("has sizes that overflow");
  return r;
}
int64_t prod(const Dims& d) {
  int64_t p = 1;
  for (int64_t v : d) p = smul(p, v);
  return p;
}
bool all_known(const Dims& d, std::size_t from, std::size_t to) {
  to = std::min(to, d.size());
  for (std::size_t i = from; i < to; ++i)
    if (d[i] < 0) return false;
  return true;
}
std::string dims_str(const Dims& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size() && i < 16; ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  if (d.size() > 16) s += ", ... (" + std::to_string(d.size()) + " dims)";
  return s + "]";
}
int64_t norm_axis(int64_t axis, std::size_t rank, const char* what) {
  int64_t r = static_cast<int64_t>(rank);
  int64_t a = axis < 0 ? axis + r : axis;
  if (a < 0 || a >= r)
    corrupt(std::string("has ") + what + " " + std::to_string(axis) + " for a tensor of rank " +
            std::to_string(r));
  return a;
}
Shape bcast(const Shape& a, const Shape& b) {
  if (!a || !b) return std::nullopt;
  std::size_t n = std::max(a->size(), b->size());
  Dims x(n - a->size(), 1), y(n - b->size(), 1);
  x.insert(x.end(), a->begin(), a->end());
  y.insert(y.end(), b->begin(), b->end());
  Dims out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (x[i] == 1)
      out[i] = y[i];
    else if (y[i] == 1)
      out[i] = x[i];
    else if (x[i] == -1)
      out[i] = y[i];
    else
      out[i] = x[i];
  }
  return out;
}

}  // namespace nb
}  // namespace edgeocr
