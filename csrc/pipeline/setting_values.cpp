// Setting values: checked against the table's types and ranges, parsed from text, shown in
// messages and formatted so that they read back (see edgeocr/settings.h).
#include <algorithm>
#include <cmath>
#include <utility>

#include "common/text.h"
#include "edgeocr/settings.h"
#include "edgeocr/status.h"
#include "pipeline/number_text.h"

namespace edgeocr {
namespace {

[[noreturn]] void invalid(const std::string& m) {
  fail(StatusCode::kInvalidArgument, m);
}

const char* kind_name(SettingValue::Kind k) {
  switch (k) {
    case SettingValue::Kind::kBool:
      return "a bool";
    case SettingValue::Kind::kInt:
      return "an integer";
    case SettingValue::Kind::kFloat:
      return "a float";
    case SettingValue::Kind::kString:
      return "a string";
    case SettingValue::Kind::kList:
      return "a list";
  }
  return "?";
}

bool in_range(const SettingInfo& s, double v) {
  if (!std::isfinite(v)) return false;
  if (s.min_exclusive ? !(v > s.min) : !(v >= s.min)) return false;
  if (s.max_exclusive ? !(v < s.max) : !(v <= s.max)) return false;
  return true;
}

std::string range_text(const SettingInfo& s) {
  return std::string(s.min_exclusive ? "(" : "[") + number_text(s.min) + ", " + number_text(s.max) +
         (s.max_exclusive ? ")" : "]");
}

[[noreturn]] void bad_value(const SettingInfo& s, const SettingValue& v) {
  invalid("pipeline setting " + s.name + " must be " + s.allowed() + ", got " + to_display(v) +
          " (" + kind_name(v.kind) + ")");
}

// One number of a numeric setting, as the setting's canonical kind.
SettingValue check_number(const SettingInfo& s, const SettingValue& v, bool want_int,
                          const SettingValue& whole) {
  if (want_int) {
    if (v.kind != SettingValue::Kind::kInt) bad_value(s, whole);
    if (!in_range(s, static_cast<double>(v.i))) bad_value(s, whole);
    return SettingValue::of_int(v.i);
  }
  double f;
  if (v.kind == SettingValue::Kind::kInt)
    f = static_cast<double>(v.i);
  else if (v.kind == SettingValue::Kind::kFloat)
    f = v.f;
  else
    bad_value(s, whole);
  // Checked as the float the field will hold, so that a value that rounds
  // past the bound (or to infinity) is refused too.
  const double as_float = static_cast<double>(static_cast<float>(f));
  if (!in_range(s, f) || !in_range(s, as_float)) bad_value(s, whole);
  return SettingValue::of_float(f);
}

}  // namespace

SettingValue SettingValue::of_bool(bool v) {
  SettingValue x;
  x.kind = Kind::kBool;
  x.b = v;
  return x;
}
SettingValue SettingValue::of_int(std::int64_t v) {
  SettingValue x;
  x.kind = Kind::kInt;
  x.i = v;
  return x;
}
SettingValue SettingValue::of_float(double v) {
  SettingValue x;
  x.kind = Kind::kFloat;
  x.f = v;
  return x;
}
SettingValue SettingValue::of_string(std::string v) {
  SettingValue x;
  x.kind = Kind::kString;
  x.s = std::move(v);
  return x;
}
SettingValue SettingValue::of_list(std::vector<SettingValue> v) {
  SettingValue x;
  x.kind = Kind::kList;
  x.list = std::move(v);
  return x;
}

std::string to_display(const SettingValue& v) {
  switch (v.kind) {
    case SettingValue::Kind::kBool:
      return v.b ? "true" : "false";
    case SettingValue::Kind::kInt:
      return std::to_string(v.i);
    case SettingValue::Kind::kFloat:
      return number_text(v.f);
    case SettingValue::Kind::kString:
      return quoted(v.s);
    case SettingValue::Kind::kList: {
      std::string out = "[";
      const std::size_t n = std::min<std::size_t>(v.list.size(), 8);
      for (std::size_t i = 0; i < n; ++i) out += (i ? ", " : "") + to_display(v.list[i]);
      if (v.list.size() > n) out += ", ... (" + std::to_string(v.list.size()) + " values)";
      return out + "]";
    }
  }
  return "?";
}

std::string SettingInfo::allowed() const {
  switch (type) {
    case SettingType::kBool:
      return "true or false";
    case SettingType::kInt:
      return "an integer in " + range_text(*this);
    case SettingType::kFloat:
      return "a number in " + range_text(*this);
    case SettingType::kEnum: {
      std::string out;
      for (std::size_t i = 0; i < choices.size(); ++i)
        out += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + ("'" + choices[i] + "'");
      return out;
    }
    case SettingType::kFloat3:
      return "3 numbers, each in " + range_text(*this);
    case SettingType::kIntList:
      return std::to_string(min_len) + " to " + std::to_string(max_len) + " integers, each in " +
             range_text(*this);
  }
  return "?";
}

SettingValue check_setting(const SettingInfo& s, const SettingValue& v) {
  using K = SettingValue::Kind;
  switch (s.type) {
    case SettingType::kBool:
      if (v.kind == K::kBool) return v;
      // 0 and 1 are accepted for C callers' and JSON writers' sake.
      if (v.kind == K::kInt && (v.i == 0 || v.i == 1)) return SettingValue::of_bool(v.i == 1);
      bad_value(s, v);
    case SettingType::kInt:
      return check_number(s, v, true, v);
    case SettingType::kFloat:
      return check_number(s, v, false, v);
    case SettingType::kEnum:
      if (v.kind == K::kString &&
          std::find(s.choices.begin(), s.choices.end(), v.s) != s.choices.end())
        return v;
      bad_value(s, v);
    case SettingType::kFloat3:
    case SettingType::kIntList: {
      if (v.kind != K::kList) bad_value(s, v);
      if (static_cast<long long>(v.list.size()) < s.min_len ||
          static_cast<long long>(v.list.size()) > s.max_len)
        bad_value(s, v);
      std::vector<SettingValue> out;
      out.reserve(v.list.size());
      for (const auto& x : v.list)
        out.push_back(check_number(s, x, s.type == SettingType::kIntList, v));
      return SettingValue::of_list(std::move(out));
    }
  }
  bad_value(s, v);
}

void set_setting(PipelineConfig& config, const std::string& name, const SettingValue& value) {
  const SettingInfo& s = setting_info(name);
  s.set(config, check_setting(s, value));
}

SettingValue parse_setting(const SettingInfo& s, const std::string& text) {
  // Long enough for 1024 buckets of 5 digits; longer text is refused before it is split.
  if (text.size() > 16 * 1024)
    invalid("pipeline setting " + s.name + ": the value is " + std::to_string(text.size()) +
            " characters long; expected " + s.allowed());
  const std::string t = trim_space(text);
  switch (s.type) {
    case SettingType::kBool: {
      // JSON's literals, and 0 / 1 as check_setting takes them from JSON and Python.
      if (t == "true" || t == "1") return SettingValue::of_bool(true);
      if (t == "false" || t == "0") return SettingValue::of_bool(false);
      bad_value(s, SettingValue::of_string(text));
    }
    case SettingType::kEnum:
      return check_setting(s, SettingValue::of_string(t));
    case SettingType::kInt:
    case SettingType::kFloat: {
      bool ok = false;
      SettingValue v = parse_number(t, &ok);
      if (!ok) bad_value(s, SettingValue::of_string(text));
      return check_setting(s, v);
    }
    case SettingType::kFloat3:
    case SettingType::kIntList: {
      std::string body = t;
      if (body.size() >= 2 && ((body.front() == '[' && body.back() == ']') ||
                               (body.front() == '(' && body.back() == ')')))
        body = body.substr(1, body.size() - 2);
      std::vector<SettingValue> items;
      std::size_t start = 0;
      while (!trim_space(body).empty()) {
        const std::size_t comma = body.find(',', start);
        const std::string item =
            body.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        bool ok = false;
        SettingValue v = parse_number(item, &ok);
        if (!ok) bad_value(s, SettingValue::of_string(text));
        items.push_back(std::move(v));
        if (static_cast<int>(items.size()) > s.max_len) break;  // refused by the length check
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      return check_setting(s, SettingValue::of_list(std::move(items)));
    }
  }
  bad_value(s, SettingValue::of_string(text));
}

void set_setting_from_string(PipelineConfig& config, const std::string& name,
                             const std::string& text) {
  const SettingInfo& s = setting_info(name);
  s.set(config, parse_setting(s, text));
}

SettingValue get_setting(const PipelineConfig& config, const std::string& name) {
  return setting_info(name).get(config);
}

std::string format_setting(const SettingInfo& s, const SettingValue& v) {
  switch (s.type) {
    case SettingType::kBool:
      return v.b ? "true" : "false";
    case SettingType::kInt:
      return std::to_string(v.i);
    case SettingType::kFloat:
      return float_text(static_cast<float>(v.f));
    case SettingType::kEnum:
      return v.s;
    case SettingType::kFloat3:
    case SettingType::kIntList: {
      std::string out;
      for (std::size_t i = 0; i < v.list.size(); ++i) {
        if (i) out += ",";
        out += s.type == SettingType::kIntList ? std::to_string(v.list[i].i)
                                               : float_text(static_cast<float>(v.list[i].f));
      }
      return out;
    }
  }
  return "";
}

std::string setting_to_string(const PipelineConfig& config, const std::string& name) {
  const SettingInfo& s = setting_info(name);
  return format_setting(s, s.get(config));
}

}  // namespace edgeocr
