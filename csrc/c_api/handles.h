// The C API's handles and what its translation units share about them: images and encoded files
// in, lines and words out (predictor_c.cpp for results, document_c.cpp for documents).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "codec/decode.h"
#include "edgeocr/document.h"
#include "edgeocr/image.h"
#include "edgeocr/memory_pool.h"
#include "edgeocr/pipeline.h"
#include "edgeocr_c.h"

struct edgeocr_predictor_s {
  std::shared_ptr<edgeocr::MemoryPool> pool;
  std::shared_ptr<edgeocr::Pipeline> pipeline;
  std::shared_ptr<edgeocr::DocumentParser> document;  // null without a layout model
  bool has_rec = false;
};

struct edgeocr_result_s {
  edgeocr::OcrResult result;
};

struct edgeocr_document_s {
  edgeocr::DocumentResult doc;
  // The Markdown texts handed out, by (figure prefix, furniture): kept until destroy, so the
  // pointers stay valid; a map's nodes do not move.
  std::mutex mu;
  std::map<std::pair<std::string, bool>, std::string> markdown;
};

namespace edgeocr {
namespace capi {

// The caller's image as a view, every field checked (InvalidArgument naming it).
ImageView view_of(const edgeocr_image_t* img, const char* fn);

// The PNG or JPEG in data[0, size) decoded by the core's decoder with the C API's caps
// (max_pixels 0: EDGEOCR_DEFAULT_MAX_PIXELS); Unsupported / InvalidArgument with the reason.
codec::DecodedImage decode_encoded(const void* data, std::size_t size, std::size_t max_pixels,
                                   const char* fn, const char* pixels_fn);

// Line `index` of `lines` into the caller's *line (struct_size rules of edgeocr_line_t);
// `owner` null: InvalidArgument "<owner_name> is NULL".
void get_line(const std::vector<OcrLine>* lines, const char* owner_name, std::size_t index,
              edgeocr_line_t* line, const char* fn);
void get_word(const std::vector<OcrLine>* lines, const char* owner_name, std::size_t line_index,
              std::size_t word_index, edgeocr_word_t* word, const char* fn);

}  // namespace capi
}  // namespace edgeocr
