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

edgeocr_status_t to_c(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return EDGEOCR_STATUS_INTERNAL;  // an Error must not carry Ok
    case StatusCode::kInvalidArgument:
      return EDGEOCR_STATUS_INVALID_ARGUMENT;
    case StatusCode::kNotFound:
      return EDGEOCR_STATUS_NOT_FOUND;
    case StatusCode::kUnsupported:
      return EDGEOCR_STATUS_UNSUPPORTED;
    case StatusCode::kBackendError:
      return EDGEOCR_STATUS_BACKEND_ERROR;
    case StatusCode::kOutOfMemory:
      return EDGEOCR_STATUS_OUT_OF_MEMORY;
    case StatusCode::kInternal:
      return EDGEOCR_STATUS_INTERNAL;
    case StatusCode::kInvalidModel:
      return EDGEOCR_STATUS_INVALID_MODEL;
    case StatusCode::kRuntimeUnavailable:
      return EDGEOCR_STATUS_RUNTIME_UNAVAILABLE;
  }
  return EDGEOCR_STATUS_INTERNAL;
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
  switch (status) {
    case EDGEOCR_STATUS_OK:
      return "OK";
    case EDGEOCR_STATUS_INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case EDGEOCR_STATUS_NOT_FOUND:
      return "NOT_FOUND";
    case EDGEOCR_STATUS_UNSUPPORTED:
      return "UNSUPPORTED";
    case EDGEOCR_STATUS_BACKEND_ERROR:
      return "BACKEND_ERROR";
    case EDGEOCR_STATUS_OUT_OF_MEMORY:
      return "OUT_OF_MEMORY";
    case EDGEOCR_STATUS_INTERNAL:
      return "INTERNAL";
    case EDGEOCR_STATUS_INVALID_MODEL:
      return "INVALID_MODEL";
    case EDGEOCR_STATUS_RUNTIME_UNAVAILABLE:
      return "RUNTIME_UNAVAILABLE";
  }
  return "UNKNOWN";
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
