// edgeocr_options_t (versioned by struct_size), key/value pipeline settings,
// the settings list and the API version check. Every setting's name, type,
// range and default come from the settings table (edgeocr/settings.h).
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "c_api/c_api_internal.h"
#include "common/text.h"
#include "edgeocr/pipeline.h"
#include "edgeocr/settings.h"
#include "edgeocr/status.h"

namespace edgeocr {
namespace capi {
namespace {

[[noreturn]] void invalid(const std::string& message) {
  fail(StatusCode::kInvalidArgument, message);
}

constexpr std::size_t kSettingsEnd = EDGEOCR_OPTIONS_SIZE_V2;
// A struct_size above this is not a struct someone compiled: an uninitialised field.
constexpr std::size_t kMaxStructSize = std::size_t{1} << 16;

// The setting fields of the struct (API version 1). Their names, ranges and
// defaults are the table's; this only says where each one lives.
enum class FieldKind { kInt, kFloat, kBoolInt, kLimitType };
struct StructField {
  const char* name;
  std::size_t offset;
  FieldKind kind;
};
const StructField kStructFields[] = {
    {"use_cls", offsetof(edgeocr_options_t, use_cls), FieldKind::kBoolInt},
    {"det_limit_type", offsetof(edgeocr_options_t, det_limit_type), FieldKind::kLimitType},
    {"det_limit_side_len", offsetof(edgeocr_options_t, det_limit_side_len), FieldKind::kInt},
    {"det_max_side_len", offsetof(edgeocr_options_t, det_max_side_len), FieldKind::kInt},
    {"det_thresh", offsetof(edgeocr_options_t, det_thresh), FieldKind::kFloat},
    {"det_box_thresh", offsetof(edgeocr_options_t, det_box_thresh), FieldKind::kFloat},
    {"det_unclip_ratio", offsetof(edgeocr_options_t, det_unclip_ratio), FieldKind::kFloat},
    {"cls_thresh", offsetof(edgeocr_options_t, cls_thresh), FieldKind::kFloat},
    {"drop_score", offsetof(edgeocr_options_t, drop_score), FieldKind::kFloat},
    {"rec_batch", offsetof(edgeocr_options_t, rec_batch), FieldKind::kInt},
};

int& int_at(edgeocr_options_t& o, std::size_t off) {
  return *reinterpret_cast<int*>(reinterpret_cast<char*>(&o) + off);
}
float& float_at(edgeocr_options_t& o, std::size_t off) {
  return *reinterpret_cast<float*>(reinterpret_cast<char*>(&o) + off);
}

// The struct field as a value for the table (a bad one is then named by it).
SettingValue field_value(const edgeocr_options_t& o, const StructField& f) {
  auto& m = const_cast<edgeocr_options_t&>(o);
  switch (f.kind) {
    case FieldKind::kInt:
    case FieldKind::kBoolInt:
      return SettingValue::of_int(int_at(m, f.offset));
    case FieldKind::kFloat:
      return SettingValue::of_float(float_at(m, f.offset));
    case FieldKind::kLimitType: {
      const int v = int_at(m, f.offset);
      if (v == EDGEOCR_DET_LIMIT_MIN) return SettingValue::of_string("min");
      if (v == EDGEOCR_DET_LIMIT_MAX) return SettingValue::of_string("max");
      return SettingValue::of_int(v);
    }
  }
  return SettingValue::of_int(0);
}

void set_field(edgeocr_options_t& o, const StructField& f, const SettingValue& canonical) {
  switch (f.kind) {
    case FieldKind::kInt:
      int_at(o, f.offset) = static_cast<int>(canonical.i);
      break;
    case FieldKind::kBoolInt:
      int_at(o, f.offset) = canonical.b ? 1 : 0;
      break;
    case FieldKind::kFloat:
      float_at(o, f.offset) = static_cast<float>(canonical.f);
      break;
    case FieldKind::kLimitType:
      int_at(o, f.offset) = canonical.s == "min" ? EDGEOCR_DET_LIMIT_MIN : EDGEOCR_DET_LIMIT_MAX;
      break;
  }
}

bool same_field(const edgeocr_options_t& a, const edgeocr_options_t& b, const StructField& f) {
  const std::size_t n = f.kind == FieldKind::kFloat ? sizeof(float) : sizeof(int);
  return std::memcmp(reinterpret_cast<const char*>(&a) + f.offset,
                     reinterpret_cast<const char*>(&b) + f.offset, n) == 0;
}

const edgeocr_options_t& defaults() {
  static const edgeocr_options_t d = [] {
    edgeocr_options_t o;
    std::memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    const PipelineConfig c;
    for (const StructField& f : kStructFields) {
      const SettingInfo& s = setting_info(f.name);
      set_field(o, f, s.get(c));
    }
    return o;
  }();
  return d;
}

// A struct_size the library can work with: at least API version 1's, not
// ending inside a field, not absurd.
void check_options_size(std::size_t size, const char* fn) {
  const std::string how = " (initialise the options with edgeocr_options_init(&opt, sizeof opt))";
  if (size < EDGEOCR_OPTIONS_SIZE_V1)
    invalid(std::string(fn) + ": options.struct_size is " + std::to_string(size) +
            ", smaller than the first version's " + std::to_string(EDGEOCR_OPTIONS_SIZE_V1) + how);
  if (size > kMaxStructSize)
    invalid(std::string(fn) + ": options.struct_size is " + std::to_string(size) +
            ", not the size of an options struct" + how);
  // The fields appended after version 1: a size that ends inside one is no layout.
  struct Appended {
    const char* name;
    std::size_t offset, size;
  };
  const Appended appended[] = {
      {"settings", offsetof(edgeocr_options_t, settings), sizeof(edgeocr_settings_t*)},
      {"arm64_bf16_fastmath", offsetof(edgeocr_options_t, arm64_bf16_fastmath), sizeof(int)},
      {"recheck_model_path", offsetof(edgeocr_options_t, recheck_model_path), sizeof(char*)},
      {"recheck_model_data", offsetof(edgeocr_options_t, recheck_model_data), sizeof(void*)},
      {"recheck_model_size", offsetof(edgeocr_options_t, recheck_model_size), sizeof(size_t)},
      {"recheck_keys_path", offsetof(edgeocr_options_t, recheck_keys_path), sizeof(char*)},
      {"recheck_at_create", offsetof(edgeocr_options_t, recheck_at_create), sizeof(int)},
      {"no_disk_cache", offsetof(edgeocr_options_t, no_disk_cache), sizeof(int)},
      {"layout_model_path", offsetof(edgeocr_options_t, layout_model_path), sizeof(char*)},
      {"layout_model_data", offsetof(edgeocr_options_t, layout_model_data), sizeof(void*)},
      {"layout_model_size", offsetof(edgeocr_options_t, layout_model_size), sizeof(size_t)},
      {"table_model_path", offsetof(edgeocr_options_t, table_model_path), sizeof(char*)},
      {"table_model_data", offsetof(edgeocr_options_t, table_model_data), sizeof(void*)},
      {"table_model_size", offsetof(edgeocr_options_t, table_model_size), sizeof(size_t)},
  };
  for (const Appended& f : appended)
    if (size > f.offset && size < f.offset + f.size)
      invalid(std::string(fn) + ": options.struct_size " + std::to_string(size) +
              " ends inside the field `" + f.name + "`" + how);
}

}  // namespace

edgeocr_options_t options_of(const edgeocr_options_t* options, const char* fn) {
  if (!options) invalid(std::string(fn) + ": options is NULL");
  const std::size_t size = options->struct_size;
  check_options_size(size, fn);
  edgeocr_options_t o = defaults();
  std::memcpy(static_cast<void*>(&o), options, size < sizeof o ? size : sizeof o);
  if (size > sizeof o) {
    const unsigned char* tail = reinterpret_cast<const unsigned char*>(options) + sizeof o;
    for (std::size_t i = 0; i < size - sizeof o; ++i)
      if (tail[i] != 0)
        fail(StatusCode::kUnsupported,
             std::string(fn) + ": the options set a field at byte " + std::to_string(sizeof o + i) +
                 " that this libedgeocr (C API version " + std::to_string(EDGEOCR_C_API_VERSION) +
                 ", options of " + std::to_string(sizeof o) +
                 " bytes) does not know; use a libedgeocr as new as the header the program was "
                 "compiled with");
  }
  o.struct_size = sizeof o;
  return o;
}

std::vector<std::pair<std::string, SettingValue>> setting_overrides(const edgeocr_options_t& o) {
  std::vector<std::pair<std::string, SettingValue>> out;
  const edgeocr_options_t& d = defaults();
  for (const StructField& f : kStructFields) {
    if (same_field(o, d, f)) continue;
    const SettingInfo& s = setting_info(f.name);
    out.emplace_back(f.name, check_setting(s, field_value(o, f)));
  }
  if (o.settings)
    for (const auto& e : o.settings->entries) out.push_back(e);
  return out;
}

void check_out_size(std::size_t struct_size, std::size_t min_size, const char* what,
                    const char* fn) {
  if (struct_size < min_size)
    invalid(std::string(fn) + ": " + what + "->struct_size is " + std::to_string(struct_size) +
            "; set it to sizeof the struct (at least " + std::to_string(min_size) + ")");
}

void check_not_inside(std::size_t struct_size, std::size_t field_offset, std::size_t field_size,
                      const char* what, const char* field, const char* fn) {
  if (struct_size > field_offset && struct_size < field_offset + field_size)
    invalid(std::string(fn) + ": " + what + "->struct_size " + std::to_string(struct_size) +
            " ends inside the field `" + field + "`; set it to sizeof the struct");
}

}  // namespace capi
}  // namespace edgeocr

