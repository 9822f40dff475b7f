#include "edgeocr/status.h"

#include <string>

#include "common/text.h"
#include "edgeocr/image.h"

namespace edgeocr {

Error::Error(StatusCode code, const std::string& message)
    : std::runtime_error(escape_invalid_utf8(message)), code_(code) {}

const char* status_code_name(StatusCode code) noexcept {
  switch (code) {
#define EDGEOCR_STATUS_CASE(e, v, name) \
  case StatusCode::e:                   \
    return #name;
    EDGEOCR_STATUS_TABLE(EDGEOCR_STATUS_CASE)
#undef EDGEOCR_STATUS_CASE
  }
  return "UNKNOWN";
}

void validate(const ImageView& img, const char* what) {
  const std::string w(what);
  if (img.data == nullptr) fail(StatusCode::kInvalidArgument, w + ": pixel pointer is null");
  if (img.width <= 0 || img.height <= 0)
    fail(StatusCode::kInvalidArgument, w + ": size " + std::to_string(img.width) + "x" +
                                           std::to_string(img.height) + " is empty");
  const long long min_stride = static_cast<long long>(img.width) * img.channels();
  if (img.stride < min_stride)
    fail(StatusCode::kInvalidArgument,
         w + ": row stride " + std::to_string(img.stride) +
             " bytes is smaller than width*channels = " + std::to_string(min_stride));
  if (img.matte > 255 || img.black < 0 || img.white > 255 || img.black >= img.white)
    fail(StatusCode::kInvalidArgument, w + ": matte " + std::to_string(img.matte) + ", levels " +
                                           std::to_string(img.black) + ".." +
                                           std::to_string(img.white) +
                                           "; expected matte <= 255 and 0 <= black < white <= 255");
}

}  // namespace edgeocr
