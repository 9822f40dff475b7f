// Error model of the C++ core: functions throw edgeocr::Error carrying a
// StatusCode; the C API and the Python binding translate it at their edge.
#pragma once

#include <stdexcept>
#include <string>

namespace edgeocr {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,     // bad input value, shape, dtype, image
  kNotFound = 2,            // a file or library that is not there
  kUnsupported = 3,         // understood but not supported (format version, op)
  kBackendError = 4,        // the inference runtime failed
  kOutOfMemory = 5,         // a memory cap would be exceeded
  kInternal = 6,            // a bug in edgeocr
  kInvalidModel = 7,        // a model file or buffer that cannot be used
  kRuntimeUnavailable = 8,  // the inference runtime library is missing or too old
};

const char* status_code_name(StatusCode code) noexcept;

class Error : public std::runtime_error {
 public:
  Error(StatusCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  StatusCode code() const noexcept { return code_; }

 private:
  StatusCode code_;
};

[[noreturn]] inline void fail(StatusCode code, const std::string& message) {
  throw Error(code, message);
}

}  // namespace edgeocr
