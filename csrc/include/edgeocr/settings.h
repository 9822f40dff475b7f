// The table of pipeline settings: every field of PipelineConfig with its
// name, type, allowed range or values, default and a one-line doc, and the
// one place where settings are parsed, checked and validated. Python
// keywords and PipelineConfig, bundle manifests and the C API all go
// through it, so a setting has one name, one range and one error message
// everywhere. Adding a setting is one entry in settings_table()
// (csrc/pipeline/settings_table.cpp); docs/pipeline-config.md's reference table is
// generated from it (tools/gen_settings_doc.py) and tests keep Python's
// PipelineConfig equal to it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "edgeocr/pipeline.h"

namespace edgeocr {

enum class SettingType {
  kBool,     // true / false
  kInt,      // an integer in [min, max]
  kFloat,    // a finite number in the range (min/max, each inclusive or not)
  kEnum,     // one of `choices`
  kFloat3,   // three numbers (per-channel mean/std), each in the range
  kIntList,  // min_len..max_len integers, each in [min, max]
};

// "bool", "int", "float", "enum", "float3", "int_list".
const char* setting_type_name(SettingType type) noexcept;

// A value as a caller gives it (a Python object, a JSON value, a C string
// already parsed), before it is checked against a setting.
struct SettingValue {
  enum class Kind { kBool, kInt, kFloat, kString, kList };
  Kind kind = Kind::kInt;
  bool b = false;
  std::int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<SettingValue> list;

  static SettingValue of_bool(bool v);
  static SettingValue of_int(std::int64_t v);
  static SettingValue of_float(double v);
  static SettingValue of_string(std::string v);
  static SettingValue of_list(std::vector<SettingValue> v);
};

// How a value is shown in messages: 0.3, 'min', [1, 2], true.
std::string to_display(const SettingValue& v);

struct SettingInfo {
  std::string name;
  SettingType type;
  std::string doc;
  double min = 0, max = 0;  // numeric range (of each element for lists)
  bool min_exclusive = false, max_exclusive = false;
  std::vector<std::string> choices;  // kEnum, in a fixed order
  int min_len = 0, max_len = 0;      // kIntList
  // Reads / writes the field. `set` takes a value already checked by
  // check_setting (the canonical kind for the type).
  std::function<SettingValue(const PipelineConfig&)> get;
  std::function<void(PipelineConfig&, const SettingValue&)> set;

  // The allowed values in words: "an integer in [1, 256]", "'min' or 'max'".
  std::string allowed() const;
};

// Every setting, in PipelineConfig's order. Built once; thread-safe.
const std::vector<SettingInfo>& settings_table();

// The setting called `name`, or nullptr.
const SettingInfo* find_setting(const std::string& name) noexcept;
// The setting called `name`; InvalidArgument "unknown pipeline setting ..." otherwise.
const SettingInfo& setting_info(const std::string& name);

// Checks `value` against the setting's type and range and returns it in the
// setting's canonical kind (an int given to a float setting becomes a
// float). InvalidArgument naming the setting, the allowed values and the
// value given. Types are strict: a string is not a number, a float is not an
// integer, a bool is not a number.
SettingValue check_setting(const SettingInfo& s, const SettingValue& value);

// Sets one field from a typed value (check_setting first).
void set_setting(PipelineConfig& config, const std::string& name, const SettingValue& value);

// Sets one field from text, as the C API's key/value setter gives it: each
// value is read as the same token in a bundle manifest (JSON) would be, so
// text, JSON and Python values pass the same checks. Numbers in JSON's
// grammar (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?; an integer setting
// takes no fraction or exponent), bools as true / false / 1 / 0, enums as
// their name unquoted ("max"), lists as "0.5,0.5,0.5" (in [] or () or bare;
// spaces allowed). White space around a value is ignored. Numbers are read
// in the C locale whatever the process locale is.
void set_setting_from_string(PipelineConfig& config, const std::string& name,
                             const std::string& text);
SettingValue parse_setting(const SettingInfo& s, const std::string& text);

// The field's current value, and as text that set_setting_from_string reads
// back to the same value (floats in the shortest form that round-trips).
SettingValue get_setting(const PipelineConfig& config, const std::string& name);
std::string setting_to_string(const PipelineConfig& config, const std::string& name);
std::string format_setting(const SettingInfo& s, const SettingValue& canonical);
// A float field's value in the shortest text that reads back to it (0.3, not 0.30000001).
std::string float_text(float v);

// Memory the settings imply per call, in bytes:
//  det: the largest det input + probability map (16 bytes per pixel) and the
//       runtime's activations (176 bytes per pixel, measured on PP-OCRv4
//       mobile det), for a square of the largest det side the resize policy
//       allows;
//  cls: one full batch (batches are padded to cls_batch);
//  rec: one batch at the widest bucket (+ the output, batch x width/8 x
//       classes x 4, when the class count is known); rec_min at the
//       narrowest bucket. (cls and rec: edgeocr's tensors only.)
struct SettingsMemory {
  std::uint64_t det = 0, cls = 0, rec = 0, rec_min = 0;
  // The input tensor of one line: what the smallest plan under a budget reads in one run.
  std::uint64_t cls_line = 0, rec_line = 0;
  int det_side = 0;  // the largest det input side the resize policy allows
};
SettingsMemory settings_memory(const PipelineConfig& config, std::int64_t rec_classes = 0);

// Without max_memory_mb, settings whose largest per-call tensors exceed this
// are refused (docs/pipeline-config.md, "Memory").
constexpr std::uint64_t kDefaultSettingsMemoryCap = std::uint64_t{1} << 30;

// Validates a whole config in one place: every field against its range,
// then the memory its sizes imply, before anything is allocated:
//  - the worst case of each stage must fit max(cap_bytes, kDefaultSettingsMemoryCap);
//  - with a cap (cap_bytes > 0), what every call of a stage needs whatever
//    the image must fit the cap: the input of one cls line and of one rec
//    line at the narrowest bucket (a budget's planner runs smaller batches, pipeline/budget.h, so
//    this check is never stricter than the planner); larger images are
//    refused per call by the planner or the pool, before allocation.
// rec_classes: the rec model's class count if known (0: not counted).
// InvalidArgument naming the setting(s) and the limit.
void validate_config(const PipelineConfig& config, std::uint64_t cap_bytes = 0,
                     std::int64_t rec_classes = 0);

}  // namespace edgeocr
