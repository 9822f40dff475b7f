// Decodes each PNG or JPEG file given with the core's decoder (csrc/codec) and prints one line
// per file: the decode result, width x height x channels and a 64-bit FNV-1a hash of the
// pixels. tools/cross_aarch64.sh builds it for x86 and for aarch64 and compares the two outputs
// (the same pixels on both architectures); the hash only tells equal pixels from unequal ones.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "codec/decode.h"

int main(int argc, char** argv) {
  namespace codec = edgeocr::codec;
  for (int i = 1; i < argc; ++i) {
    std::ifstream f(argv[i], std::ios::binary);
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(f)), {});
    codec::DecodedImage img;
    std::string why;
    const std::uint64_t max_pixels = 100000000;
    const codec::DecodeResult r = codec::decode_image(
        bytes.data(), bytes.size(), max_pixels, codec::default_max_bytes(max_pixels), &img, &why);
    std::uint64_t h = 1469598103934665603ull;
    for (std::uint8_t p : img.pixels) h = (h ^ p) * 1099511628211ull;
    std::printf("%s result=%d %dx%dx%d fnv1a=%016llx\n", argv[i], static_cast<int>(r), img.width,
                img.height, img.channels, static_cast<unsigned long long>(h));
  }
  return 0;
}
