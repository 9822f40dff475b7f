// PNG decoding in the core, one implementation for the C API and Python (edgeocr/image_io.py).
//
// It reads what OCR pages and screenshots are saved as: 8-bit RGB, RGBA, grey and grey + alpha,
// grey of 1, 2 and 4 bits, palettes of 1 to 8 bits (with or without a tRNS alpha table),
// interlaced or not. The pixels are those OpenCV's imdecode(IMREAD_UNCHANGED) gives for the same
// file, so a page reads the same whichever decodes it: grey as grey (1-4 bits scaled to 0-255),
// colour as BGR, grey + alpha and RGBA as BGRA, a palette as BGR, or BGRA with tRNS.
//
// Everything else is declined, not guessed: 16-bit samples, tRNS on grey or RGB, APNG, an unknown
// critical chunk, a palette index outside the palette, any CRC, Adler-32 or length that does not
// check, more pixels or memory than the caller allows. The Python layer then decodes the file as
// it did before (OpenCV, then Pillow), with its own checks and messages; the C API reports why.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "edgeocr/image.h"

namespace edgeocr::codec {

// Decoded pixels, rows packed: 1 channel (grey), 3 (BGR) or 4 (BGRA).
struct DecodedImage {
  int width = 0;
  int height = 0;
  int channels = 0;
  std::vector<std::uint8_t> pixels;

  // A view of `pixels` (valid while this object lives and is not changed).
  ImageView view() const;
};

enum class DecodeResult {
  kDecoded,   // *out holds the image
  kNotPng,    // the bytes do not start with PNG's signature
  kDeclined,  // a PNG this decoder does not read (see above); *why says what
};

// The PNG in data[0, size). Refuses (kDeclined, before allocating) an image of more than
// max_pixels pixels, or one whose decoding would hold more than max_bytes (the inflated rows
// plus the result). Thread-safe; allocates only the result and the inflated rows.
DecodeResult decode_png(const std::uint8_t* data, std::size_t size, std::uint64_t max_pixels,
                        std::uint64_t max_bytes, DecodedImage* out, std::string* why);

// True when data[0, size) starts with PNG's 8-byte signature.
bool is_png(const std::uint8_t* data, std::size_t size);

}  // namespace edgeocr::codec
