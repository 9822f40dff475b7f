// Pipeline settings from JSON (a bundle manifest's "pipeline" object, the
// caller's overrides): each value's type and range are checked before it is
// stored, so an absurd value never reaches an allocation.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "edgeocr/pipeline.h"
#include "edgeocr/status.h"

namespace edgeocr {
namespace loader {

// Applies every key of `settings` (a JSON object) to `config`. A key that is
// not a setting, a value of the wrong type or outside its range throws
// `code` (InvalidArgument for caller overrides, InvalidModel for a manifest)
// with a message naming `where`.key, the value and the allowed range.
// `unknown_code` is used for unknown keys (a manifest uses Unsupported: made
// by a newer edgeocr).
void apply_settings(PipelineConfig& config, const nlohmann::json& settings,
                    const std::string& where, StatusCode code, StatusCode unknown_code);

// Every setting of `config` as a JSON object (the manifest's "pipeline").
nlohmann::json settings_to_json(const PipelineConfig& config);

}  // namespace loader
}  // namespace edgeocr
