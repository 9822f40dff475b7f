// Array (constant tensors) and sha256.
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
  if (exp == 0) v = std::ldexp(static_cast<float>(man), -24);
  else if (exp == 31) v = man ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else v = std::ldexp(static_cast<float>(man | 0x400), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}
template <typename T>
T rd(const uint8_t* p) { T v; std::memcpy(&v, p, sizeof(T)); return v; }
template <typename T>
void wr(uint8_t* p, T v) { std::memcpy(p, &v, sizeof(T)); }
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
    case kFloat: return rd<float>(p);
    case kDouble: return rd<double>(p);
    case kFloat16: return half_to_float(rd<uint16_t>(p));
    case kInt8: return rd<int8_t>(p);
    case kUint8: return rd<uint8_t>(p);
    case kBool: return rd<uint8_t>(p) != 0;
    case kInt16: return rd<int16_t>(p);
    case kInt32: return rd<int32_t>(p);
    case kInt64: return static_cast<double>(rd<int64_t>(p));
    default: return 0.0;
  }
}

int64_t Array::iat(std::size_t i) const {
  const uint8_t* p = ptr + i * itemsize();
  switch (dtype) {
    case kInt64: return rd<int64_t>(p);
    case kInt32: return rd<int32_t>(p);
    case kInt16: return rd<int16_t>(p);
    case kInt8: return rd<int8_t>(p);
    case kUint8: return rd<uint8_t>(p);
    case kBool: return rd<uint8_t>(p) != 0;
    default: return sat<int64_t>(at(i));
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

uint8_t* Array::mutable_data() { return const_cast<uint8_t*>(ptr); }

void Array::set(std::size_t i, double v) {
  uint8_t* p = mutable_data() + i * itemsize();
  switch (dtype) {
    case kFloat: wr<float>(p, static_cast<float>(v)); break;
    case kDouble: wr<double>(p, v); break;
    case kInt8: wr<int8_t>(p, sat<int8_t>(v)); break;
    case kUint8: wr<uint8_t>(p, sat<uint8_t>(v)); break;
    case kBool: wr<uint8_t>(p, v != 0.0); break;
    case kInt16: wr<int16_t>(p, sat<int16_t>(v)); break;
    case kInt32: wr<int32_t>(p, sat<int32_t>(v)); break;
    case kInt64: wr<int64_t>(p, sat<int64_t>(v)); break;
    case kFloat16: {  // round to nearest via float; only fill_constant makes these
      float f = static_cast<float>(v);
      uint32_t x; std::memcpy(&x, &f, 4);
      uint32_t sign = (x >> 16) & 0x8000;
      int32_t e = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
      uint32_t m = x & 0x7fffff;
      uint16_t h;
      if (((x >> 23) & 0xff) == 0xff) h = static_cast<uint16_t>(sign | 0x7c00 | (m ? 0x200 : 0));
      else if (e >= 31) h = static_cast<uint16_t>(sign | 0x7c00);
      else if (e <= 0) h = static_cast<uint16_t>(sign);
      else h = static_cast<uint16_t>(sign | (e << 10) | ((m + 0x1000) >> 13));
      wr<uint16_t>(p, h);
      break;
    }
    default: break;
  }
}

// ---- sha256 (FIPS 180-4) ------------------------------------------------------

namespace {
const uint32_t kK[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
void block(uint32_t h[8], const uint8_t* p) {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = (uint32_t(p[4 * i]) << 24) | (uint32_t(p[4 * i + 1]) << 16) | (uint32_t(p[4 * i + 2]) << 8) | p[4 * i + 3];
  for (int i = 16; i < 64; ++i) {
    uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; ++i) {
    uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kK[i] + w[i];
    uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += k;
}
}  // namespace

std::string sha256_hex(const void* data, std::size_t size) {
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const uint8_t* p = static_cast<const uint8_t*>(data);
  std::size_t full = size / 64;
  for (std::size_t i = 0; i < full; ++i) block(h, p + 64 * i);
  uint8_t tail[128] = {0};
  std::size_t rem = size - full * 64;
  if (rem) std::memcpy(tail, p + full * 64, rem);
  tail[rem] = 0x80;
  std::size_t tl = rem + 1 + 8 <= 64 ? 64 : 128;
  uint64_t bits = static_cast<uint64_t>(size) * 8;
  for (int i = 0; i < 8; ++i) tail[tl - 1 - i] = static_cast<uint8_t>(bits >> (8 * i));
  block(h, tail);
  if (tl == 128) block(h, tail + 64);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (uint32_t v : h)
    for (int s = 28; s >= 0; s -= 4) out += hex[(v >> s) & 0xf];
  return out;
}

}  // namespace nb
}  // namespace edgeocr
