#include "codec/png.h"

#include <array>
#include <cstring>

#include "codec/inflate.h"

namespace edgeocr::codec {
namespace {

constexpr std::uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

std::uint32_t be32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) << 24 | static_cast<std::uint32_t>(p[1]) << 16 |
         static_cast<std::uint32_t>(p[2]) << 8 | p[3];
}

// CRC-32 (ISO 3309, the one PNG chunks carry), one table lookup per byte.
std::uint32_t crc32(const std::uint8_t* p, std::size_t n) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xffffffffu;
  for (std::size_t i = 0; i < n; ++i) c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

DecodeResult decline(std::string* why, const std::string& what) {
  if (why) *why = what;
  return DecodeResult::kDeclined;
}

// Adam7: the passes' first column and row and their steps (one pass without interlacing).
struct Pass {
  int x0, y0, dx, dy;
};
constexpr Pass kAdam7[7] = {{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4},
                            {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}};
constexpr Pass kWhole = {0, 0, 1, 1};

int pass_extent(int size, int start, int step) {
  return size > start ? (size - start + step - 1) / step : 0;
}

std::uint8_t paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = p > a ? p - a : a - p;
  const int pb = p > b ? p - b : b - p;
  const int pc = p > c ? p - c : c - p;
  if (pa <= pb && pa <= pc) return static_cast<std::uint8_t>(a);
  return static_cast<std::uint8_t>(pb <= pc ? b : c);
}

// Undoes the filter of one row in place (RFC 2083, 6): `prev` is the row above, unfiltered,
// or nullptr for the first row of a pass. False for an unknown filter type.
bool unfilter(int type, std::uint8_t* row, const std::uint8_t* prev, std::size_t n, int bpp) {
  switch (type) {
    case 0:
      return true;
    case 1:
      for (std::size_t i = bpp; i < n; ++i)
        row[i] = static_cast<std::uint8_t>(row[i] + row[i - bpp]);
      return true;
    case 2:
      if (prev)
        for (std::size_t i = 0; i < n; ++i) row[i] = static_cast<std::uint8_t>(row[i] + prev[i]);
      return true;
    case 3:
      for (std::size_t i = 0; i < n; ++i) {
        const int left = i >= static_cast<std::size_t>(bpp) ? row[i - bpp] : 0;
        const int up = prev ? prev[i] : 0;
        row[i] = static_cast<std::uint8_t>(row[i] + ((left + up) >> 1));
      }
      return true;
    case 4:
      for (std::size_t i = 0; i < n; ++i) {
        const bool has_left = i >= static_cast<std::size_t>(bpp);
        const int left = has_left ? row[i - bpp] : 0;
        const int up = prev ? prev[i] : 0;
        const int up_left = has_left && prev ? prev[i - bpp] : 0;
        row[i] = static_cast<std::uint8_t>(row[i] + paeth(left, up, up_left));
      }
      return true;
    default:
      return false;
  }
}

struct Header {
  int width = 0, height = 0, depth = 0, color = 0;
  bool interlaced = false;
  int samples() const {
    return color == 0 ? 1 : color == 2 ? 3 : color == 3 ? 1 : color == 4 ? 2 : 4;
  }
  int bits_per_pixel() const { return depth * samples(); }
};

// Writes the n pixels of one unfiltered row to dst, dst_step bytes apart, as OpenCV gives them.
// False when a palette index is outside the palette.
bool emit_row(const Header& h, const std::uint8_t* src, int n, std::uint8_t* dst,
              std::size_t dst_step, const std::uint8_t* palette, int palette_size,
              const std::uint8_t* alpha, int alpha_size, bool with_alpha) {
  switch (h.color) {
    case 0:
    case 3: {
      const int d = h.depth;
      const unsigned mask = (1u << d) - 1;
      const int scale = h.color == 0 ? 255 / static_cast<int>(mask) : 1;
      for (int x = 0; x < n; ++x, dst += dst_step) {
        unsigned v;
        if (d == 8) {
          v = src[x];
        } else {
          const std::size_t bit = static_cast<std::size_t>(x) * d;
          v = (src[bit >> 3] >> (8 - d - (bit & 7))) & mask;
        }
        if (h.color == 0) {
          dst[0] = static_cast<std::uint8_t>(v * scale);
          continue;
        }
        if (static_cast<int>(v) >= palette_size) return false;
        const std::uint8_t* rgb = palette + 3 * v;
        dst[0] = rgb[2];
        dst[1] = rgb[1];
        dst[2] = rgb[0];
        if (with_alpha) dst[3] = static_cast<int>(v) < alpha_size ? alpha[v] : 255;
      }
      return true;
    }
    case 2:
      for (int x = 0; x < n; ++x, src += 3, dst += dst_step) {
        dst[0] = src[2];
        dst[1] = src[1];
        dst[2] = src[0];
      }
      return true;
    case 4:
      for (int x = 0; x < n; ++x, src += 2, dst += dst_step) {
        dst[0] = dst[1] = dst[2] = src[0];
        dst[3] = src[1];
      }
      return true;
    default:  // 6
      for (int x = 0; x < n; ++x, src += 4, dst += dst_step) {
        dst[0] = src[2];
        dst[1] = src[1];
        dst[2] = src[0];
        dst[3] = src[3];
      }
      return true;
  }
}

}  // namespace

