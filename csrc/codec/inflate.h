// zlib-wrapped deflate streams (RFC 1950, RFC 1951), decompressed into a buffer of known size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace edgeocr::codec {

// Decompresses the zlib stream in[0, n) into out[0, out_size). True only when the stream is
// well-formed (header, blocks, complete Huffman codes, distances inside what was written,
// the Adler-32 check) and yields exactly out_size bytes; otherwise false, with the reason in
// *why. Never writes outside out[0, out_size) and never reads outside in[0, n), whatever the
// stream claims. Allocates nothing.
bool zlib_inflate(const std::uint8_t* in, std::size_t n, std::uint8_t* out, std::size_t out_size,
                  std::string* why);

// The Adler-32 of data[0, n) (RFC 1950).
std::uint32_t adler32(const std::uint8_t* data, std::size_t n);

}  // namespace edgeocr::codec
