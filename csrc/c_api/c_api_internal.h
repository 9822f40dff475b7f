// Shared by the C API's translation units: the one place where C++
// exceptions become edgeocr_status_t values and the thread-local message.
#pragma once

#include "edgeocr_c.h"

namespace edgeocr {
namespace capi {

// Records prefix + message as this thread's last error and returns `status`.
edgeocr_status_t set_error(edgeocr_status_t status, const char* prefix,
                           const char* message) noexcept;
void clear_error() noexcept;

// Must be called from inside a catch block: maps the exception in flight to
// a status and records its message.
edgeocr_status_t status_from_current_exception() noexcept;

}  // namespace capi
}  // namespace edgeocr

// Wraps the body of a status-returning entry point: the body either returns
// normally (-> EDGEOCR_STATUS_OK, last error cleared) or throws.
#define EDGEOCR_C_TRY(...)                                   \
  try {                                                      \
    __VA_ARGS__;                                             \
    ::edgeocr::capi::clear_error();                          \
    return EDGEOCR_STATUS_OK;                                \
  } catch (...) {                                            \
    return ::edgeocr::capi::status_from_current_exception(); \
  }
