#include <spng.h>
#include <zlib.h>

#include <cstdio>
#include <cstring>

extern "C" {
#include <jpeglib.h>
}

#include "codec/decode.h"
#include "codec/orient.h"

namespace edgeocr::codec {

ImageView DecodedImage::view() const {
  ImageView v;
  v.data = pixels.data();
  v.width = width;
  v.height = height;
  v.stride = static_cast<std::ptrdiff_t>(width) * channels;
  v.format = channels == 1   ? PixelFormat::kGray
             : channels == 3 ? PixelFormat::kBGR
                             : PixelFormat::kBGRA;
  return v;
}

ImageFormat sniff_format(const std::uint8_t* data, std::size_t size) {
  static constexpr std::uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (size >= 8 && std::memcmp(data, kPng, 8) == 0) return ImageFormat::kPng;
  if (size >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff) return ImageFormat::kJpeg;
  return ImageFormat::kUnknown;
}

std::uint64_t default_max_bytes(std::uint64_t max_pixels) {
  constexpr std::uint64_t kSlack = std::uint64_t{64} << 20;
  if (max_pixels > (UINT64_MAX - kSlack) / 4) return UINT64_MAX;
  return max_pixels * 4 + kSlack;
}

DecodeResult decode_image(const std::uint8_t* data, std::size_t size, std::uint64_t max_pixels,
                          std::uint64_t max_bytes, DecodedImage* out, std::string* why) {
  switch (sniff_format(data, size)) {
    case ImageFormat::kPng:
      return decode_png(data, size, max_pixels, max_bytes, out, why);
    case ImageFormat::kJpeg:
      return decode_jpeg(data, size, max_pixels, max_bytes, out, why);
    default:
      if (why) *why = "not a PNG or JPEG file";
      return DecodeResult::kNotHandled;
  }
}

std::string library_versions() {
  const int jt = LIBJPEG_TURBO_VERSION_NUMBER;  // e.g. 2001005 for 2.1.5
  return std::string("libspng ") + spng_version_string() + ", zlib " + zlibVersion() +
         ", libjpeg-turbo " + std::to_string(jt / 1000000) + "." +
         std::to_string(jt / 1000 % 1000) + "." + std::to_string(jt % 1000);
}

namespace detail {

int exif_orientation(const std::uint8_t* tiff, std::size_t n) {
  if (n < 8) return 1;
  const bool little = tiff[0] == 'I' && tiff[1] == 'I';
  if (!little && !(tiff[0] == 'M' && tiff[1] == 'M')) return 1;
  auto u16 = [&](std::size_t at) -> unsigned {
    return little ? tiff[at] | tiff[at + 1] << 8 : tiff[at] << 8 | tiff[at + 1];
  };
  auto u32 = [&](std::size_t at) -> std::uint32_t {
    return little ? u16(at) | static_cast<std::uint32_t>(u16(at + 2)) << 16
                  : static_cast<std::uint32_t>(u16(at)) << 16 | u16(at + 2);
  };
  if (u16(2) != 42) return 1;
  const std::uint32_t ifd = u32(4);
  if (ifd > n - 2) return 1;
  const unsigned entries = u16(ifd);
  for (unsigned i = 0; i < entries; ++i) {
    const std::size_t e = static_cast<std::size_t>(ifd) + 2 + std::size_t{12} * i;
    if (e > n - 12) return 1;  // the directory runs past the block
    if (u16(e) != 0x0112) continue;
    // SHORT (type 3), count 1: the value sits in the entry's first two value bytes.
    if (u16(e + 2) != 3 || u32(e + 4) != 1) return 1;
    const unsigned v = u16(e + 8);
    return v >= 1 && v <= 8 ? static_cast<int>(v) : 1;
  }
  return 1;
}

void place_row(const std::uint8_t* row, int y, int w, int h, int c, int orientation,
               std::uint8_t* dst) {
  // The turned image's width, and where source pixel (x, y) lands in it: (u, v). As OpenCV's
  // ApplyExifOrientation and the EXIF specification: 2 mirrors, 3 turns 180, 4 flips, 5
  // transposes, 6 turns 90 clockwise, 7 transverses, 8 turns 90 counter-clockwise.
  const std::size_t out_w = static_cast<std::size_t>(orientation_swaps(orientation) ? h : w);
  const std::size_t cs = static_cast<std::size_t>(c);
  for (int x = 0; x < w; ++x) {
    int u = x, v = y;
    switch (orientation) {
      case 2:
        u = w - 1 - x;
        break;
      case 3:
        u = w - 1 - x;
        v = h - 1 - y;
        break;
      case 4:
        v = h - 1 - y;
        break;
      case 5:
        u = y;
        v = x;
        break;
      case 6:
        u = h - 1 - y;
        v = x;
        break;
      case 7:
        u = h - 1 - y;
        v = w - 1 - x;
        break;
      case 8:
        u = y;
        v = w - 1 - x;
        break;
      default:
        break;
    }
    std::memcpy(dst + (static_cast<std::size_t>(v) * out_w + static_cast<std::size_t>(u)) * cs,
                row + static_cast<std::size_t>(x) * cs, cs);
  }
}

}  // namespace detail
}  // namespace edgeocr::codec
