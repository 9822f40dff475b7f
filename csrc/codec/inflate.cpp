// Inflate, written for PNG's IDAT streams: the output size is known before decoding, so the
// whole output is one caller-owned buffer and every write is checked against its end.
#include "codec/inflate.h"

#include <cstring>

namespace edgeocr::codec {
namespace {

constexpr int kMaxBits = 15;   // the longest Huffman code deflate allows
constexpr int kFastBits = 10;  // codes up to this long decode with one table lookup

// A canonical Huffman code: codes per length, the symbols in code order, and a lookup table of
// the next kFastBits input bits (entry: symbol << 4 | length; 0 = a longer code).
struct Huffman {
  std::uint16_t count[kMaxBits + 1];
  std::uint16_t symbol[320];
  std::uint16_t fast[1 << kFastBits];
};

// Builds `h` from the code lengths of n symbols. False for an over-subscribed code, and for an
// incomplete one unless it has at most one code of one bit (`single_ok`: zlib allows that for
// the literal/length and distance codes, where the missing code is then never valid).
bool build(Huffman& h, const std::uint8_t* lengths, int n, bool single_ok) {
  std::memset(h.count, 0, sizeof h.count);
  int max_len = 0;
  for (int s = 0; s < n; ++s) {
    h.count[lengths[s]]++;
    if (lengths[s] > max_len) max_len = lengths[s];
  }
  h.count[0] = 0;
  int left = 1;
  for (int len = 1; len <= kMaxBits; ++len) {
    left = (left << 1) - h.count[len];
    if (left < 0) return false;  // over-subscribed
  }
  if (left > 0 && !(max_len == 0 || (single_ok && max_len == 1))) return false;  // incomplete
  std::uint16_t offset[kMaxBits + 2];
  offset[1] = 0;
  for (int len = 1; len <= kMaxBits; ++len) offset[len + 1] = offset[len] + h.count[len];
  for (int s = 0; s < n; ++s)
    if (lengths[s] != 0) h.symbol[offset[lengths[s]]++] = static_cast<std::uint16_t>(s);
  // Deflate sends codes most significant bit first into an LSB-first bit stream: the table is
  // indexed by the code's bits reversed, every entry a short code matches filled.
  std::memset(h.fast, 0, sizeof h.fast);
  unsigned code = 0;
  int index = 0;
  for (int len = 1; len <= kFastBits; ++len) {
    for (int i = 0; i < h.count[len]; ++i, ++code, ++index) {
      unsigned rev = 0;
      for (int b = 0; b < len; ++b) rev |= ((code >> b) & 1u) << (len - 1 - b);
      const std::uint16_t entry = static_cast<std::uint16_t>(h.symbol[index] << 4 | len);
      for (unsigned r = rev; r < (1u << kFastBits); r += 1u << len) h.fast[r] = entry;
    }
    code <<= 1;
  }
  return true;
}

// LSB-first bits of in[0, n). Past the end it reads zero bytes and counts them, so a stream that
// ends early is found by overrun() instead of reading outside the input.
struct Bits {
  const std::uint8_t* p;
  const std::uint8_t* end;
  std::uint64_t buf = 0;
  int count = 0;
  std::size_t padded = 0;  // zero bytes loaded past the end

