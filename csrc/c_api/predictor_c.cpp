// edgeocr_options_t, edgeocr_predictor_t and edgeocr_result_t over edgeocr::Pipeline (and the
// predictor's DocumentParser: document_c.cpp).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "c_api/c_api_internal.h"
#include "c_api/handles.h"
#include "codec/decode.h"
#include "edgeocr/image.h"
#include "edgeocr/loader.h"
#include "edgeocr/memory_pool.h"
#include "edgeocr/model.h"
#include "edgeocr/pipeline.h"
#include "edgeocr/runtime.h"
#include "edgeocr/settings.h"
#include "edgeocr/status.h"

namespace edgeocr {
namespace capi {
namespace {

[[noreturn]] void invalid(const std::string& message) {
  fail(StatusCode::kInvalidArgument, message);
}

// ---- options ---------------------------------------------------------------

void check_options(const edgeocr_options_t& o) {
  const char* fn = "edgeocr_predictor_create";
  if (o.bundle_path != nullptr) {
    if (*o.bundle_path == '\0') invalid(std::string(fn) + ": bundle_path is empty");
    if (o.det_model_path || o.det_model_data || o.cls_model_path || o.cls_model_data ||
        o.rec_model_path || o.rec_model_data || o.keys_path || o.keys_data ||
        o.recheck_model_path || o.recheck_model_data || o.recheck_keys_path)
      invalid(std::string(fn) +
              ": a bundle (bundle_path) holds its models and dictionary; "
              "give no det/cls/rec/recheck models or keys with it");
  }
  struct Source {
    const char* role;
    const char* path;
    const void* data;
    std::size_t size;
  };
  const Source sources[] = {
      {"det", o.det_model_path, o.det_model_data, o.det_model_size},
      {"cls", o.cls_model_path, o.cls_model_data, o.cls_model_size},
      {"rec", o.rec_model_path, o.rec_model_data, o.rec_model_size},
      {"recheck", o.recheck_model_path, o.recheck_model_data, o.recheck_model_size},
      {"layout", o.layout_model_path, o.layout_model_data, o.layout_model_size},
      {"table", o.table_model_path, o.table_model_data, o.table_model_size},
      {"keys", o.keys_path, o.keys_data, o.keys_size}};
  for (const Source& s : sources) {
    const std::string r(s.role);
    const std::string path_name = r == "keys" ? "keys_path" : r + "_model_path";
    const std::string data_name = r == "keys" ? "keys_data" : r + "_model_data";
    const std::string size_name = r == "keys" ? "keys_size" : r + "_model_size";
    if (s.path && (s.data || s.size))
      invalid(std::string(fn) + ": give either " + path_name + " or " + data_name + ", not both");
    if (s.path && *s.path == '\0') invalid(std::string(fn) + ": " + path_name + " is empty");
    if (s.data && s.size == 0)
      invalid(std::string(fn) + ": " + data_name + " is set but " + size_name + " is 0");
    if (!s.data && s.size != 0)
      invalid(std::string(fn) + ": " + size_name + " is " + std::to_string(s.size) + " but " +
              data_name + " is NULL");
  }
  const bool has_det = o.det_model_path || o.det_model_data;
  const bool has_rec = o.rec_model_path || o.rec_model_data;
  if (!has_det && !has_rec && !o.bundle_path)
    invalid(std::string(fn) +
            ": no model given; set bundle_path, or det_model_path and/or "
            "rec_model_path (or the *_model_data buffers)");
  if (!has_rec && (o.keys_path || o.keys_data))
    invalid(std::string(fn) + ": keys given but there is no rec model");
  const bool has_recheck = o.recheck_model_path || o.recheck_model_data;
  if (has_recheck && !has_rec)
    invalid(std::string(fn) +
            ": a recheck model re-reads the rec model's lines; give rec_model_path (or "
            "rec_model_data) with it");
  if (o.recheck_keys_path && !has_recheck)
    invalid(std::string(fn) + ": recheck_keys_path given but there is no recheck model");
  if (o.recheck_keys_path && *o.recheck_keys_path == '\0')
    invalid(std::string(fn) + ": recheck_keys_path is empty");
  if ((o.table_model_path || o.table_model_data) && !o.layout_model_path && !o.layout_model_data &&
      !o.bundle_path)
    invalid(std::string(fn) +
            ": a table model reads the tables the layout model finds; give layout_model_path (or "
            "layout_model_data) with table_model_path (or table_model_data)");
  if (o.ort_library_path && *o.ort_library_path == '\0')
    invalid(std::string(fn) + ": ort_library_path is empty (use NULL for the default search)");
  if (o.threads < 0 || o.threads > kMaxSessionThreads)
    invalid(std::string(fn) + ": threads must be in [0, " + std::to_string(kMaxSessionThreads) +
            "] (0 = runtime default), got " + std::to_string(o.threads));
  if (o.arm64_bf16_fastmath != 0 && o.arm64_bf16_fastmath != 1)
    invalid(std::string(fn) + ": arm64_bf16_fastmath must be 0 or 1, got " +
            std::to_string(o.arm64_bf16_fastmath));
  if (o.recheck_at_create != 0 && o.recheck_at_create != 1)
    invalid(std::string(fn) + ": recheck_at_create must be 0 or 1, got " +
            std::to_string(o.recheck_at_create));
  if (o.no_disk_cache != 0 && o.no_disk_cache != 1)
    invalid(std::string(fn) + ": no_disk_cache must be 0 or 1, got " +
            std::to_string(o.no_disk_cache));
  if (o.max_memory_mb > (SIZE_MAX >> 20))
    invalid(std::string(fn) + ": max_memory_mb " + std::to_string(o.max_memory_mb) +
            " does not fit in the address space");
}

// edgeocr's defaults, then the options' settings (through the settings table).
PipelineConfig config_of(const edgeocr_options_t& o) {
  PipelineConfig c;
  for (const auto& kv : setting_overrides(o)) setting_info(kv.first).set(c, kv.second);
  return c;
}

ModelSource source_of(const char* path, const void* data, std::size_t size, const char* role) {
  ModelSource s;
  if (path) s.path = path;
  s.data = data;
  s.size = size;
  s.name = std::string("<") + role + " model bytes>";
  return s;
}

}  // namespace

// ---- images ----------------------------------------------------------------

ImageView view_of(const edgeocr_image_t* img, const char* fn) {
  const std::string f(fn);
  if (!img) invalid(f + ": image is NULL");
  if (!img->data) invalid(f + ": image.data is NULL");
  if (img->width <= 0 || img->height <= 0 || img->width > EDGEOCR_MAX_IMAGE_SIDE ||
      img->height > EDGEOCR_MAX_IMAGE_SIDE)
    invalid(f + ": image size " + std::to_string(img->width) + "x" + std::to_string(img->height) +
            " is outside 1.." + std::to_string(EDGEOCR_MAX_IMAGE_SIDE) + " per side");
  if (img->format < EDGEOCR_PIXEL_BGR || img->format > EDGEOCR_PIXEL_GRAY_ALPHA)
    invalid(
        f + ": image.format " + std::to_string(img->format) +
        " is not an edgeocr_pixel_format_t (BGR=0, RGB=1, GRAY=2, BGRA=3, RGBA=4, GRAY_ALPHA=5)");
  ImageView v;
  v.format = static_cast<PixelFormat>(img->format);
  const std::ptrdiff_t row_bytes = static_cast<std::ptrdiff_t>(img->width) * v.channels();
  if (img->stride < row_bytes)
    invalid(f + ": image.stride " + std::to_string(img->stride) +
            " bytes is smaller than width * channels = " + std::to_string(row_bytes));
  // stride * (height - 1) + row_bytes without overflow.
  const std::ptrdiff_t rows_before_last = img->height - 1;
  if (rows_before_last > 0 && img->stride > (PTRDIFF_MAX - row_bytes) / rows_before_last)
    invalid(f + ": image.stride " + std::to_string(img->stride) + " is absurd for height " +
            std::to_string(img->height));
  const std::ptrdiff_t need = img->stride * rows_before_last + row_bytes;
  if (img->data_size < static_cast<std::size_t>(need))
    invalid(f + ": image.data_size " + std::to_string(img->data_size) + " bytes is smaller than " +
            std::to_string(need) + " = stride * (height - 1) + width * channels");
  v.data = static_cast<const std::uint8_t*>(img->data);
  v.width = img->width;
  v.height = img->height;
  v.stride = img->stride;
  return v;
}

codec::DecodedImage decode_encoded(const void* data, std::size_t size, std::size_t max_pixels,
                                   const char* fn, const char* pixels_fn) {
  if (!data || size == 0) invalid(std::string(fn) + ": no image bytes (data NULL or size 0)");
  const std::uint64_t cap = max_pixels ? max_pixels : EDGEOCR_DEFAULT_MAX_PIXELS;
  // The Python package's caps (edgeocr/image_io.py): the same decoder, the same default bytes.
  codec::DecodedImage img;
  std::string why;
  switch (codec::decode_image(static_cast<const std::uint8_t*>(data), size, cap,
                              codec::default_max_bytes(cap), &img, &why)) {
    case codec::DecodeResult::kNotHandled:
      fail(StatusCode::kUnsupported, std::string(fn) +
                                         ": not a PNG or JPEG file (decode other formats yourself "
                                         "and call " +
                                         pixels_fn + ")");
    case codec::DecodeResult::kUnsupported:
      fail(StatusCode::kUnsupported, std::string(fn) + ": a file this decoder does not read (" +
                                         why + "): decode it yourself and call " + pixels_fn);
    case codec::DecodeResult::kTooLarge:
      fail(StatusCode::kInvalidArgument,
           std::string(fn) + ": " + why + " (max_pixels raises the limit)");
    case codec::DecodeResult::kDamaged:
      fail(StatusCode::kInvalidArgument, std::string(fn) + ": a damaged image: " + why);
    case codec::DecodeResult::kDecoded:
      break;
  }
  return img;
}

void get_line(const std::vector<OcrLine>* lines, const char* owner_name, std::size_t index,
              edgeocr_line_t* line, const char* fn) {
  if (!line) invalid(std::string(fn) + ": line is NULL");
  // API version 2's line ends before word_count (version 4); a size that ends inside
  // word_count is no version's.
  check_out_size(line->struct_size, offsetof(edgeocr_line_t, word_count), "line", fn);
  check_not_inside(line->struct_size, offsetof(edgeocr_line_t, word_count), sizeof(size_t), "line",
                   "word_count", fn);
  // Version 8 appends `turns`: a size past word_count but short of the whole struct ends
  // inside it (or its padding).
  check_not_inside(line->struct_size, offsetof(edgeocr_line_t, turns),
                   sizeof(edgeocr_line_t) - offsetof(edgeocr_line_t, turns), "line", "turns", fn);
  edgeocr_line_t out;
  std::memset(&out, 0, sizeof out);
  write_out(line, out);  // zeroed if what follows fails
  if (!lines) invalid(std::string(fn) + ": " + owner_name + " is NULL");
  if (index >= lines->size())
    invalid(std::string(fn) + ": index " + std::to_string(index) + " is out of range; the " +
            owner_name + " has " + std::to_string(lines->size()) + " line(s)");
  const OcrLine& l = (*lines)[index];
  out.text = l.text.c_str();
  out.text_size = l.text.size();
  out.score = l.score;
  out.det_score = l.det_score;
  for (int i = 0; i < 4; ++i) {
    out.box[2 * i] = l.box.p[i].x;
    out.box[2 * i + 1] = l.box.p[i].y;
  }
  out.flipped = l.flipped ? 1 : 0;
  out.word_count = l.words.size();
  out.turns = l.turns;
  write_out(line, out);
}

void get_word(const std::vector<OcrLine>* lines, const char* owner_name, std::size_t line_index,
              std::size_t word_index, edgeocr_word_t* word, const char* fn) {
  if (!word) invalid(std::string(fn) + ": word is NULL");
  check_out_size(word->struct_size, sizeof(edgeocr_word_t), "word", fn);
  edgeocr_word_t out;
  std::memset(&out, 0, sizeof out);
  write_out(word, out);  // zeroed if what follows fails
  if (!lines) invalid(std::string(fn) + ": " + owner_name + " is NULL");
  if (line_index >= lines->size())
    invalid(std::string(fn) + ": line_index " + std::to_string(line_index) +
            " is out of range; the " + owner_name + " has " + std::to_string(lines->size()) +
            " line(s)");
  const auto& words = (*lines)[line_index].words;
  if (word_index >= words.size())
    invalid(std::string(fn) + ": word_index " + std::to_string(word_index) +
            " is out of range; line " + std::to_string(line_index) + " has " +
            std::to_string(words.size()) + " word(s)");
  const OcrWord& w = words[word_index];
  out.text = w.text.c_str();
  out.text_size = w.text.size();
  out.score = w.score;
  for (int i = 0; i < 4; ++i) {
    out.box[2 * i] = w.box.p[i].x;
    out.box[2 * i + 1] = w.box.p[i].y;
  }
  write_out(word, out);
}

namespace {

void check_predictor(const edgeocr_predictor_s* p, const char* fn) {
  if (!p) invalid(std::string(fn) + ": predictor is NULL");
}

void check_result(const edgeocr_result_s* r, const char* fn) {
  if (!r) invalid(std::string(fn) + ": result is NULL");
}

}  // namespace
}  // namespace capi
}  // namespace edgeocr

