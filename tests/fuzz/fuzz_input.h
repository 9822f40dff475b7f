// Reading a libFuzzer input as a stream of small integers and floats.
// Once the bytes run out every read returns zero, so any input is a valid one.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

namespace edgeocr_fuzz {

class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : p_(data), end_(data + size) {}

  std::size_t left() const { return static_cast<std::size_t>(end_ - p_); }

  std::uint8_t byte() { return p_ < end_ ? *p_++ : 0; }

  std::uint16_t u16() { return static_cast<std::uint16_t>(byte() | (byte() << 8)); }

  // An integer in [lo, hi].
  int range(int lo, int hi) {
    return lo + static_cast<int>(u16() % static_cast<unsigned>(hi - lo + 1));
  }

  // A float that is often one of the values that break arithmetic: NaN,
  // +-inf, +-0, denormals, the extremes, or near the usual thresholds.
  float special_float() {
    static const float kSpecial[] = {std::numeric_limits<float>::quiet_NaN(),
                                     std::numeric_limits<float>::infinity(),
                                     -std::numeric_limits<float>::infinity(),
                                     0.f,
                                     -0.f,
                                     std::numeric_limits<float>::denorm_min(),
                                     std::numeric_limits<float>::max(),
                                     -std::numeric_limits<float>::max(),
                                     std::numeric_limits<float>::min(),
                                     1.f,
                                     -1.f,
                                     0.3f,
                                     0.6f,
                                     1.5f,
                                     2.f,
                                     1e30f};
    const std::uint8_t k = byte();
    if (k < 32) return kSpecial[k % (sizeof(kSpecial) / sizeof(kSpecial[0]))];
    return raw_float();
  }

  // Four bytes as they are: any bit pattern, NaN payloads included.
  float raw_float() {
    std::uint8_t b[4] = {byte(), byte(), byte(), byte()};
    float f;
    std::memcpy(&f, b, sizeof f);
    return f;
  }

  // A probability-map value: mostly a byte scaled to [0, 1] (so regions form),
  // sometimes a special value.
  float map_value() {
    const std::uint8_t b = byte();
    if (b >= 250) return special_float();
    return static_cast<float>(b) / 249.f;
  }

 private:
  const std::uint8_t* p_;
  const std::uint8_t* end_;
};

}  // namespace edgeocr_fuzz
