// A non-owning view of 8-bit interleaved pixels.
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgeocr {

enum class PixelFormat : int { kBGR = 0, kRGB = 1, kGray = 2, kBGRA = 3, kRGBA = 4 };

inline int channels_of(PixelFormat f) {
  switch (f) {
    case PixelFormat::kGray: return 1;
    case PixelFormat::kBGRA:
    case PixelFormat::kRGBA: return 4;
    default: return 3;
  }
}

// Does not own `data`. `stride` is the distance in bytes between the starts
// of two rows (>= width * channels). Row y, column x, channel c is at
// data[y * stride + x * channels + c].
struct ImageView {
  const std::uint8_t* data = nullptr;
  int width = 0;
  int height = 0;
  std::ptrdiff_t stride = 0;
  PixelFormat format = PixelFormat::kBGR;

  int channels() const { return channels_of(format); }
  const std::uint8_t* row(int y) const { return data + static_cast<std::ptrdiff_t>(y) * stride; }
};

// Throws InvalidArgument when the view cannot be read safely.
void validate(const ImageView& img, const char* what = "image");

// A point in image pixel coordinates (x to the right, y down).
struct Point2f {
  float x = 0.f;
  float y = 0.f;
};

// Four corners, clockwise from the top-left of the text as read:
// top-left, top-right, bottom-right, bottom-left.
struct Quad {
  Point2f p[4];
};

}  // namespace edgeocr
