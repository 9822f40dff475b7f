// JPEG through libjpeg-turbo (csrc/codec/decode.h).
//
// libjpeg reports errors by calling error_exit, which must not return: it longjmps back to the
// setjmp of the phase that called the library. Each phase (read_header, decompress) is a plain
// function that touches only C structures and caller-owned buffers between its setjmp and its
// return, so no C++ object is skipped by the jump; buffers are allocated between the phases.
#include <climits>
#include <csetjmp>
#include <cstdio>
#include <cstring>

extern "C" {
#include <jpeglib.h>
// jpeglib.h first: jerror.h's codes are used by the message hook.
#include <jerror.h>
}

#include "codec/decode.h"
#include "codec/orient.h"

namespace edgeocr::codec {
namespace {

struct ErrorMgr {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX] = {};
  DecodeResult kind = DecodeResult::kDamaged;
};

// The file in memory. At its end the source gives an EOI marker, as jpeg_mem_src does, but
// without its "premature end" warning, and notes that the file lacked one (`ended`): a scan that
// needs data past the end still warns (JWRN_HIT_MARKER: refused), while a complete scan with its
// EOI missing decodes, as OpenCV decodes it.
struct Source {
  jpeg_source_mgr pub;
  bool ended = false;
};

void source_init(j_decompress_ptr) {}
void source_term(j_decompress_ptr) {}

boolean source_fill(j_decompress_ptr d) {
  static const JOCTET kEoi[2] = {0xff, JPEG_EOI};
  auto* s = reinterpret_cast<Source*>(d->src);
  s->ended = true;
  s->pub.next_input_byte = kEoi;
  s->pub.bytes_in_buffer = 2;
  return TRUE;
}

void source_skip(j_decompress_ptr d, long n) {
  auto* s = reinterpret_cast<Source*>(d->src);
  if (n <= 0) return;
  if (static_cast<unsigned long>(n) > s->pub.bytes_in_buffer) {
    source_fill(d);
    return;
  }
  s->pub.next_input_byte += n;
  s->pub.bytes_in_buffer -= static_cast<std::size_t>(n);
}

// The state of one decode; lives in decode_jpeg's frame, outside the setjmp phases.
struct Jpeg {
  jpeg_decompress_struct d;
  ErrorMgr err;
  Source src;
  jpeg_progress_mgr progress;
  bool created = false;
  ~Jpeg() {
    if (created) jpeg_destroy_decompress(&d);
  }
};

[[noreturn]] void fail_with(j_common_ptr c, DecodeResult kind) {
  auto* e = reinterpret_cast<ErrorMgr*>(c->err);
  e->kind = kind;
  std::longjmp(e->jump, 1);
}

void on_error(j_common_ptr c) {
  auto* e = reinterpret_cast<ErrorMgr*>(c->err);
  (*c->err->format_message)(c, e->message);
  const int code = c->err->msg_code;
  // What this build of libjpeg-turbo does not decode: 12- and 16-bit samples, lossless and
  // hierarchical JPEG, colour spaces it has no conversion for. The rest is damage; running out
  // of the memory allowed (no backing store) is the byte cap.
  if (code == JERR_BAD_PRECISION || code == JERR_SOF_UNSUPPORTED || code == JERR_NOTIMPL ||
      code == JERR_CONVERSION_NOTIMPL)
    fail_with(c, DecodeResult::kUnsupported);
  if (code == JERR_NO_BACKING_STORE || code == JERR_OUT_OF_MEMORY)
    fail_with(c, DecodeResult::kTooLarge);
  fail_with(c, DecodeResult::kDamaged);
}

// Warnings (level -1) that mean the library had to invent pixels: the file is refused, not
// decoded with grey where its data was. Other warnings (extraneous bytes between markers, an
// unknown JFIF revision, a bad ICC marker) leave the pixels as the file has them.
void on_message(j_common_ptr c, int level) {
  if (level != -1) return;  // trace messages
  const int code = c->err->msg_code;
  if (code == JWRN_HIT_MARKER || code == JWRN_JPEG_EOF || code == JWRN_HUFF_BAD_CODE ||
      code == JWRN_ARITH_BAD_CODE || code == JWRN_MUST_RESYNC) {
    auto* e = reinterpret_cast<ErrorMgr*>(c->err);
    (*c->err->format_message)(c, e->message);
    fail_with(c, DecodeResult::kDamaged);
  }
}

void on_progress(j_common_ptr c) {
  auto* d = reinterpret_cast<j_decompress_ptr>(c);
  if (d->input_scan_number > kMaxJpegScans) {
    auto* e = reinterpret_cast<ErrorMgr*>(c->err);
    std::snprintf(e->message, sizeof e->message, "more than %d scans", kMaxJpegScans);
    fail_with(c, DecodeResult::kDamaged);
  }
}

// Phase 1: the headers up to the first scan, the APP1 markers kept (EXIF). False on error.
bool read_header(Jpeg* j, const std::uint8_t* data, std::size_t size) {
  j->d.err = jpeg_std_error(&j->err.pub);
  j->err.pub.error_exit = on_error;
  j->err.pub.emit_message = on_message;
  if (setjmp(j->err.jump)) return false;
  jpeg_create_decompress(&j->d);
  j->created = true;
  j->progress.progress_monitor = on_progress;
  j->d.progress = &j->progress;
  j->src.pub.init_source = source_init;
  j->src.pub.fill_input_buffer = source_fill;
  j->src.pub.skip_input_data = source_skip;
  j->src.pub.resync_to_restart = jpeg_resync_to_restart;
  j->src.pub.term_source = source_term;
  j->src.pub.next_input_byte = data;
  j->src.pub.bytes_in_buffer = size;
  j->d.src = &j->src.pub;
  jpeg_save_markers(&j->d, JPEG_APP0 + 1, 0xffff);
  jpeg_read_header(&j->d, TRUE);
  return true;
}

// OpenCV's CMYK to BGR (its JPEG decoder asks libjpeg for CMYK and converts each pixel so:
// Adobe's inverted CMYK, as Photoshop and Pillow write it).
void cmyk_to_bgr(const std::uint8_t* cmyk, int w, std::uint8_t* bgr) {
  for (int x = 0; x < w; ++x, cmyk += 4, bgr += 3) {
    const int k = cmyk[3];
    bgr[0] = static_cast<std::uint8_t>(k - ((255 - cmyk[2]) * k >> 8));
    bgr[1] = static_cast<std::uint8_t>(k - ((255 - cmyk[1]) * k >> 8));
    bgr[2] = static_cast<std::uint8_t>(k - ((255 - cmyk[0]) * k >> 8));
  }
}

// Phase 2: decompress into out (channels bytes a pixel, turned by orientation); rows: 7 bytes a
// pixel of one source row (CMYK, then BGR). False on error.
bool decompress(Jpeg* j, J_COLOR_SPACE space, int channels, int orientation, std::uint8_t* out,
                std::uint8_t* rows, JDIMENSION want_w, JDIMENSION want_h) {
  if (setjmp(j->err.jump)) return false;
  jpeg_decompress_struct& d = j->d;
  d.out_color_space = space;
  // libjpeg's defaults, which OpenCV keeps: the accurate integer IDCT (JDCT_ISLOW) and fancy
  // (triangle-filter) chroma upsampling.
  d.dct_method = JDCT_ISLOW;
  d.do_fancy_upsampling = TRUE;
  jpeg_start_decompress(&d);
  if (d.output_width != want_w || d.output_height != want_h) {
    std::snprintf(j->err.message, sizeof j->err.message, "an output size the header did not say");
    return false;
  }
  const int w = static_cast<int>(d.output_width), h = static_cast<int>(d.output_height);
  const bool cmyk = space == JCS_CMYK;
  const std::size_t out_row = static_cast<std::size_t>(w) * channels;
  while (d.output_scanline < d.output_height) {
    const int y = static_cast<int>(d.output_scanline);
    std::uint8_t* direct = out + static_cast<std::size_t>(y) * out_row;
    JSAMPROW row = cmyk || orientation != 1 ? rows : direct;
    if (jpeg_read_scanlines(&d, &row, 1) != 1) {
      std::snprintf(j->err.message, sizeof j->err.message, "no scanline %d", y);
      return false;
    }
    const std::uint8_t* src = rows;
    if (cmyk) {
      std::uint8_t* bgr = orientation == 1 ? direct : rows + static_cast<std::size_t>(w) * 4;
      cmyk_to_bgr(rows, w, bgr);
      src = bgr;
    }
    if (orientation != 1) detail::place_row(src, y, w, h, channels, orientation, out);
  }
  // Not jpeg_finish_decompress: every pixel is out, and what follows the last scan (a missing
  // EOI, trailing bytes) changes none of them; OpenCV ignores its errors too.
  return true;
}

DecodeResult say(std::string* why, DecodeResult r, const std::string& what) {
  if (why) *why = what;
  return r;
}

std::uint64_t round_up(std::uint64_t v, std::uint64_t m) {
  return (v + m - 1) / m * m;
}

}  // namespace

