// SHA-256 (FIPS 180-4): bundle member checksums, model-set lookup, the .nb translation cache.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace edgeocr {

// Incremental SHA-256. Not thread-safe per object; objects are independent. Whole blocks run on
// the CPU's SHA instructions where it has them (x86 SHA extensions, ARMv8 SHA-2; asked of the CPU
// at run time; EDGEOCR_SHA256=portable: never), else portably.
class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t size);
  std::array<std::uint8_t, 32> finish();  // the object must not be updated afterwards

 private:
  void block(const std::uint8_t* p);
  std::uint32_t h_[8];
  std::uint8_t buf_[64];
  std::size_t buf_len_ = 0;
  std::uint64_t total_ = 0;  // bytes
};

// Which code runs whole blocks in this process: "sha-ni", "armv8-sha2" or "portable".
const char* sha256_implementation();

// Lowercase hex digest of `size` bytes at `data`.
std::string sha256_hex(const void* data, std::size_t size);

}  // namespace edgeocr
