// SHA-256 (csrc/common/sha256.cpp) on whichever block code this CPU runs (x86 SHA extensions,
// ARMv8 SHA-2, portable; EDGEOCR_SHA256=portable forces the last): FIPS 180-4's examples, and
// every length around the block size against digests Python's hashlib made of the same bytes.
// EDGEOCR_SHA256_EXPECT=<name> also checks which code ran (tools/cross_aarch64.sh runs this
// under qemu-aarch64 with and without the ARMv8 path; ctest runs it native and portable).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"
#include "common/sha256.h"

using namespace edgeocr;

namespace {

std::string hex(const std::array<std::uint8_t, 32>& d) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::uint8_t b : d) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

// The next `n` bytes of one LCG stream (x = x * 1664525 + 1013904223 mod 2^32, the byte its top
// eight bits) started at 0x12345678: what the golden digest below was made of with hashlib.
std::vector<std::uint8_t> stream_bytes(std::uint32_t& x, std::size_t n) {
  std::vector<std::uint8_t> out(n);
  for (auto& b : out) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<std::uint8_t>(x >> 24);
  }
  return out;
}

std::array<std::uint8_t, 32> digest_in_pieces(const std::vector<std::uint8_t>& data,
                                              std::size_t piece) {
  Sha256 s;
  for (std::size_t i = 0; i < data.size(); i += piece)
    s.update(data.data() + i, std::min(piece, data.size() - i));
  return s.finish();
}

}  // namespace

TEST(fips_180_examples) {
  CHECK(sha256_hex("", 0) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc", 3) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char* two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  CHECK(sha256_hex(two_blocks, std::strlen(two_blocks)) ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const std::string million(1000000, 'a');
  CHECK(sha256_hex(million.data(), million.size()) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(every_length_around_the_block_matches_hashlib) {
  // Lengths 0..300 and two longer ones, each hashed whole and in pieces of 1, 7, 64, 65 and 200
  // bytes (the buffered tail and whole blocks take turns); the digest of all their digests is
  // the one hashlib gives for the same bytes.
  std::uint32_t x = 0x12345678u;
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 300; ++n) lengths.push_back(n);
  lengths.push_back(4096);
  lengths.push_back(65537);
  Sha256 all;
  bool pieces_agree = true;
  for (std::size_t n : lengths) {
    const auto data = stream_bytes(x, n);
    Sha256 s;
    s.update(data.data(), data.size());
    const auto whole = s.finish();
    for (std::size_t piece : {1, 7, 64, 65, 200})
      pieces_agree = pieces_agree && digest_in_pieces(data, piece) == whole;
    all.update(whole.data(), whole.size());
  }
  CHECK(pieces_agree);
  CHECK(hex(all.finish()) == "a2e249b7aff1b2ebc98cbcd286d7ea2437970eabed84981e6a325b562bf3f4a2");
}

TEST(the_expected_block_code_ran) {
  const std::string ran = sha256_implementation();
  std::printf("sha256: %s block code\n", ran.c_str());
  CHECK(ran == "sha-ni" || ran == "armv8-sha2" || ran == "portable");
  const char* forced = std::getenv("EDGEOCR_SHA256");
  if (forced && std::strcmp(forced, "portable") == 0) CHECK(ran == "portable");
  const char* expected = std::getenv("EDGEOCR_SHA256_EXPECT");
  if (expected) CHECK(ran == expected);
}

TEST_MAIN()
