// Array (constant tensors).
#include <cmath>
#include <cstring>
#include <limits>

#include "edgeocr/status.h"
#include "loader/nb/program.h"

namespace edgeocr {
namespace nb {

namespace {
float half_to_float(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  float v;
  if (exp == 0)
    v = std::ldexp(static_cast<float>(man), -24);
  else if (exp == 31)
    v = man ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else
    v = std::ldexp(static_cast<float>(man | 0x400), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}
template <typename T>
T rd(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T>
void wr(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}
template <typename T>
T sat(double v) {
  if (std::isnan(v)) return std::numeric_limits<T>::min();
  if (v <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}
}  // namespace

int64_t Array::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;  // bounded: every array's bytes exist
  return n;
}

double Array::at(std::size_t i) const {
  const uint8_t* p = ptr + i * itemsize();
  switch (dtype) {
    case kFloat:
      return rd<float>(p);
    case kDouble:
      return rd<double>(p);
    case kFloat16:
      return half_to_float(rd<uint16_t>(p));
    case kInt8:
      return rd<int8_t>(p);
    case kUint8:
      return rd<uint8_t>(p);
    case kBool:
      return rd<uint8_t>(p) != 0;
    case kInt16:
      return rd<int16_t>(p);
    case kInt32:
      return rd<int32_t>(p);
    case kInt64:
      return static_cast<double>(rd<int64_t>(p));
    default:
      return 0.0;
  }
}

int64_t Array::iat(std::size_t i) const {
  const uint8_t* p = ptr + i * itemsize();
  switch (dtype) {
    case kInt64:
      return rd<int64_t>(p);
    case kInt32:
      return rd<int32_t>(p);
    case kInt16:
      return rd<int16_t>(p);
    case kInt8:
      return rd<int8_t>(p);
    case kUint8:
      return rd<uint8_t>(p);
    case kBool:
      return rd<uint8_t>(p) != 0;
    default:
      return sat<int64_t>(at(i));
  }
}

Array Array::make(int dtype, std::vector<int64_t> shape) {
  Array a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  std::size_t n = static_cast<std::size_t>(a.numel()) * onnx_itemsize(dtype);
  auto buf = std::make_shared<std::vector<uint8_t>>(n);
  a.ptr = buf->data();
  a.nbytes = n;
  a.owned = std::move(buf);
  return a;
}

uint8_t* Array::mutable_data() {
  return const_cast<uint8_t*>(ptr);
}

void Array::set(std::size_t i, double v) {
  uint8_t* p = mutable_data() + i * itemsize();
  switch (dtype) {
    case kFloat:
      wr<float>(p, static_cast<float>(v));
      break;
    case kDouble:
      wr<double>(p, v);
      break;
    case kInt8:
      wr<int8_t>(p, sat<int8_t>(v));
      break;
    case kUint8:
      wr<uint8_t>(p, sat<uint8_t>(v));
      break;
    case kBool:
      wr<uint8_t>(p, v != 0.0);
      break;
    case kInt16:
      wr<int16_t>(p, sat<int16_t>(v));
      break;
    case kInt32:
      wr<int32_t>(p, sat<int32_t>(v));
      break;
    case kInt64:
      wr<int64_t>(p, sat<int64_t>(v));
      break;
    case kFloat16: {  // round to nearest via float; only fill_constant makes these
      float f = static_cast<float>(v);
      uint32_t x;
      std::memcpy(&x, &f, 4);
      uint32_t sign = (x >> 16) & 0x8000;
      int32_t e = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
      uint32_t m = x & 0x7fffff;
      uint16_t h;
      if (((x >> 23) & 0xff) == 0xff)
        h = static_cast<uint16_t>(sign | 0x7c00 | (m ? 0x200 : 0));
      else if (e >= 31)
        h = static_cast<uint16_t>(sign | 0x7c00);
      else if (e <= 0)
        h = static_cast<uint16_t>(sign);
      else
        h = static_cast<uint16_t>(sign | (e << 10) | ((m + 0x1000) >> 13));
      wr<uint16_t>(p, h);
      break;
    }
    default:
      break;
  }
}

}  // namespace nb
}  // namespace edgeocr
