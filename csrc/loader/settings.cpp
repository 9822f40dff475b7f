// Pipeline settings from JSON through the one settings table (edgeocr/settings.h).
#include "loader/settings.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "edgeocr/settings.h"

namespace edgeocr {
namespace loader {
namespace {

using json = nlohmann::json;

// A JSON value as the settings table takes it; the table decides what is accepted.
SettingValue value_of(const SettingInfo& s, const json& v, bool top = true) {
  if (v.is_boolean()) return SettingValue::of_bool(v.get<bool>());
  if (v.is_number_unsigned()) {
    const std::uint64_t u = v.get<std::uint64_t>();
    return u > static_cast<std::uint64_t>(INT64_MAX)
               ? SettingValue::of_float(static_cast<double>(u))
               : SettingValue::of_int(static_cast<std::int64_t>(u));
  }
  if (v.is_number_integer()) return SettingValue::of_int(v.get<std::int64_t>());
  if (v.is_number_float()) return SettingValue::of_float(v.get<double>());
  if (v.is_string()) return SettingValue::of_string(v.get<std::string>());
  if (top && v.is_array()) {
    // More values than any setting takes are not converted: the length check refuses them.
    const std::size_t keep =
        std::min<std::size_t>(v.size(), static_cast<std::size_t>(std::max(s.max_len, 3)) + 1);
    std::vector<SettingValue> items;
    items.reserve(keep);
    for (std::size_t i = 0; i < keep; ++i) items.push_back(value_of(s, v[i], false));
    return SettingValue::of_list(std::move(items));
  }
  fail(StatusCode::kInvalidArgument, "pipeline setting " + s.name + " must be " + s.allowed() +
                                         ", got " +
                                         (v.is_object()  ? "an object"
                                          : v.is_array() ? "a nested list"
                                                         : "null"));
}

}  // namespace

void apply_settings(PipelineConfig& config, const json& settings, const std::string& where,
                    StatusCode code, StatusCode unknown_code) {
  if (!settings.is_object()) fail(code, where + " must be a JSON object of settings");
  PipelineConfig c = config;
  for (auto it = settings.begin(); it != settings.end(); ++it) {
    const SettingInfo* s = find_setting(it.key());
    if (!s) {
      std::string known;
      for (const auto& e : settings_table()) known += (known.empty() ? "" : ", ") + e.name;
      fail(unknown_code,
           where + ": unknown pipeline setting '" + it.key().substr(0, 64) + "'" +
               (unknown_code == StatusCode::kUnsupported ? " (made by a newer edgeocr?)" : "") +
               "; known: " + known);
    }
    try {
      s->set(c, check_setting(*s, value_of(*s, it.value())));
    } catch (const Error& e) {
      fail(code, where + ": " + e.what());
    }
  }
  // Sizes that follow from several settings together, before anything is sized from them.
  try {
    validate_config(c);
  } catch (const Error& e) {
    fail(code, where + ": " + e.what());
  }
  config = std::move(c);
}

// A float field as the shortest decimal that reads back to it (0.65, not 0.6499999761581421).
double short_float(double f) {
  return std::strtod(float_text(static_cast<float>(f)).c_str(), nullptr);
}

json settings_to_json(const PipelineConfig& c) {
  json d = json::object();
  for (const SettingInfo& s : settings_table()) {
    const SettingValue v = s.get(c);
    switch (v.kind) {
      case SettingValue::Kind::kBool:
        d[s.name] = v.b;
        break;
      case SettingValue::Kind::kInt:
        d[s.name] = v.i;
        break;
      case SettingValue::Kind::kFloat:
        d[s.name] = short_float(v.f);
        break;
      case SettingValue::Kind::kString:
        d[s.name] = v.s;
        break;
      case SettingValue::Kind::kList: {
        json a = json::array();
        for (const auto& x : v.list) {
          if (x.kind == SettingValue::Kind::kInt)
            a.push_back(x.i);
          else
            a.push_back(short_float(x.f));
        }
        d[s.name] = std::move(a);
        break;
      }
    }
  }
  return d;
}

}  // namespace loader
}  // namespace edgeocr
