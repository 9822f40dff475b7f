// Status codes, the thread-local last error, version and runtime entry points.
#include <exception>
#include <mutex>
#include <new>
#include <string>

#include "c_api/c_api_internal.h"
#include "edgeocr/runtime.h"
#include "edgeocr/status.h"

#ifndef EDGEOCR_VERSION
#define EDGEOCR_VERSION "0.0.0"
#endif

namespace edgeocr {
namespace capi {
namespace {

thread_local std::string t_last_error;

// The C header's codes are the status table's (edgeocr/status.h), value for value.
#define EDGEOCR_STATUS_SAME(e, v, name)                                             \
  static_assert(EDGEOCR_STATUS_##name == v && static_cast<int>(StatusCode::e) == v, \
                "edgeocr_c.h: EDGEOCR_STATUS_" #name " differs from the status table");
EDGEOCR_STATUS_TABLE(EDGEOCR_STATUS_SAME)
#undef EDGEOCR_STATUS_SAME

edgeocr_status_t to_c(StatusCode code) {
  if (code == StatusCode::kOk) return EDGEOCR_STATUS_INTERNAL;  // an Error must not carry Ok
  return static_cast<edgeocr_status_t>(code);
}

}  // namespace

edgeocr_status_t set_error(edgeocr_status_t status, const char* prefix,
                           const char* message) noexcept {
  try {
    t_last_error.assign(prefix);
    t_last_error.append(message);
  } catch (...) {
    // No memory to copy the message: an empty message beats throwing across C.
    t_last_error.clear();
  }
  return status;
}

void clear_error() noexcept {
  t_last_error.clear();
}

edgeocr_status_t status_from_current_exception() noexcept {
  try {
    throw;
  } catch (const Error& e) {
    return set_error(to_c(e.code()), "", e.what());
  } catch (const std::bad_alloc&) {
    return set_error(EDGEOCR_STATUS_OUT_OF_MEMORY, "", "out of memory");
  } catch (const std::exception& e) {
    return set_error(EDGEOCR_STATUS_INTERNAL, "internal error: ", e.what());
  } catch (...) {
    return set_error(EDGEOCR_STATUS_INTERNAL, "internal error: ", "unknown exception");
  }
}

}  // namespace capi
}  // namespace edgeocr

extern "C" {

const char* edgeocr_last_error(void) {
  // An empty thread_local string has a valid, NUL-terminated c_str().
  return edgeocr::capi::t_last_error.c_str();
}

const char* edgeocr_status_name(edgeocr_status_t status) {
  return edgeocr::status_code_name(static_cast<edgeocr::StatusCode>(status));
}

const char* edgeocr_version(void) {
  return EDGEOCR_VERSION;
}

edgeocr_status_t edgeocr_set_ort_library_path(const char* path){EDGEOCR_C_TRY({
  if (path == nullptr || *path == '\0')
    edgeocr::fail(edgeocr::StatusCode::kInvalidArgument,
                  "edgeocr_set_ort_library_path: path is NULL or empty");
  edgeocr::set_ort_library_path(path);
})}

edgeocr_status_t edgeocr_runtime_info(const char** library_path, const char** version) {
  if (library_path) *library_path = nullptr;
  if (version) *version = nullptr;
  // The runtime is never unloaded or switched once loaded, so its description
  // is kept for the life of the process and handed out as stable pointers.
  static std::mutex mu;
  static std::string* path_str = nullptr;
  static std::string* version_str = nullptr;
  EDGEOCR_C_TRY({
    std::lock_guard<std::mutex> lock(mu);
    if (!path_str) {
      edgeocr::RuntimeInfo info = edgeocr::runtime_info();
      version_str = new std::string(info.version);
      path_str = new std::string(info.library_path);
    }
    if (library_path) *library_path = path_str->c_str();
    if (version) *version = version_str->c_str();
  })
}

}  // extern "C"
