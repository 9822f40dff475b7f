// EXIF orientation for the decoders of decode.h (internal to csrc/codec).
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgeocr::codec::detail {

// The Orientation tag (0x0112, 1..8) of IFD0 in a TIFF-structured EXIF block (what follows a
// JPEG APP1's "Exif\0\0", or a PNG eXIf chunk's data); 1 when it is absent or not valid. Reads
// nothing outside tiff[0, n), whatever the offsets claim.
int exif_orientation(const std::uint8_t* tiff, std::size_t n);

// Orientations 5-8 swap width and height.
inline bool orientation_swaps(int orientation) {
  return orientation >= 5 && orientation <= 8;
}

// Writes row y of a w x h source image (c bytes per pixel) to where `orientation` puts it in
// dst, the turned image (h x w when orientation_swaps, else w x h; rows packed).
void place_row(const std::uint8_t* row, int y, int w, int h, int c, int orientation,
               std::uint8_t* dst);

}  // namespace edgeocr::codec::detail
