// libFuzzer harness for the core's image decoders (csrc/codec/decode.h: libspng with zlib,
// libjpeg-turbo), through decode_image as the C API and Python call it.
//
// The first byte picks what the rest is (byte % 4):
//   0  a PNG file whose chunk CRCs are made right first, so that changes reach libspng's header
//      and chunk checks, inflate and the row filters instead of stopping at a CRC;
//   1  the bytes as they are (PNG, JPEG or neither);
//   2  a bare zlib stream, wrapped as the IDAT of an 8-bit grey PNG whose width and height the
//      next two bytes name (what the hand-written inflate's regressions exercised);
//   3  a JPEG: the bytes after a JPEG signature (SOI and a marker) unless they start with one.
// Checks, beyond "no crash, no sanitizer report": a decoded image is within its caps and has
// exactly width * height * channels bytes; anything not decoded says why.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "codec/decode.h"

namespace {

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "fuzz_decode: %s\n", what);
  std::abort();
}

std::uint32_t crc32(const std::uint8_t* p, std::size_t n) {
  std::uint32_t c = 0xffffffffu;
  for (std::size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
  }
  return c ^ 0xffffffffu;
}

void put32(std::vector<std::uint8_t>& b, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) b.push_back(static_cast<std::uint8_t>(v >> (24 - 8 * k)));
}

void chunk(std::vector<std::uint8_t>& b, const char* type, const std::uint8_t* body,
           std::size_t n) {
  put32(b, static_cast<std::uint32_t>(n));
  const std::size_t start = b.size();
  b.insert(b.end(), type, type + 4);
  b.insert(b.end(), body, body + n);
  put32(b, crc32(b.data() + start, n + 4));
}

void fix_crcs(std::vector<std::uint8_t>& b) {
  std::size_t pos = 8;
  while (pos + 12 <= b.size()) {
    const std::size_t n =
        static_cast<std::size_t>(b[pos]) << 24 | b[pos + 1] << 16 | b[pos + 2] << 8 | b[pos + 3];
    if (n > b.size() - pos - 12) break;
    const std::uint32_t c = crc32(b.data() + pos + 4, n + 4);
    for (int k = 0; k < 4; ++k) b[pos + 8 + n + k] = static_cast<std::uint8_t>(c >> (24 - 8 * k));
    pos += 12 + n;
  }
}

std::vector<std::uint8_t> grey_png_around(const std::uint8_t* z, std::size_t n) {
  static const std::uint8_t kSig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<std::uint8_t> b(kSig, kSig + 8);
  if (n < 2) return b;
  const std::uint8_t ihdr[13] = {0, 0, 0, static_cast<std::uint8_t>(z[0] % 64 + 1),
                                 0, 0, 0, static_cast<std::uint8_t>(z[1] % 64 + 1),
                                 8, 0, 0, 0,
                                 0};
  chunk(b, "IHDR", ihdr, sizeof ihdr);
  chunk(b, "IDAT", z + 2, n - 2);
  chunk(b, "IEND", nullptr, 0);
  return b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint8_t mode = data[0] % 4;
  std::vector<std::uint8_t> b(data + 1, data + size);
  if (mode == 0) fix_crcs(b);
  if (mode == 2) b = grey_png_around(b.data(), b.size());
  if (mode == 3 && !(b.size() >= 3 && b[0] == 0xff && b[1] == 0xd8 && b[2] == 0xff))
    b.insert(b.begin(), {0xff, 0xd8, 0xff});
  constexpr std::uint64_t kMaxPixels = 1 << 20, kMaxBytes = 8 << 20;
  edgeocr::codec::DecodedImage img;
  std::string why;
  const auto r =
      edgeocr::codec::decode_image(b.data(), b.size(), kMaxPixels, kMaxBytes, &img, &why);
  if (r == edgeocr::codec::DecodeResult::kDecoded) {
    const std::uint64_t px = static_cast<std::uint64_t>(img.width) * img.height;
    if (img.width < 1 || img.height < 1 || px > kMaxPixels) die("a size outside the caps");
    if (img.channels != 1 && img.channels != 3 && img.channels != 4) die("a channel count");
    if (img.pixels.size() != px * img.channels) die("pixels of the wrong size");
  } else if (why.empty()) {
    die("not decoded, and no reason given");
  }
  return 0;
}
