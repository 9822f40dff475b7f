// Where the inference runtime (ONNX Runtime) comes from.
#pragma once

#include <string>

namespace edgeocr {

// Chooses the ONNX Runtime shared library to load. Must be called before the
// first model is created; afterwards a different path is an error
// (one process holds one runtime). A path that then fails to load is
// forgotten after that load's error: the next load without a path searches
// as if none had been set. Thread-safe.
void set_ort_library_path(const std::string& path);

struct RuntimeInfo {
  std::string library_path;
  std::string version;
};

// Loads the runtime if needed and describes it. Throws RuntimeUnavailable.
RuntimeInfo runtime_info();

struct SelfTestReport {
  bool ok = false;
  int checks = 0;        // number of checks that ran
  std::string failures;  // one line per failed check
};

// Exercises every ONNX Runtime entry point edgeocr declares, by behaviour,
// on a model of a few hundred bytes built in memory. Never throws.
SelfTestReport ort_selftest();

}  // namespace edgeocr