DecodeResult decode_jpeg(const std::uint8_t* data, std::size_t size, std::uint64_t max_pixels,
                         std::uint64_t max_bytes, DecodedImage* out, std::string* why) {
  if (sniff_format(data, size) != ImageFormat::kJpeg)
    return say(why, DecodeResult::kNotHandled, "not a JPEG file");
  Jpeg j;
  if (!read_header(&j, data, size))
    return say(why, j.err.kind, std::string("libjpeg-turbo: ") + j.err.message);
  const jpeg_decompress_struct& d = j.d;
  const std::uint64_t w = d.image_width, h = d.image_height, pixels = w * h;  // each < 2^16
  if (pixels > max_pixels)
    return say(why, DecodeResult::kTooLarge,
               std::to_string(w) + "x" + std::to_string(h) + " pixels is more than the limit of " +
                   std::to_string(max_pixels));
  // OpenCV's imdecode: one component as grey; three (YCbCr, RGB) as BGR; four (CMYK, YCCK) as
  // BGR through CMYK. Two components have no colour space OpenCV or libjpeg converts.
  J_COLOR_SPACE space;
  int channels;
  switch (d.num_components) {
    case 1:
      space = JCS_GRAYSCALE;
      channels = 1;
      break;
    case 3:
      space = JCS_EXT_BGR;
      channels = 3;
      break;
    case 4:
      space = JCS_CMYK;
      channels = 3;
      break;
    default:
      return say(why, DecodeResult::kUnsupported,
                 std::to_string(d.num_components) + " colour components");
  }
  int orientation = 1;
  for (jpeg_saved_marker_ptr m = d.marker_list; m; m = m->next)
    if (m->marker == JPEG_APP0 + 1 && m->data_length >= 6 &&
        std::memcmp(m->data, "Exif\0\0", 6) == 0) {
      orientation = detail::exif_orientation(m->data + 6, m->data_length - 6);
      break;
    }

  // What is held, before any of it is allocated (decode.h): the result; a progressive or
  // multi-scan file's coefficients (libjpeg keeps them all: 64 2-byte coefficients a block,
  // blocks padded to the sampling factors); libjpeg's row buffers (bounded here by four MCU rows
  // of each component, 2 bytes a sample) and this decoder's two rows.
  std::uint64_t coefficients = 0, working = w * 7;
  for (int c = 0; c < d.num_components; ++c) {
    const jpeg_component_info& ci = d.comp_info[c];
    const std::uint64_t bw = round_up(ci.width_in_blocks, ci.h_samp_factor);
    const std::uint64_t bh = round_up(ci.height_in_blocks, ci.v_samp_factor);
    coefficients += bw * bh * 64 * sizeof(JCOEF);
    working += bw * 8 * ci.v_samp_factor * 8 * 4 * 2;
  }
  // Asked here, between the phases, where its own checks cannot fail (it errors outside the
  // header-read state, and an error outside a phase would jump to a stale setjmp).
  const bool multi_scan = jpeg_has_multiple_scans(&j.d);
  if (!multi_scan) coefficients = 0;
  const std::uint64_t out_bytes = pixels * static_cast<std::uint64_t>(channels);
  const std::uint64_t held = out_bytes + coefficients + working;
  if (held > max_bytes)
    return say(why, DecodeResult::kTooLarge,
               "decoding this " + std::to_string(w) + "x" + std::to_string(h) + " JPEG takes " +
                   std::to_string(held >> 20) + " MiB, more than the " +
                   std::to_string(max_bytes >> 20) + " MiB allowed");
  // The same cap inside libjpeg: whole-image buffers beyond it fail (no backing store).
  const std::uint64_t rest = max_bytes - out_bytes;
  j.d.mem->max_memory_to_use = static_cast<long>(rest < LONG_MAX ? rest : LONG_MAX);

  const bool swaps = detail::orientation_swaps(orientation);
  out->width = static_cast<int>(swaps ? h : w);
  out->height = static_cast<int>(swaps ? w : h);
  out->channels = channels;
  out->pixels.assign(static_cast<std::size_t>(out_bytes), 0);
  std::vector<std::uint8_t> rows(static_cast<std::size_t>(w) * 7);
  if (!decompress(&j, space, channels, orientation, out->pixels.data(), rows.data(), d.image_width,
                  d.image_height)) {
    out->pixels = {};
    return say(why, j.err.kind, std::string("libjpeg-turbo: ") + j.err.message);
  }
  // A progressive or multi-scan file without its EOI may have lost whole scans, which no
  // warning tells (the image is then a coarser one): refused.
  if (j.src.ended && multi_scan) {
    out->pixels = {};
    return say(why, DecodeResult::kDamaged,
               "libjpeg-turbo: the file ends before its last scan (no EOI marker)");
  }
  return DecodeResult::kDecoded;
}

}  // namespace edgeocr::codec
