// libFuzzer harness for the PNG decoder and inflate (csrc/codec/png.cpp, inflate.cpp).
//
// The first byte picks what the rest is: a PNG file whose chunk CRCs are made right first (so
// that changes reach the header checks, inflate and the row filters instead of stopping at a
// CRC), the file as it is, or a bare zlib stream inflated into a buffer of a size the input
// names. Checks, beyond "no crash, no sanitizer report": a decoded image has the size its caps
// allow and exactly width * height * channels bytes; a declined one says why.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "codec/inflate.h"
#include "codec/png.h"

namespace {

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "fuzz_png: %s\n", what);
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint8_t mode = data[0] % 3;
  std::vector<std::uint8_t> b(data + 1, data + size);
  if (mode == 2) {
    if (b.size() < 2) return 0;
    const std::size_t out_size = (static_cast<std::size_t>(b[0]) << 8 | b[1]) * 4;
    std::vector<std::uint8_t> out(out_size);
    std::string why;
    if (!edgeocr::codec::zlib_inflate(b.data() + 2, b.size() - 2, out.data(), out.size(), &why) &&
        why.empty())
      die("inflate failed without a reason");
    return 0;
  }
  if (mode == 0) fix_crcs(b);
  constexpr std::uint64_t kMaxPixels = 1 << 20, kMaxBytes = 4 << 20;
  edgeocr::codec::DecodedImage img;
  std::string why;
  const auto r = edgeocr::codec::decode_png(b.data(), b.size(), kMaxPixels, kMaxBytes, &img, &why);
  if (r == edgeocr::codec::DecodeResult::kDecoded) {
    const std::uint64_t px = static_cast<std::uint64_t>(img.width) * img.height;
    if (img.width < 1 || img.height < 1 || px > kMaxPixels) die("a size outside the caps");
    if (img.channels != 1 && img.channels != 3 && img.channels != 4) die("a channel count");
    if (img.pixels.size() != px * img.channels) die("pixels of the wrong size");
  } else if (r == edgeocr::codec::DecodeResult::kDeclined && why.empty()) {
    die("declined without a reason");
  }
  return 0;
}
