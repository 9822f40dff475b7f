// Error model of the C++ core: functions throw edgeocr::Error carrying a
// StatusCode; the C API and the Python binding translate it at their edge.
#pragma once

#include <stdexcept>
#include <string>

namespace edgeocr {

// The status table, the one list of codes: X(enumerator, value, NAME). StatusCode and
// status_code_name() are made from it here, Python's edgeocr._core.StatusCode in
// csrc/python/module.cpp; the C API's edgeocr_status_t (EDGEOCR_STATUS_<NAME>) is checked
// against it at compile time in csrc/c_api/error_c.cpp.
#define EDGEOCR_STATUS_TABLE(X)                                                             \
  X(kOk, 0, OK)                                                                             \
  X(kInvalidArgument, 1, INVALID_ARGUMENT)       /* bad input value, shape, dtype, image */ \
  X(kNotFound, 2, NOT_FOUND)                     /* a file or library that is not there */  \
  X(kUnsupported, 3, UNSUPPORTED)                /* understood but not supported */         \
  X(kBackendError, 4, BACKEND_ERROR)             /* the inference runtime failed */         \
  X(kOutOfMemory, 5, OUT_OF_MEMORY)              /* a memory cap would be exceeded */       \
  X(kInternal, 6, INTERNAL)                      /* a bug in edgeocr */                     \
  X(kInvalidModel, 7, INVALID_MODEL)             /* a model that cannot be used */          \
  X(kRuntimeUnavailable, 8, RUNTIME_UNAVAILABLE) /* ONNX Runtime missing or too old */

enum class StatusCode : int {
#define EDGEOCR_STATUS_ENUM(e, v, name) e = v,
  EDGEOCR_STATUS_TABLE(EDGEOCR_STATUS_ENUM)
#undef EDGEOCR_STATUS_ENUM
};

// "INVALID_ARGUMENT" ... (the table's NAME); "UNKNOWN" for a value outside the table.
const char* status_code_name(StatusCode code) noexcept;

class Error : public std::runtime_error {
 public:
  // A message that is not valid UTF-8 (caller or file bytes quoted raw) is kept with those bytes
  // written \xHH, so that every message is valid UTF-8 (csrc/common/text.h).
  Error(StatusCode code, const std::string& message);
  StatusCode code() const noexcept { return code_; }

 private:
  StatusCode code_;
};

[[noreturn]] inline void fail(StatusCode code, const std::string& message) {
  throw Error(code, message);
}

}  // namespace edgeocr
