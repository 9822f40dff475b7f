// Errors of the bundle reader: an edgeocr::Error (InvalidModel, or Unsupported
// for versions and features) with the kind of failure, which the Python
// binding maps to edgeocr.pack.Bundle*Error.
#pragma once

#include <string>

#include "common/text.h"
#include "edgeocr/status.h"

namespace edgeocr {
namespace loader {

enum class BundleErrorKind : int { kFormat = 0, kManifest = 1, kVersion = 2, kChecksum = 3 };

class BundleError : public Error {
 public:
  BundleError(BundleErrorKind kind, const std::string& message)
      : Error(kind == BundleErrorKind::kVersion ? StatusCode::kUnsupported
                                                : StatusCode::kInvalidModel,
              printable(message)),
        kind_(kind) {}
  BundleErrorKind kind() const noexcept { return kind_; }

 private:
  BundleErrorKind kind_;
};

[[noreturn]] inline void bundle_fail(BundleErrorKind kind, const std::string& message) {
  throw BundleError(kind, message);
}

}  // namespace loader
}  // namespace edgeocr