  void refill() {
    while (count <= 56) {
      std::uint64_t byte = 0;
      if (p < end)
        byte = *p++;
      else
        ++padded;
      buf |= byte << count;
      count += 8;
    }
  }
  // True when bits past the end of the input were used: the padding is the newest bytes in
  // the buffer, so fewer bits left than padding means some of it was consumed.
  bool overrun() const { return static_cast<std::size_t>(count) < padded * 8; }
  unsigned take(int n) {  // n <= 32, after refill() with count >= n
    const unsigned v = static_cast<unsigned>(buf & ((std::uint64_t{1} << n) - 1));
    buf >>= n;
    count -= n;
    return v;
  }
};

// The next symbol of `h`, or -1 for a code that is not in it. Needs 15 bits in `b`.
int decode(Bits& b, const Huffman& h) {
  const std::uint16_t e = h.fast[b.buf & ((1u << kFastBits) - 1)];
  if (e != 0) {
    b.take(e & 15);
    return e >> 4;
  }
  // Canonical decoding, one bit at a time: codes of each length are consecutive integers.
  int code = 0, first = 0, index = 0;
  for (int len = 1; len <= kMaxBits; ++len) {
    code |= static_cast<int>((b.buf >> (len - 1)) & 1u);
    const int count = h.count[len];
    if (static_cast<unsigned>(code - first) < static_cast<unsigned>(count)) {
      b.take(len);
      return h.symbol[index + code - first];
    }
    index += count;
    first = (first + count) << 1;
    code <<= 1;
  }
  return -1;
}

constexpr std::uint16_t kLengthBase[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                           15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                           67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr std::uint8_t kLengthExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                           2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr std::uint16_t kDistBase[30] = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr std::uint8_t kDistExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                         6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

struct Fixed {
  Huffman lit, dist;
  Fixed() {
    std::uint8_t l[320];
    int s = 0;
    for (; s < 144; ++s) l[s] = 8;
    for (; s < 256; ++s) l[s] = 9;
    for (; s < 280; ++s) l[s] = 7;
    for (; s < 288; ++s) l[s] = 8;
    build(lit, l, 288, true);
    for (s = 0; s < 32; ++s) l[s] = 5;  // 30 and 31 are codes that no stream may use
    build(dist, l, 32, true);
  }
};

bool fail(std::string* why, const char* what) {
  if (why) *why = what;
  return false;
}

// The code lengths of a dynamic block's two codes (RFC 1951, 3.2.7).
bool read_dynamic(Bits& b, Huffman& lit, Huffman& dist, std::string* why) {
  static constexpr std::uint8_t kOrder[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                              11, 4,  12, 3, 13, 2, 14, 1, 15};
  b.refill();
  const int nlen = static_cast<int>(b.take(5)) + 257;
  const int ndist = static_cast<int>(b.take(5)) + 1;
  const int ncode = static_cast<int>(b.take(4)) + 4;
  if (nlen > 286 || ndist > 30) return fail(why, "too many length or distance codes");
  std::uint8_t lengths[320] = {};
  for (int i = 0; i < ncode; ++i) {
    b.refill();
    lengths[kOrder[i]] = static_cast<std::uint8_t>(b.take(3));
  }
  Huffman codes;
  if (!build(codes, lengths, 19, false)) return fail(why, "invalid code-length code");
  std::memset(lengths, 0, sizeof lengths);
  for (int i = 0; i < nlen + ndist;) {
    b.refill();
    if (b.overrun()) return fail(why, "the stream ends inside a block header");
    const int sym = decode(b, codes);
    if (sym < 0) return fail(why, "invalid code-length code");
    if (sym < 16) {
      lengths[i++] = static_cast<std::uint8_t>(sym);
      continue;
    }
    int repeat = 0;
    std::uint8_t value = 0;
    if (sym == 16) {
      if (i == 0) return fail(why, "a repeat with no previous length");
      value = lengths[i - 1];
      repeat = 3 + static_cast<int>(b.take(2));
    } else if (sym == 17) {
      repeat = 3 + static_cast<int>(b.take(3));
    } else {
      repeat = 11 + static_cast<int>(b.take(7));
    }
    if (i + repeat > nlen + ndist) return fail(why, "code lengths repeat past their count");
    while (repeat--) lengths[i++] = value;
  }
  if (lengths[256] == 0) return fail(why, "no end-of-block code");
  if (!build(lit, lengths, nlen, true)) return fail(why, "invalid literal/length code");
  if (!build(dist, lengths + nlen, ndist, true)) return fail(why, "invalid distance code");
  return true;
}

// The compressed data of one block, up to its end-of-block code.
bool inflate_codes(Bits& b, const Huffman& lit, const Huffman& dist, std::uint8_t* out,
                   std::size_t out_size, std::size_t& pos, std::string* why) {
  for (;;) {
    b.refill();
    if (b.overrun()) return fail(why, "the stream ends inside a block");
    int sym = decode(b, lit);
    if (sym < 0) return fail(why, "invalid literal/length code");
    if (sym < 256) {
      if (pos == out_size) return fail(why, "more data than the image holds");
      out[pos++] = static_cast<std::uint8_t>(sym);
      continue;
    }
    if (sym == 256) return true;
    sym -= 257;
    if (sym >= 29) return fail(why, "invalid length symbol");
    // 15 + 5 + 15 + 13 bits at most since the refill: within the 57 it guarantees.
    const std::size_t len = kLengthBase[sym] + b.take(kLengthExtra[sym]);
    const int dsym = decode(b, dist);
    if (dsym < 0 || dsym >= 30) return fail(why, "invalid distance code");
    const std::size_t d = kDistBase[dsym] + b.take(kDistExtra[dsym]);
    if (d > pos) return fail(why, "a distance before the start of the data");
    if (len > out_size - pos) return fail(why, "more data than the image holds");
    std::uint8_t* dst = out + pos;
    const std::uint8_t* src = dst - d;
    if (d >= len) {
      std::memcpy(dst, src, len);
    } else {  // overlapping: each byte may be one just written
      for (std::size_t k = 0; k < len; ++k) dst[k] = src[k];
    }
    pos += len;
  }
}

}  // namespace

std::uint32_t adler32(const std::uint8_t* data, std::size_t n) {
  std::uint32_t a = 1, b = 0;
  while (n > 0) {
    // 5552: the most bytes before b can overflow 32 bits (zlib's NMAX).
    std::size_t k = n < 5552 ? n : 5552;
    n -= k;
    while (k--) {
      a += *data++;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return b << 16 | a;
}

bool zlib_inflate(const std::uint8_t* in, std::size_t n, std::uint8_t* out, std::size_t out_size,
                  std::string* why) {
  static const Fixed fixed;
  if (n < 6) return fail(why, "a zlib stream shorter than its header and check");
  const unsigned cmf = in[0], flg = in[1];
  if ((cmf & 15) != 8 || (cmf >> 4) > 7) return fail(why, "not a deflate stream");
  if ((cmf << 8 | flg) % 31 != 0) return fail(why, "a damaged zlib header");
  if (flg & 32) return fail(why, "a zlib stream that needs a preset dictionary");
  Bits b{in + 2, in + n};
  std::size_t pos = 0;
  Huffman lit, dist;
  for (bool last = false; !last;) {
    b.refill();
    last = b.take(1) != 0;
    const unsigned type = b.take(2);
    if (type == 0) {  // stored: from the next byte, LEN, ~LEN, then LEN bytes
      b.take(b.count & 7);
      const std::size_t consumed =
          static_cast<std::size_t>(b.p - in) + b.padded - static_cast<std::size_t>(b.count / 8);
      if (consumed + 4 > n) return fail(why, "the stream ends inside a stored block");
      const std::uint8_t* q = in + consumed;
      const std::size_t len = q[0] | q[1] << 8;
      const std::size_t nlen = q[2] | q[3] << 8;
      if ((len ^ 0xffff) != nlen) return fail(why, "a stored block's length check fails");
      q += 4;
      if (len > static_cast<std::size_t>(in + n - q))
        return fail(why, "the stream ends inside a stored block");
      if (len > out_size - pos) return fail(why, "more data than the image holds");
      if (len > 0) std::memcpy(out + pos, q, len);  // out may be null when out_size is 0
      pos += len;
      b = Bits{q + len, in + n};
    } else if (type == 1) {
      if (!inflate_codes(b, fixed.lit, fixed.dist, out, out_size, pos, why)) return false;
    } else if (type == 2) {
      if (!read_dynamic(b, lit, dist, why)) return false;
      if (!inflate_codes(b, lit, dist, out, out_size, pos, why)) return false;
    } else {
      return fail(why, "an invalid block type");
    }
    if (b.overrun()) return fail(why, "the stream ends early");
  }
  b.take(b.count & 7);
  const std::size_t consumed =
      static_cast<std::size_t>(b.p - in) + b.padded - static_cast<std::size_t>(b.count / 8);
  if (consumed + 4 > n) return fail(why, "the stream ends before its Adler-32 check");
  const std::uint8_t* q = in + consumed;
  const std::uint32_t want = static_cast<std::uint32_t>(q[0]) << 24 | q[1] << 16 | q[2] << 8 | q[3];
  if (pos != out_size) return fail(why, "less data than the image holds");
  if (adler32(out, out_size) != want) return fail(why, "the Adler-32 check fails");
  return true;
}

}  // namespace edgeocr::codec
