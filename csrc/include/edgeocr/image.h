// A non-owning view of 8-bit interleaved pixels.
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgeocr {

// kGrayAlpha: two bytes per pixel, grey then alpha (PIL's "LA").
enum class PixelFormat : int {
  kBGR = 0,
  kRGB = 1,
  kGray = 2,
  kBGRA = 3,
  kRGBA = 4,
  kGrayAlpha = 5
};

inline int channels_of(PixelFormat f) {
  switch (f) {
    case PixelFormat::kGray:
      return 1;
    case PixelFormat::kGrayAlpha:
      return 2;
    case PixelFormat::kBGRA:
    case PixelFormat::kRGBA:
      return 4;
    default:
      return 3;
  }
}

// The last channel of these formats is alpha (0 = transparent, 255 = opaque).
inline bool has_alpha(PixelFormat f) {
  return f == PixelFormat::kBGRA || f == PixelFormat::kRGBA || f == PixelFormat::kGrayAlpha;
}

// Does not own `data`. `stride` is the distance in bytes between the starts
// of two rows (>= width * channels). Row y, column x, channel c is at
// data[y * stride + x * channels + c].
//
// How the kernels read a colour value v of a pixel (defaults: as stored):
//   with alpha a and matte >= 0:  v = matte + (v - matte) * a / 255  (composited onto grey
//   `matte`); then                          v = (v - black) * 255 / (white - black)  (levels
//   stretched, no clamp).
// Pipeline::run sets both from the page itself (see Pipeline::page_view).
struct ImageView {
  const std::uint8_t* data = nullptr;
  int width = 0;
  int height = 0;
  std::ptrdiff_t stride = 0;
  PixelFormat format = PixelFormat::kBGR;
  int matte =
      -1;         // alpha formats: grey level (0..255) under transparent pixels; < 0: alpha ignored
  int black = 0;  // levels: black < white, both in 0..255
  int white = 255;

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
