// Image decoding in the core, one implementation for the C API and Python (edgeocr/image_io.py):
// PNG through libspng (with zlib), JPEG through libjpeg-turbo, both under continuous fuzzing
// upstream (OSS-Fuzz) and here (tests/fuzz/fuzz_decode.cpp).
//
// The pixels are those OpenCV's imdecode gives for the same file, so a page reads the same
// whichever decodes it: grey as grey (PNG grey of 1-4 bits scaled to 0-255), colour as BGR,
// PNG grey + alpha, RGBA and palettes with tRNS as BGRA, JPEG CMYK/YCCK as BGR (OpenCV's
// conversion, k - (255 - c) * k / 256). The EXIF orientation of a JPEG (APP1) or a PNG (eXIf
// before the image data) is applied, as every OpenCV imread flag but IMREAD_UNCHANGED applies
// it and as viewers show a camera's photo: a portrait photo stored sideways reads upright.
//
// Declined as unsupported (the Python layer then decodes the file with OpenCV or Pillow; the C
// API reports why): 16-bit PNG samples, APNG, 12-bit and lossless JPEG. Refused as damaged: what
// the libraries reject (CRCs, Adler-32, truncated data, bad Huffman codes, more data than the
// image holds) and JPEG scans whose data the library had to invent (libjpeg's "premature end" and
// "corrupt data" warnings), or a JPEG of more than kMaxJpegScans scans. Refused as too large,
// from the header, before anything the size of the image is allocated: more than max_pixels
// pixels, or more than max_bytes held (held_bytes below).
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
  kDecoded,      // *out holds the image
  kNotHandled,   // neither PNG nor JPEG (by their signatures)
  kUnsupported,  // a PNG or JPEG feature these decoders leave to others; *why says which
  kTooLarge,     // over max_pixels or max_bytes; *why gives the sizes
  kDamaged,      // the file is damaged; *why is the library's message
};

enum class ImageFormat { kUnknown, kPng, kJpeg };

// The format by its signature (PNG: its 8 bytes; JPEG: SOI and a marker, FF D8 FF).
ImageFormat sniff_format(const std::uint8_t* data, std::size_t size);

// More scans than this in one JPEG are refused: a progressive file of thousands of empty scans
// costs a pass over the whole image each (libjpeg-turbo's own fuzzers stop at 500).
constexpr int kMaxJpegScans = 500;

// What decoding may hold by default for a cap of max_pixels: 4 bytes per allowed pixel (a
// BGRA result) plus 64 MiB for the rows and state a decoder keeps beside it. A decoder that
// holds more per pixel (a progressive JPEG keeps all its coefficients: 2 bytes per sample)
// gets proportionally fewer pixels. The C API and the Python package both use it.
std::uint64_t default_max_bytes(std::uint64_t max_pixels);

// The PNG or JPEG in data[0, size), decoded into *out. Held bytes, checked against max_bytes
// before the pixels are allocated: the result, the decoder's rows (PNG: three rows of 8 bytes
// per pixel, an upper bound of libspng's; JPEG: libjpeg's row buffers), a progressive or
// multi-scan JPEG's coefficients (2 bytes per sample, as the file's sampling pads them), and a
// second copy of the result when an EXIF orientation of a PNG turns it. Not counted: fixed state
// of at most 9 MiB (zlib's window, PNG's cached ancillary chunks: 8 MiB at most, libjpeg's
// tables), and libjpeg's copies of the file's APP markers (at most the file's size).
// Thread-safe; allocates nothing the size of the image before the checks.
DecodeResult decode_image(const std::uint8_t* data, std::size_t size, std::uint64_t max_pixels,
                          std::uint64_t max_bytes, DecodedImage* out, std::string* why);
// decode_image for one format (kNotHandled for the other's bytes).
DecodeResult decode_png(const std::uint8_t* data, std::size_t size, std::uint64_t max_pixels,
                        std::uint64_t max_bytes, DecodedImage* out, std::string* why);
DecodeResult decode_jpeg(const std::uint8_t* data, std::size_t size, std::uint64_t max_pixels,
                         std::uint64_t max_bytes, DecodedImage* out, std::string* why);

// The library versions linked in, e.g. "libspng 0.7.3, zlib 1.2.13, libjpeg-turbo 2.1.5".
std::string library_versions();

}  // namespace edgeocr::codec
