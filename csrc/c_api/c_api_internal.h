// Shared by the C API's translation units: the one place where C++
// exceptions become edgeocr_status_t values and the thread-local message.
#pragma once

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "edgeocr/settings.h"
#include "edgeocr_c.h"

// What edgeocr_options_set attached to options: (name, checked value) in the
// order set.
struct edgeocr_settings_s {
  std::vector<std::pair<std::string, edgeocr::SettingValue>> entries;
};

namespace edgeocr {
namespace capi {

// The caller's options as this library's struct: at most struct_size bytes
// copied over the defaults (an older struct gets the defaults for what it
// lacks). InvalidArgument if struct_size is below EDGEOCR_OPTIONS_SIZE_V1,
// Unsupported if a newer struct sets fields this library does not know.
edgeocr_options_t options_of(const edgeocr_options_t* options, const char* fn);

// The pipeline settings the options give, in the order they apply: the
// struct's setting fields that differ from edgeocr_options_init's defaults
// (checked through the settings table: InvalidArgument naming the field),
// then the key/value entries. Each value is checked and canonical.
std::vector<std::pair<std::string, SettingValue>> setting_overrides(const edgeocr_options_t& o);

// Copies `src` into the caller's output struct `dst` (whose first field is
// its struct_size): at most min(dst->struct_size, sizeof(T)) bytes, keeping
// dst's struct_size. InvalidArgument if dst's struct_size is below sizeof(T)
// of API version 2 (`min_size`).
void check_out_size(std::size_t struct_size, std::size_t min_size, const char* what,
                    const char* fn);
// InvalidArgument if an output struct's struct_size ends inside the field at `field_offset`
// (`field_size` bytes): a size no version of the struct has.
void check_not_inside(std::size_t struct_size, std::size_t field_offset, std::size_t field_size,
                      const char* what, const char* field, const char* fn);
template <class T>
void write_out(T* dst, const T& src) {
  const std::size_t n = dst->struct_size < sizeof(T) ? dst->struct_size : sizeof(T);
  const std::size_t keep = dst->struct_size;
  std::memcpy(static_cast<void*>(dst), &src, n);
  dst->struct_size = keep;
}

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
