// PNG through libspng (csrc/codec/decode.h).
#include <spng.h>

#include <cstring>
#include <memory>

#include "codec/decode.h"
#include "codec/orient.h"

namespace edgeocr::codec {
namespace {

// Ancillary chunks libspng keeps (text, ICC profiles, EXIF, unknown chunks), inflated zTXt and
// iTXt included: a compressed text chunk cannot grow past this.
constexpr std::size_t kChunkCache = std::size_t{8} << 20;

struct CtxFree {
  void operator()(spng_ctx* c) const { spng_ctx_free(c); }
};

DecodeResult say(std::string* why, DecodeResult r, const std::string& what) {
  if (why) *why = what;
  return r;
}

std::string spng_why(int err) {
  return std::string("libspng: ") + spng_strerror(err);
}

}  // namespace

DecodeResult decode_png(const std::uint8_t* data, std::size_t size, std::uint64_t max_pixels,
                        std::uint64_t max_bytes, DecodedImage* out, std::string* why) {
  if (sniff_format(data, size) != ImageFormat::kPng)
    return say(why, DecodeResult::kNotHandled, "not a PNG file");
  std::unique_ptr<spng_ctx, CtxFree> ctx(spng_ctx_new(0));
  if (!ctx) return say(why, DecodeResult::kTooLarge, "libspng: out of memory");
  spng_ctx* c = ctx.get();
  // CRC errors in critical chunks fail the file; a damaged ancillary chunk (text, time) is
  // dropped, as libpng (OpenCV's decoder) does.
  spng_set_crc_action(c, SPNG_CRC_ERROR, SPNG_CRC_DISCARD);
  spng_set_chunk_limits(c, kChunkCache, kChunkCache);
  spng_set_option(c, SPNG_KEEP_UNKNOWN_CHUNKS, 1);  // to see an APNG's acTL
  int err = spng_set_png_buffer(c, data, size);
  spng_ihdr ihdr{};
  if (!err) err = spng_get_ihdr(c, &ihdr);
  if (err) {
    // libspng refuses a header whose sizes overflow its arithmetic before any cap applies: name
    // the sizes the header claims when they are over the pixel cap (IHDR is the first chunk).
    if (size >= 24 && std::memcmp(data + 12, "IHDR", 4) == 0) {
      const auto be32 = [&](std::size_t at) {
        return std::uint64_t{data[at]} << 24 | std::uint64_t{data[at + 1]} << 16 |
               std::uint64_t{data[at + 2]} << 8 | data[at + 3];
      };
      const std::uint64_t cw = be32(16), ch = be32(20);
      if (cw * ch > max_pixels)
        return say(why, DecodeResult::kTooLarge,
                   std::to_string(cw) + "x" + std::to_string(ch) +
                       " pixels is more than the limit of " + std::to_string(max_pixels));
    }
    return say(why, DecodeResult::kDamaged, spng_why(err));
  }

  const std::uint64_t w = ihdr.width, h = ihdr.height, pixels = w * h;  // each < 2^31
  if (pixels > max_pixels)
    return say(why, DecodeResult::kTooLarge,
               std::to_string(w) + "x" + std::to_string(h) + " pixels is more than the limit of " +
                   std::to_string(max_pixels));
  if (ihdr.bit_depth == 16) return say(why, DecodeResult::kUnsupported, "16-bit samples");

  // Chunks before the image data: tRNS, eXIf, and an APNG's acTL among the unknown ones.
  spng_trns trns{};
  err = spng_get_trns(c, &trns);
  const bool has_trns = err == 0;
  if (err && err != SPNG_ECHUNKAVAIL) return say(why, DecodeResult::kDamaged, spng_why(err));
  std::uint32_t n_unknown = 0;
  err = spng_get_unknown_chunks(c, nullptr, &n_unknown);
  if (err == 0 && n_unknown > 0) {
    std::vector<spng_unknown_chunk> chunks(n_unknown);
    if (spng_get_unknown_chunks(c, chunks.data(), &n_unknown) == 0)
      for (std::uint32_t i = 0; i < n_unknown; ++i)
        if (std::memcmp(chunks[i].type, "acTL", 4) == 0)
          return say(why, DecodeResult::kUnsupported, "an animated PNG (APNG)");
  } else if (err && err != SPNG_ECHUNKAVAIL) {
    return say(why, DecodeResult::kDamaged, spng_why(err));
  }
  int orientation = 1;
  spng_exif exif{};
  if (spng_get_exif(c, &exif) == 0)
    orientation =
        detail::exif_orientation(reinterpret_cast<const std::uint8_t*>(exif.data), exif.length);

  // OpenCV's imdecode(IMREAD_UNCHANGED): grey (1-8 bits) as grey, its tRNS ignored; grey +
  // alpha as BGRA; RGB as BGR, or BGRA with a tRNS colour key; palettes as BGR, or BGRA with
  // tRNS; RGBA as BGRA. libspng writes grey replicated into RGBA, so grey + alpha needs no
  // reordering.
  int fmt = SPNG_FMT_RGB8, flags = 0, channels = 3;
  switch (ihdr.color_type) {
    case SPNG_COLOR_TYPE_GRAYSCALE:
      fmt = SPNG_FMT_G8;
      channels = 1;
      break;
    case SPNG_COLOR_TYPE_GRAYSCALE_ALPHA:
    case SPNG_COLOR_TYPE_TRUECOLOR_ALPHA:
      fmt = SPNG_FMT_RGBA8;
      channels = 4;
      break;
    default:  // truecolour, indexed
      if (has_trns) {
        fmt = SPNG_FMT_RGBA8;
        flags = SPNG_DECODE_TRNS;
        channels = 4;
      }
      break;
  }
  // What is held, before any of it is allocated (decode.h): the result, libspng's three rows
  // (the scanline, the one before it, and a row in the output format: 8 bytes a pixel bounds
  // them), and a second result when the EXIF orientation turns it.
  const std::uint64_t out_bytes = pixels * static_cast<std::uint64_t>(channels);
  const std::uint64_t held = out_bytes * (orientation != 1 ? 2 : 1) + 3 * (w * 8 + 1);
  if (held > max_bytes)
    return say(why, DecodeResult::kTooLarge,
               "decoding this " + std::to_string(w) + "x" + std::to_string(h) + " PNG takes " +
                   std::to_string(held >> 20) + " MiB, more than the " +
                   std::to_string(max_bytes >> 20) + " MiB allowed");
  std::size_t len = 0;
  err = spng_decoded_image_size(c, fmt, &len);
  if (err) return say(why, DecodeResult::kDamaged, spng_why(err));
  if (len != out_bytes) return say(why, DecodeResult::kDamaged, "libspng: unexpected image size");

  std::vector<std::uint8_t> px(len);
  err = spng_decode_image(c, px.data(), px.size(), fmt, flags);
  if (err) return say(why, DecodeResult::kDamaged, spng_why(err));
  ctx.reset();  // its rows and inflate state, before the result is turned

  if (channels >= 3)  // RGB(A) to BGR(A), in place
    for (std::size_t i = 0; i < px.size(); i += static_cast<std::size_t>(channels))
      std::swap(px[i], px[i + 2]);
  out->channels = channels;
  if (orientation == 1) {
    out->width = static_cast<int>(w);
    out->height = static_cast<int>(h);
    out->pixels = std::move(px);
    return DecodeResult::kDecoded;
  }
  const bool swaps = detail::orientation_swaps(orientation);
  out->width = static_cast<int>(swaps ? h : w);
  out->height = static_cast<int>(swaps ? w : h);
  out->pixels.assign(px.size(), 0);
  const std::size_t row_bytes = static_cast<std::size_t>(w) * channels;
  for (std::uint64_t y = 0; y < h; ++y)
    detail::place_row(px.data() + y * row_bytes, static_cast<int>(y), static_cast<int>(w),
                      static_cast<int>(h), channels, orientation, out->pixels.data());
  return DecodeResult::kDecoded;
}

}  // namespace edgeocr::codec
