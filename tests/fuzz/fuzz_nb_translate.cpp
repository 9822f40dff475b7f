// libFuzzer harness for the Paddle Lite .nb reader and translator
// (csrc/loader/nb): arbitrary bytes in, ONNX bytes or an edgeocr::Error out.
//
// Checks, beyond "no crash, no sanitizer report": errors are kInvalidModel or
// kUnsupported with a non-empty message that names the file; a translation
// starts like an ONNX ModelProto (field 1, ir_version); looks_like_nb() holds
// for every input that translates. tools/sanitize.sh runs it with
// -malloc_limit_mb=256, so one allocation above what the issue allows is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "edgeocr/status.h"
#include "loader/nb/nb.h"

namespace {

[[noreturn]] void die(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_nb_translate: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const bool looks = edgeocr::nb::looks_like_nb(data, size);
  try {
    std::string onnx = edgeocr::nb::translate_to_onnx(data, size, "fuzz.nb");
    if (!looks) die("translated a file that does not look like .nb", "");
    if (onnx.size() < 2 || onnx[0] != 0x08) die("output does not start with ir_version", "");
  } catch (const edgeocr::Error& e) {
    const std::string msg = e.what();
    if (e.code() != edgeocr::StatusCode::kInvalidModel &&
        e.code() != edgeocr::StatusCode::kUnsupported)
      die("unexpected status", msg);
    if (msg.find("fuzz.nb") == std::string::npos) die("the message does not name the file", msg);
  }
  return 0;
}
