// Per-model-set pipeline settings, keyed by the sha256 of the set's model
// files, so the same models give the same answer whatever their container:
// loose files, Predictor() (which finds the same files), or a bundle packed
// from them (edgeocr-pack writes the resolved settings into its manifest).
#pragma once

#include <cstdint>
#include <string>

namespace edgeocr {
namespace loader {

struct ModelFile {
  std::uint64_t size;  // bytes, compared first so that only candidates are hashed
  const char* sha256;  // lowercase hex
};

// Bytes per model input pixel each stage needs while it runs, for planning calls under a memory
// budget (MemoryProfile, pipeline/budget.h; measured on the shared arena shrunk after each run,
// docs/memory-budget.md).
struct ModelSetMemory {
  double det_bytes_per_pixel, cls_bytes_per_pixel, rec_bytes_per_pixel;
};

struct ModelSetInfo {
  const char* name;
  ModelFile det, cls, rec;
  // The set's settings as a JSON object (applied under the caller's overrides);
  // each value is measured on the dev set (the comment beside it says how).
  const char* settings_json;
  ModelSetMemory memory;
  // The recheck model (Pipeline's second recogniser), its dictionary from its metadata; {0,
  // nullptr}: the set has none.
  ModelFile recheck;
};

// Every known model set (null-terminated by a set with name == nullptr).
const ModelSetInfo* model_sets();

// The classes (blank + characters [+ space]) of the known recheck model with this sha256 and
// the dictionary in its metadata, or 0 for another file. A pipeline loads such a file when a call
// first needs it (Pipeline::defer_recheck) and checks the count then.
std::int64_t known_recheck_classes(const std::string& sha256);

}  // namespace loader
}  // namespace edgeocr