namespace {

// Texts of edgeocr_setting_info_t, kept for the life of the process.
struct SettingTexts {
  std::string allowed, default_value;
};
const std::vector<SettingTexts>& setting_texts() {
  static const std::vector<SettingTexts> texts = [] {
    std::vector<SettingTexts> t;
    const edgeocr::PipelineConfig d;
    for (const auto& s : edgeocr::settings_table())
      t.push_back({s.allowed(), edgeocr::format_setting(s, s.get(d))});
    return t;
  }();
  return texts;
}

}  // namespace

extern "C" {

int edgeocr_api_version(void) {
  return EDGEOCR_C_API_VERSION;
}

edgeocr_status_t edgeocr_check_api_version(int compiled_version){EDGEOCR_C_TRY({
  const std::string lib = "this libedgeocr (" + std::string(edgeocr_version()) +
                          ") implements C API version " + std::to_string(EDGEOCR_C_API_VERSION);
  if (compiled_version > EDGEOCR_C_API_VERSION)
    edgeocr::fail(edgeocr::StatusCode::kUnsupported,
                  "the program was compiled against edgeocr C API version " +
                      std::to_string(compiled_version) + " but " + lib +
                      "; use a libedgeocr at least as new as the header");
  if (compiled_version < 2)
    edgeocr::fail(edgeocr::StatusCode::kUnsupported,
                  "the program was compiled against edgeocr C API version " +
                      std::to_string(compiled_version) + " (structs without struct_size) but " +
                      lib + "; rebuild the program with this library's edgeocr_c.h");
})}

edgeocr_status_t
    edgeocr_options_init(edgeocr_options_t* options, size_t struct_size){EDGEOCR_C_TRY({
      const char* fn = "edgeocr_options_init";
      if (!options) edgeocr::capi::invalid(std::string(fn) + ": options is NULL");
      edgeocr::capi::check_options_size(struct_size, fn);
      const edgeocr_options_t& d = edgeocr::capi::defaults();
      const std::size_t n = struct_size < sizeof d ? struct_size : sizeof d;
      std::memcpy(static_cast<void*>(options), &d, n);
      // A newer caller's fields: zero, their defaults by the growth rule.
      if (struct_size > sizeof d)
        std::memset(reinterpret_cast<char*>(options) + sizeof d, 0, struct_size - sizeof d);
      options->struct_size = struct_size;
    })}

edgeocr_status_t
    edgeocr_options_set(edgeocr_options_t* options, const char* key, const char* value) {
  EDGEOCR_C_TRY({
    const char* fn = "edgeocr_options_set";
    using edgeocr::capi::invalid;
    if (!options) invalid(std::string(fn) + ": options is NULL");
    if (!key) invalid(std::string(fn) + ": key is NULL");
    if (!value)
      invalid(std::string(fn) + ": value is NULL (for setting " + edgeocr::quoted(key) + ")");
    edgeocr::capi::check_options_size(options->struct_size, fn);
    if (options->struct_size < edgeocr::capi::kSettingsEnd)
      invalid(std::string(fn) + ": these options (struct_size " +
              std::to_string(options->struct_size) +
              ", C API version 1) have no room for key/value settings; initialise them with "
              "edgeocr_options_init(&opt, sizeof opt) from a version 2 header");
    const edgeocr::SettingInfo& s = edgeocr::setting_info(key);
    edgeocr::SettingValue v = edgeocr::parse_setting(s, value);
    if (!options->settings) options->settings = new edgeocr_settings_s;
    auto& entries = options->settings->entries;
    for (auto& e : entries)
      if (e.first == s.name) {
        e.second = std::move(v);
        return (edgeocr::capi::clear_error(), EDGEOCR_STATUS_OK);
      }
    entries.emplace_back(s.name, std::move(v));
  })
}

void edgeocr_options_release(edgeocr_options_t* options) {
  if (!options || options->struct_size < edgeocr::capi::kSettingsEnd ||
      options->struct_size > edgeocr::capi::kMaxStructSize)
    return;
  delete options->settings;
  options->settings = nullptr;
}

size_t edgeocr_setting_count(void) {
  return edgeocr::settings_table().size();
}

edgeocr_status_t edgeocr_setting_info(size_t index, edgeocr_setting_info_t* info) {
  EDGEOCR_C_TRY({
    const char* fn = "edgeocr_setting_info";
    if (!info) edgeocr::capi::invalid(std::string(fn) + ": info is NULL");
    edgeocr::capi::check_out_size(info->struct_size, sizeof(edgeocr_setting_info_t), "info", fn);
    const auto& table = edgeocr::settings_table();
    if (index >= table.size())
      edgeocr::capi::invalid(std::string(fn) + ": index " + std::to_string(index) +
                             " is out of range; there are " + std::to_string(table.size()) +
                             " settings");
    const auto& s = table[index];
    const auto& t = setting_texts()[index];
    edgeocr_setting_info_t out;
    std::memset(&out, 0, sizeof out);
    out.name = s.name.c_str();
    out.type = edgeocr::setting_type_name(s.type);
    out.allowed = t.allowed.c_str();
    out.default_value = t.default_value.c_str();
    out.doc = s.doc.c_str();
    edgeocr::capi::write_out(info, out);
  })
}

}  // extern "C"