ImageView DecodedImage::view() const {
  ImageView v;
  v.data = pixels.data();
  v.width = width;
  v.height = height;
  v.stride = static_cast<std::ptrdiff_t>(width) * channels;
  v.format = channels == 1   ? PixelFormat::kGray
             : channels == 3 ? PixelFormat::kBGR
                             : PixelFormat::kBGRA;
  return v;
}

bool is_png(const std::uint8_t* data, std::size_t size) {
  return size >= 8 && std::memcmp(data, kSignature, 8) == 0;
}

DecodeResult decode_png(const std::uint8_t* data, std::size_t size, std::uint64_t max_pixels,
                        std::uint64_t max_bytes, DecodedImage* out, std::string* why) {
  if (!is_png(data, size)) return DecodeResult::kNotPng;
  Header h;
  const std::uint8_t* palette = nullptr;
  int palette_size = 0;
  const std::uint8_t* alpha = nullptr;
  int alpha_size = 0;
  // The IDAT chunks' data: where they start and end in `data` (they must be consecutive).
  std::vector<std::pair<std::size_t, std::size_t>> idat;
  bool idat_done = false, ended = false;
  std::size_t idat_bytes = 0;
  for (std::size_t pos = 8; !ended;) {
    if (size - pos < 12) return decline(why, "the file ends before its IEND chunk");
    const std::uint32_t len = be32(data + pos);
    const std::uint8_t* type = data + pos + 4;
    if (len > 0x7fffffffu || len > size - pos - 12)
      return decline(why, "a chunk runs past the end of the file");
    for (int i = 0; i < 4; ++i)
      if (!((type[i] >= 'A' && type[i] <= 'Z') || (type[i] >= 'a' && type[i] <= 'z')))
        return decline(why, "a chunk type that is not four letters");
    if (crc32(type, len + 4) != be32(type + 4 + len))
      return decline(why,
                     std::string("a CRC error in a ") + std::string(type, type + 4) + " chunk");
    const std::uint8_t* body = type + 4;
    const std::string name(type, type + 4);
    if (pos == 8 && name != "IHDR") return decline(why, "no IHDR chunk first");
    if (name == "IHDR") {
      if (pos != 8 || len != 13) return decline(why, "a misplaced or damaged IHDR chunk");
      const std::uint32_t w = be32(body), ht = be32(body + 4);
      if (w == 0 || ht == 0 || w > 0x7fffffffu || ht > 0x7fffffffu)
        return decline(why, "a width or height outside 1..2^31-1");
      h.width = static_cast<int>(w);
      h.height = static_cast<int>(ht);
      h.depth = body[8];
      h.color = body[9];
      if (body[10] != 0 || body[11] != 0 || body[12] > 1)
        return decline(why, "an unknown compression, filter or interlace method");
      h.interlaced = body[12] == 1;
      const int d = h.depth;
      const bool valid = (h.color == 0 && (d == 1 || d == 2 || d == 4 || d == 8 || d == 16)) ||
                         (h.color == 3 && (d == 1 || d == 2 || d == 4 || d == 8)) ||
                         ((h.color == 2 || h.color == 4 || h.color == 6) && (d == 8 || d == 16));
      if (!valid) return decline(why, "an invalid bit depth and colour type");
      if (d == 16) return decline(why, "16-bit samples");
    } else if (name == "PLTE") {
      if (palette || !idat.empty() || len == 0 || len % 3 != 0 || len > 768)
        return decline(why, "a misplaced or damaged PLTE chunk");
      if (h.color == 0 || h.color == 4) return decline(why, "a palette in a grey image");
      palette = body;
      palette_size = static_cast<int>(len / 3);
      if (h.color == 3 && palette_size > (1 << h.depth))
        return decline(why, "more palette entries than the bit depth allows");
    } else if (name == "tRNS") {
      if (h.color != 3) return decline(why, "a tRNS chunk in a grey or RGB image");
      if (!palette || alpha || !idat.empty() || static_cast<int>(len) > palette_size)
        return decline(why, "a misplaced or damaged tRNS chunk");
      alpha = body;
      alpha_size = static_cast<int>(len);
    } else if (name == "IDAT") {
      if (idat_done) return decline(why, "IDAT chunks that are not consecutive");
      idat.emplace_back(pos + 8, len);
      idat_bytes += len;
    } else if (name == "IEND") {
      ended = true;
    } else if (name == "acTL" || name == "fcTL" || name == "fdAT") {
      return decline(why, "an animated PNG");
    } else if (type[0] >= 'A' && type[0] <= 'Z') {
      return decline(why, "an unknown critical chunk " + name);
    }
    if (name != "IDAT" && !idat.empty()) idat_done = true;
    pos += 12 + len;
  }
  if (idat.empty()) return decline(why, "no image data (IDAT)");
  if (h.color == 3 && !palette) return decline(why, "a palette image without its PLTE chunk");

  // Sizes, checked before anything is allocated: width and height are below 2^31 each.
  const std::uint64_t pixels =
      static_cast<std::uint64_t>(h.width) * static_cast<std::uint64_t>(h.height);
  if (pixels > max_pixels)
    return decline(why, std::to_string(h.width) + "x" + std::to_string(h.height) +
                            " is more pixels than the limit of " + std::to_string(max_pixels));
  if (pixels > (std::uint64_t{1} << 40))  // keeps the sizes below far from overflowing
    return decline(why, "more than 2^40 pixels");
  const int channels = h.color == 0 ? 1 : h.color == 2 ? 3 : h.color == 3 ? (alpha ? 4 : 3) : 4;
  const Pass* passes = h.interlaced ? kAdam7 : &kWhole;
  const int n_passes = h.interlaced ? 7 : 1;
  const int bpp = h.bits_per_pixel();
  std::uint64_t raw_size = 0;  // < 2^31 rows of < 2^31 * 4 + 1 bytes: no overflow in 64 bits
  for (int p = 0; p < n_passes; ++p) {
    const std::uint64_t w = pass_extent(h.width, passes[p].x0, passes[p].dx);
    const std::uint64_t rows = pass_extent(h.height, passes[p].y0, passes[p].dy);
    if (w && rows) raw_size += rows * (1 + (w * bpp + 7) / 8);
  }
  const std::uint64_t out_size = pixels * static_cast<std::uint64_t>(channels);
  const std::uint64_t held = raw_size + out_size + (idat.size() > 1 ? idat_bytes : 0);
  if (held > max_bytes)
    return decline(why, "decoding it would take " + std::to_string(held >> 20) +
                            " MiB, more than the " + std::to_string(max_bytes >> 20) +
                            " MiB allowed");

  // One IDAT (the usual case) is inflated where it lies; several are joined first.
  std::vector<std::uint8_t> joined;
  const std::uint8_t* stream = data + idat[0].first;
  if (idat.size() > 1) {
    joined.reserve(idat_bytes);
    for (const auto& [start, len] : idat)
      joined.insert(joined.end(), data + start, data + start + len);
    stream = joined.data();
  }
  std::vector<std::uint8_t> raw(static_cast<std::size_t>(raw_size));
  std::string inflate_why;
  if (!zlib_inflate(stream, idat_bytes, raw.data(), raw.size(), &inflate_why))
    return decline(why, "the image data does not inflate: " + inflate_why);
  std::vector<std::uint8_t>().swap(joined);

  out->width = h.width;
  out->height = h.height;
  out->channels = channels;
  out->pixels.assign(static_cast<std::size_t>(out_size), 0);
  const int filter_bpp = bpp >= 8 ? bpp / 8 : 1;
  std::uint8_t* row = raw.data();
  for (int p = 0; p < n_passes; ++p) {
    const Pass& ps = passes[p];
    const int w = pass_extent(h.width, ps.x0, ps.dx);
    const int rows = pass_extent(h.height, ps.y0, ps.dy);
    if (w == 0 || rows == 0) continue;
    const std::size_t row_bytes = (static_cast<std::size_t>(w) * bpp + 7) / 8;
    const std::uint8_t* prev = nullptr;
    for (int r = 0; r < rows; ++r) {
      if (!unfilter(row[0], row + 1, prev, row_bytes, filter_bpp)) {
        out->pixels.clear();
        return decline(why, "an unknown row filter " + std::to_string(row[0]));
      }
      const std::size_t y = static_cast<std::size_t>(ps.y0) + static_cast<std::size_t>(r) * ps.dy;
      std::uint8_t* dst =
          out->pixels.data() + (y * static_cast<std::size_t>(h.width) + ps.x0) * channels;
      if (!emit_row(h, row + 1, w, dst, static_cast<std::size_t>(ps.dx) * channels, palette,
                    palette_size, alpha, alpha_size, channels == 4)) {
        out->pixels.clear();
        return decline(why, "a palette index outside the palette");
      }
      prev = row + 1;
      row += 1 + row_bytes;
    }
  }
  return DecodeResult::kDecoded;
}

}  // namespace edgeocr::codec