extern "C" {

edgeocr_status_t edgeocr_predictor_create(const edgeocr_options_t* options,
                                          edgeocr_predictor_t* predictor) {
  if (predictor) *predictor = nullptr;
  EDGEOCR_C_TRY({
    using namespace edgeocr;
    if (!predictor) capi::invalid("edgeocr_predictor_create: predictor (the output) is NULL");
    // The caller's struct, of whatever version, as this library's (defaults for what it lacks).
    const edgeocr_options_t o = capi::options_of(options, "edgeocr_predictor_create");
    capi::check_options(o);
    // Every setting checked, with the memory its sizes imply, before a model is loaded.
    PipelineConfig config = capi::config_of(o);
    validate_config(config, static_cast<std::uint64_t>(o.max_memory_mb) << 20);
    if (o.ort_library_path) {
      // Loaded now, so that a path that fails fails this call and is forgotten (runtime.h).
      set_ort_library_path(o.ort_library_path);
      runtime_info();
    }
    auto p = std::make_unique<edgeocr_predictor_s>();
    LoadOptions lo;
    if (o.bundle_path) lo.bundle.path = o.bundle_path;
    lo.det = capi::source_of(o.det_model_path, o.det_model_data, o.det_model_size, "det");
    lo.cls = capi::source_of(o.cls_model_path, o.cls_model_data, o.cls_model_size, "cls");
    lo.rec = capi::source_of(o.rec_model_path, o.rec_model_data, o.rec_model_size, "rec");
    lo.recheck = capi::source_of(o.recheck_model_path, o.recheck_model_data, o.recheck_model_size,
                                 "recheck");
    lo.layout =
        capi::source_of(o.layout_model_path, o.layout_model_data, o.layout_model_size, "layout");
    lo.table = capi::source_of(o.table_model_path, o.table_model_data, o.table_model_size, "table");
    if (o.recheck_keys_path) lo.recheck_keys_path = o.recheck_keys_path;
    if (o.keys_path) lo.keys_path = o.keys_path;
    if (o.keys_data) {
      lo.keys_text.assign(o.keys_data, o.keys_size);
      lo.has_keys_text = true;
    }
    lo.max_memory_bytes = o.max_memory_mb << 20;
    lo.defer_recheck = o.recheck_at_create == 0;
    lo.disk_cache = o.no_disk_cache == 0;
    // As the Python Predictor (docs/performance.md, "Session memory"): one arena shared by
    // the det, cls and rec sessions, memory pattern off.
    lo.session.shared_arena = true;
    lo.session.memory_pattern = false;
    lo.session.intra_threads = o.threads;
    lo.session.arm64_bf16_fastmath =
        o.arm64_bf16_fastmath == 1;  // aarch64 only: ORT ignores it elsewhere
    lo.session.shrink_arena =
        o.max_memory_mb != 0;  // a budget: the arena's free memory given back after every run
    // Settings the caller set (struct fields changed from their defaults, key/value entries)
    // override the model set's or the bundle's own; the rest stay as the loader decides.
    lo.overrides = capi::setting_overrides(o);
    LoadedPipeline loaded = load_pipeline(lo);
    p->pool = loaded.pool;
    p->has_rec = loaded.has_rec;
    p->pipeline = std::move(loaded.pipeline);
    p->document = std::move(loaded.document);  // over the same pipeline (and its budget)
    if (o.max_memory_mb)
      p->pipeline->set_memory_budget(MemoryBudget::create(o.max_memory_mb << 20),
                                     loaded.memory_profile);
    *predictor = p.release();
  })
}

void edgeocr_predictor_destroy(edgeocr_predictor_t predictor) {
  delete predictor;
}

edgeocr_status_t edgeocr_predictor_predict(edgeocr_predictor_t predictor,
                                           const edgeocr_image_t* image, edgeocr_result_t* result) {
  const char* fn = "edgeocr_predictor_predict";
  if (result) *result = nullptr;
  EDGEOCR_C_TRY({
    if (!result) edgeocr::capi::invalid(std::string(fn) + ": result (the output) is NULL");
    edgeocr::capi::check_predictor(predictor, fn);
    const edgeocr::ImageView view = edgeocr::capi::view_of(image, fn);
    auto r = std::make_unique<edgeocr_result_s>();
    r->result = predictor->pipeline->run(view);  // without det: the image as one line
    *result = r.release();
  })
}

edgeocr_status_t edgeocr_predictor_predict_encoded(edgeocr_predictor_t predictor, const void* data,
                                                   size_t size, size_t max_pixels,
                                                   edgeocr_result_t* result) {
  const char* fn = "edgeocr_predictor_predict_encoded";
  if (result) *result = nullptr;
  EDGEOCR_C_TRY({
    if (!result) edgeocr::capi::invalid(std::string(fn) + ": result (the output) is NULL");
    edgeocr::capi::check_predictor(predictor, fn);
    const edgeocr::codec::DecodedImage img =
        edgeocr::capi::decode_encoded(data, size, max_pixels, fn, "edgeocr_predictor_predict");
    auto r = std::make_unique<edgeocr_result_s>();
    r->result = predictor->pipeline->run(img.view());
    *result = r.release();
  })
}

edgeocr_status_t edgeocr_predictor_recognize(edgeocr_predictor_t predictor,
                                             const edgeocr_image_t* image,
                                             edgeocr_result_t* result) {
  const char* fn = "edgeocr_predictor_recognize";
  if (result) *result = nullptr;
  EDGEOCR_C_TRY({
    if (!result) edgeocr::capi::invalid(std::string(fn) + ": result (the output) is NULL");
    edgeocr::capi::check_predictor(predictor, fn);
    const edgeocr::ImageView view = edgeocr::capi::view_of(image, fn);
    if (!predictor->has_rec)
      edgeocr::capi::invalid(std::string(fn) + ": this predictor has no rec model");
    auto r = std::make_unique<edgeocr_result_s>();
    r->result = predictor->pipeline->run_line(view);
    *result = r.release();
  })
}

edgeocr_status_t edgeocr_predictor_get_setting(edgeocr_predictor_t predictor, const char* key,
                                               char* buffer, size_t buffer_size, size_t* needed) {
  const char* fn = "edgeocr_predictor_get_setting";
  if (needed) *needed = 0;
  if (buffer && buffer_size) buffer[0] = '\0';
  EDGEOCR_C_TRY({
    edgeocr::capi::check_predictor(predictor, fn);
    if (!key) edgeocr::capi::invalid(std::string(fn) + ": key is NULL");
    if (!buffer && buffer_size)
      edgeocr::capi::invalid(std::string(fn) + ": buffer is NULL but buffer_size is not 0");
    const std::string text = edgeocr::setting_to_string(predictor->pipeline->config(), key);
    if (needed) *needed = text.size() + 1;
    if (buffer_size < text.size() + 1)
      edgeocr::capi::invalid(std::string(fn) + ": " + key + " needs a buffer of " +
                             std::to_string(text.size() + 1) + " bytes, got " +
                             std::to_string(buffer_size));
    std::memcpy(buffer, text.c_str(), text.size() + 1);
  })
}

edgeocr_status_t edgeocr_predictor_memory_stats(edgeocr_predictor_t predictor,
                                                edgeocr_memory_stats_t* stats) {
  const char* fn = "edgeocr_predictor_memory_stats";
  EDGEOCR_C_TRY({
    if (!stats) edgeocr::capi::invalid(std::string(fn) + ": stats is NULL");
    edgeocr::capi::check_out_size(stats->struct_size, sizeof(edgeocr_memory_stats_t), "stats", fn);
    edgeocr_memory_stats_t out;
    std::memset(&out, 0, sizeof out);
    edgeocr::capi::write_out(stats, out);  // zeroed on failure below
    edgeocr::capi::check_predictor(predictor, fn);
    const edgeocr::PoolStats s = predictor->pool->stats();
    out.reserved_bytes = s.reserved_bytes;
    out.in_use_bytes = s.in_use_bytes;
    out.high_water_bytes = s.high_water_bytes;
    out.cap_bytes = s.cap_bytes;
    edgeocr::capi::write_out(stats, out);
  })
}

edgeocr_status_t edgeocr_result_line_count(edgeocr_result_t result, size_t* count) {
  const char* fn = "edgeocr_result_line_count";
  if (count) *count = 0;
  EDGEOCR_C_TRY({
    if (!count) edgeocr::capi::invalid(std::string(fn) + ": count is NULL");
    edgeocr::capi::check_result(result, fn);
    *count = result->result.lines.size();
  })
}

edgeocr_status_t edgeocr_result_get_line(edgeocr_result_t result, size_t index,
                                         edgeocr_line_t* line){EDGEOCR_C_TRY({
  edgeocr::capi::get_line(result ? &result->result.lines : nullptr, "result", index, line,
                          "edgeocr_result_get_line");
})}

edgeocr_status_t edgeocr_result_get_word(edgeocr_result_t result, size_t line_index,
                                         size_t word_index, edgeocr_word_t* word){EDGEOCR_C_TRY({
  edgeocr::capi::get_word(result ? &result->result.lines : nullptr, "result", line_index,
                          word_index, word, "edgeocr_result_get_word");
})}

edgeocr_status_t edgeocr_result_timings(edgeocr_result_t result, edgeocr_timings_t* timings) {
  const char* fn = "edgeocr_result_timings";
  EDGEOCR_C_TRY({
    if (!timings) edgeocr::capi::invalid(std::string(fn) + ": timings is NULL");
    edgeocr::capi::check_out_size(timings->struct_size, sizeof(edgeocr_timings_t), "timings", fn);
    edgeocr_timings_t out;
    std::memset(&out, 0, sizeof out);
    edgeocr::capi::write_out(timings, out);  // zeroed if what follows fails
    edgeocr::capi::check_result(result, fn);
    const edgeocr::OcrTimings& t = result->result.timings;
    out.det = t.det;
    out.cls = t.cls;
    out.rec = t.rec;
    out.total = t.total;
    out.det_model = t.det_model;
    out.cls_model = t.cls_model;
    out.rec_model = t.rec_model;
    edgeocr::capi::write_out(timings, out);
  })
}

void edgeocr_result_destroy(edgeocr_result_t result) {
  delete result;
}

}  // extern "C"
