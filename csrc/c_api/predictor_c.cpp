// edgeocr_options_t, edgeocr_predictor_t and edgeocr_result_t over edgeocr::Pipeline.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "c_api/c_api_internal.h"
#include "edgeocr/image.h"
#include "edgeocr/memory_pool.h"
#include "edgeocr/model.h"
#include "edgeocr/pipeline.h"
#include "edgeocr/runtime.h"
#include "edgeocr/settings.h"
#include "edgeocr/status.h"

struct edgeocr_predictor_s {
  std::shared_ptr<edgeocr::MemoryPool> pool;
  std::unique_ptr<edgeocr::Pipeline> pipeline;
  bool has_det = false;
  bool has_rec = false;
};

struct edgeocr_result_s {
  edgeocr::OcrResult result;
};

namespace edgeocr {
namespace capi {
namespace {

[[noreturn]] void invalid(const std::string& message) { fail(StatusCode::kInvalidArgument, message); }

bool ends_with(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// ---- options ---------------------------------------------------------------

void check_options(const edgeocr_options_t& o) {
  const char* fn = "edgeocr_predictor_create";
  if (o.bundle_path != nullptr)
    fail(StatusCode::kUnsupported, std::string(fn) + ": bundle_path (" + o.bundle_path +
                                       "): .eocr bundles are not supported by this version of "
                                       "libedgeocr yet; give det/cls/rec model paths");
  struct Source {
    const char* role;
    const char* path;
    const void* data;
    std::size_t size;
  };
  const Source sources[] = {{"det", o.det_model_path, o.det_model_data, o.det_model_size},
                            {"cls", o.cls_model_path, o.cls_model_data, o.cls_model_size},
                            {"rec", o.rec_model_path, o.rec_model_data, o.rec_model_size},
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
  if (!has_det && !has_rec)
    invalid(std::string(fn) + ": no model given; set det_model_path and/or rec_model_path "
                              "(or the *_model_data buffers)");
  if (!has_rec && (o.keys_path || o.keys_data))
    invalid(std::string(fn) + ": keys given but there is no rec model");
  if (o.ort_library_path && *o.ort_library_path == '\0')
    invalid(std::string(fn) + ": ort_library_path is empty (use NULL for the default search)");
  if (o.threads < 0)
    invalid(std::string(fn) + ": threads must be >= 0 (0 = runtime default), got " +
            std::to_string(o.threads));
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

// ---- models and dictionary -------------------------------------------------

std::shared_ptr<Model> load_model(const char* role, const char* path, const void* data,
                                  std::size_t size, const SessionOptions& so,
                                  const std::shared_ptr<MemoryPool>& pool) {
  if (!path && !data) return nullptr;
  std::shared_ptr<Model> m;
  if (path) {
    const std::string p(path);
    if (ends_with(p, ".eocr"))
      fail(StatusCode::kUnsupported, p + ": .eocr bundles are not supported by this version of "
                                         "libedgeocr yet; give det/cls/rec model paths");
    if (ends_with(p, ".nb"))
      fail(StatusCode::kUnsupported,
           p + ": Paddle Lite .nb models are translated to ONNX by the Python package; the C API "
               "takes the translated .onnx model");
    m = Model::from_file(p, so, pool);
  } else {
    m = Model::from_bytes(data, size, so, pool, std::string("<") + role + " model bytes>");
  }
  // The role is known from the output rank (det: N1HW map, cls: N x 2, rec: N x T x C).
  const std::size_t rank = m->outputs().empty() ? 0 : m->outputs()[0].shape.size();
  const char* actual = rank == 4 ? "det" : rank == 2 ? "cls" : rank == 3 ? "rec" : nullptr;
  if (!actual || std::strcmp(actual, role) != 0)
    fail(StatusCode::kInvalidModel,
         m->name() + ": given as the " + role + " model, but its outputs look like " +
             (actual ? std::string("a ") + actual + " model" : std::string("no OCR model")) +
             " (first output rank " + std::to_string(rank) + ")");
  return m;
}

// Python's str.splitlines() over UTF-8 (the dictionary in a model's metadata
// is split that way by the Python package, so both give the same classes).
std::vector<std::string> split_lines_like_python(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  std::size_t i = 0;
  bool pending = false;  // a line was started (splitlines drops only a final empty remainder)
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t sep = 0;
    if (c == '\r') sep = (i + 1 < s.size() && s[i + 1] == '\n') ? 2 : 1;
    else if (c == '\n' || c == 0x0b || c == 0x0c || c == 0x1c || c == 0x1d || c == 0x1e) sep = 1;
    else if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x85) sep = 2;
    else if (c == 0xe2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
             (static_cast<unsigned char>(s[i + 2]) == 0xa8 ||
              static_cast<unsigned char>(s[i + 2]) == 0xa9))
      sep = 3;
    if (sep) {
      out.push_back(cur);
      cur.clear();
      pending = false;
      i += sep;
    } else {
      cur.push_back(s[i]);
      pending = true;
      ++i;
    }
  }
  if (pending) out.push_back(cur);
  return out;
}

// A keys file as the Python package reads it: universal newlines, one
// character per line, trailing empty lines dropped.
std::vector<std::string> split_keys(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  bool pending = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
      out.push_back(cur);
      cur.clear();
      pending = false;
    } else {
      cur.push_back(c);
      pending = true;
    }
  }
  if (pending) out.push_back(cur);
  while (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail(StatusCode::kNotFound, "dictionary (keys) file not found or unreadable: " + path);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The rec model's classes: blank, the dictionary, and a space if the model
// has one more class than that.
std::vector<std::string> charset_for(const Model& rec, const edgeocr_options_t& o) {
  std::vector<std::string> chars;
  std::string source;
  if (o.keys_path) {
    chars = split_keys(read_file(o.keys_path));
    source = std::string("the keys file ") + o.keys_path;
  } else if (o.keys_data) {
    chars = split_keys(std::string(o.keys_data, o.keys_size));
    source = "keys_data";
  } else {
    auto it = rec.metadata().find("character");
    if (it == rec.metadata().end() || it->second.empty())
      fail(StatusCode::kInvalidModel,
           rec.name() + ": this rec model carries no dictionary in its metadata; set keys_path "
                        "(one character per line) or keys_data");
    chars = split_lines_like_python(it->second);
    source = "its metadata";
  }
  if (chars.empty()) fail(StatusCode::kInvalidModel, "the dictionary (keys) from " + source + " is empty");
  const std::int64_t n_classes = rec.outputs()[0].shape[2];
  const auto n = static_cast<std::int64_t>(chars.size());
  std::vector<std::string> charset;
  charset.reserve(chars.size() + 2);
  charset.emplace_back();
  for (auto& c : chars) charset.push_back(std::move(c));
  if (n_classes == -1 || n_classes == n + 2) {
    charset.emplace_back(" ");
  } else if (n_classes != n + 1) {
    fail(StatusCode::kInvalidModel,
         rec.name() + ": the model has " + std::to_string(n_classes) + " classes but " + source +
             " has " + std::to_string(n) +
             " characters (expected classes = characters + 1 blank [+ 1 space]); wrong "
             "dictionary for this model?");
  }
  return charset;
}

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
    invalid(f + ": image.format " + std::to_string(img->format) +
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

// Recognition of the whole image as one line (kept only if text was read),
// as the Python package does for a predictor without a det model.
OcrResult recognize_whole(const Pipeline& p, const ImageView& view) {
  const auto t0 = std::chrono::steady_clock::now();
  OcrLine line = p.recognize(view);
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  OcrResult r;
  if (!line.text.empty()) r.lines.push_back(std::move(line));
  r.timings.rec = dt;
  r.timings.total = dt;
  return r;
}

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
    if (o.ort_library_path) set_ort_library_path(o.ort_library_path);
    auto p = std::make_unique<edgeocr_predictor_s>();
    p->pool = MemoryPool::create(o.max_memory_mb << 20);
    SessionOptions so;
    // As the Python Predictor (docs/performance.md, "Session memory"): one arena shared by
    // the det, cls and rec sessions, memory pattern off.
    so.shared_arena = true;
    so.memory_pattern = false;
    so.intra_threads = o.threads;
    so.shrink_arena = o.max_memory_mb != 0;  // a budget: the arena's free memory given back after every run
    auto det = capi::load_model("det", o.det_model_path, o.det_model_data, o.det_model_size, so, p->pool);
    auto cls = capi::load_model("cls", o.cls_model_path, o.cls_model_data, o.cls_model_size, so, p->pool);
    auto rec = capi::load_model("rec", o.rec_model_path, o.rec_model_data, o.rec_model_size, so, p->pool);
    std::vector<std::string> charset;
    if (rec) charset = capi::charset_for(*rec, o);
    p->has_det = det != nullptr;
    p->has_rec = rec != nullptr;
    p->pipeline = std::make_unique<Pipeline>(std::move(det), std::move(cls), std::move(rec),
                                             std::move(charset), std::move(config), p->pool);
    if (o.max_memory_mb) p->pipeline->set_memory_budget(MemoryBudget::create(o.max_memory_mb << 20));
    *predictor = p.release();
  })
}

void edgeocr_predictor_destroy(edgeocr_predictor_t predictor) { delete predictor; }

edgeocr_status_t edgeocr_predictor_predict(edgeocr_predictor_t predictor,
                                           const edgeocr_image_t* image, edgeocr_result_t* result) {
  const char* fn = "edgeocr_predictor_predict";
  if (result) *result = nullptr;
  EDGEOCR_C_TRY({
    if (!result) edgeocr::capi::invalid(std::string(fn) + ": result (the output) is NULL");
    edgeocr::capi::check_predictor(predictor, fn);
    const edgeocr::ImageView view = edgeocr::capi::view_of(image, fn);
    auto r = std::make_unique<edgeocr_result_s>();
    r->result = predictor->has_det ? predictor->pipeline->run(view)
                                   : edgeocr::capi::recognize_whole(*predictor->pipeline, view);
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
    r->result = edgeocr::capi::recognize_whole(*predictor->pipeline, view);
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
    if (!buffer && buffer_size) edgeocr::capi::invalid(std::string(fn) + ": buffer is NULL but buffer_size is not 0");
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
                                         edgeocr_line_t* line) {
  const char* fn = "edgeocr_result_get_line";
  EDGEOCR_C_TRY({
    if (!line) edgeocr::capi::invalid(std::string(fn) + ": line is NULL");
    edgeocr::capi::check_out_size(line->struct_size, sizeof(edgeocr_line_t), "line", fn);
    edgeocr_line_t out;
    std::memset(&out, 0, sizeof out);
    edgeocr::capi::write_out(line, out);  // zeroed if what follows fails
    edgeocr::capi::check_result(result, fn);
    const auto& lines = result->result.lines;
    if (index >= lines.size())
      edgeocr::capi::invalid(std::string(fn) + ": index " + std::to_string(index) +
                             " is out of range; the result has " + std::to_string(lines.size()) +
                             " line(s)");
    const edgeocr::OcrLine& l = lines[index];
    out.text = l.text.c_str();
    out.text_size = l.text.size();
    out.score = l.score;
    out.det_score = l.det_score;
    for (int i = 0; i < 4; ++i) {
      out.box[2 * i] = l.box.p[i].x;
      out.box[2 * i + 1] = l.box.p[i].y;
    }
    out.flipped = l.flipped ? 1 : 0;
    edgeocr::capi::write_out(line, out);
  })
}

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

void edgeocr_result_destroy(edgeocr_result_t result) { delete result; }

}  // extern "C"
