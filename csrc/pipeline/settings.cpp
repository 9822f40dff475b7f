// The table of pipeline settings (see edgeocr/settings.h).
#include "edgeocr/settings.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <limits>
#include <locale>
#include <sstream>
#include <utility>

#include "edgeocr/status.h"

namespace edgeocr {
namespace {

// Limits of the sizes, chosen so that each stage's tensors stay far below
// what a device can hold while every published PP-OCR setting fits.
constexpr int kMaxDetSide = 8192;
constexpr int kMaxBatch = 256;
constexpr int kMaxLineHeight = 512;
constexpr int kMaxRecWidth = 16384;
constexpr int kMaxBuckets = 1024;

// Builders for the table entries. `field` is a lambda returning a reference
// to the member, so that one entry names the member once.
template <class F>
SettingInfo bool_setting(const char* name, F field, const char* doc) {
  SettingInfo s;
  s.name = name;
  s.type = SettingType::kBool;
  s.doc = doc;
  s.get = [field](const PipelineConfig& c) {
    return SettingValue::of_bool(field(const_cast<PipelineConfig&>(c)));
  };
  s.set = [field](PipelineConfig& c, const SettingValue& v) { field(c) = v.b; };
  return s;
}

template <class F>
SettingInfo int_setting(const char* name, F field, int lo, int hi, const char* doc) {
  SettingInfo s;
  s.name = name;
  s.type = SettingType::kInt;
  s.doc = doc;
  s.min = lo;
  s.max = hi;
  s.get = [field](const PipelineConfig& c) {
    return SettingValue::of_int(field(const_cast<PipelineConfig&>(c)));
  };
  s.set = [field](PipelineConfig& c, const SettingValue& v) { field(c) = static_cast<int>(v.i); };
  return s;
}

struct Range {
  double lo, hi;
  bool lo_open, hi_open;
};
constexpr Range closed(double lo, double hi) {
  return {lo, hi, false, false};
}
constexpr Range open(double lo, double hi) {
  return {lo, hi, true, true};
}
constexpr Range open_closed(double lo, double hi) {
  return {lo, hi, true, false};
}

void apply_range(SettingInfo& s, Range r) {
  s.min = r.lo;
  s.max = r.hi;
  s.min_exclusive = r.lo_open;
  s.max_exclusive = r.hi_open;
}

template <class F>
SettingInfo float_setting(const char* name, F field, Range r, const char* doc) {
  SettingInfo s;
  s.name = name;
  s.type = SettingType::kFloat;
  s.doc = doc;
  apply_range(s, r);
  s.get = [field](const PipelineConfig& c) {
    return SettingValue::of_float(field(const_cast<PipelineConfig&>(c)));
  };
  s.set = [field](PipelineConfig& c, const SettingValue& v) { field(c) = static_cast<float>(v.f); };
  return s;
}

template <class F>
SettingInfo float3_setting(const char* name, F field, Range r, const char* doc) {
  SettingInfo s;
  s.name = name;
  s.type = SettingType::kFloat3;
  s.doc = doc;
  apply_range(s, r);
  s.min_len = s.max_len = 3;
  s.get = [field](const PipelineConfig& c) {
    const float* v = field(const_cast<PipelineConfig&>(c));
    return SettingValue::of_list(
        {SettingValue::of_float(v[0]), SettingValue::of_float(v[1]), SettingValue::of_float(v[2])});
  };
  s.set = [field](PipelineConfig& c, const SettingValue& v) {
    float* dst = field(c);
    for (int i = 0; i < 3; ++i) dst[i] = static_cast<float>(v.list[i].f);
  };
  return s;
}

template <class F>
SettingInfo int_list_setting(const char* name, F field, int lo, int hi, int min_len, int max_len,
                             const char* doc) {
  SettingInfo s;
  s.name = name;
  s.type = SettingType::kIntList;
  s.doc = doc;
  s.min = lo;
  s.max = hi;
  s.min_len = min_len;
  s.max_len = max_len;
  s.get = [field](const PipelineConfig& c) {
    std::vector<SettingValue> out;
    for (int x : field(const_cast<PipelineConfig&>(c))) out.push_back(SettingValue::of_int(x));
    return SettingValue::of_list(std::move(out));
  };
  s.set = [field](PipelineConfig& c, const SettingValue& v) {
    std::vector<int> out;
    out.reserve(v.list.size());
    for (const auto& x : v.list) out.push_back(static_cast<int>(x.i));
    field(c) = std::move(out);
  };
  return s;
}

template <class F, class E>
SettingInfo enum_setting(const char* name, F field, std::vector<std::pair<const char*, E>> values,
                         const char* doc) {
  SettingInfo s;
  s.name = name;
  s.type = SettingType::kEnum;
  s.doc = doc;
  for (const auto& v : values) s.choices.emplace_back(v.first);
  s.get = [field, values](const PipelineConfig& c) {
    const E e = field(const_cast<PipelineConfig&>(c));
    for (const auto& v : values)
      if (v.second == e) return SettingValue::of_string(v.first);
    return SettingValue::of_string("?");
  };
  s.set = [field, values](PipelineConfig& c, const SettingValue& v) {
    for (const auto& x : values)
      if (v.s == x.first) field(c) = x.second;
  };
  return s;
}

#define EDGEOCR_FIELD(member) [](PipelineConfig& c) -> decltype(auto) { return (c.member); }

std::vector<SettingInfo> build_table() {
  std::vector<SettingInfo> t;
  // Detection: input size.
  t.push_back(enum_setting(
      "det_limit_type", EDGEOCR_FIELD(det_resize.limit_type),
      std::vector<std::pair<const char*, DetLimitType>>{{"min", DetLimitType::kMin},
                                                        {"max", DetLimitType::kMax}},
      "'min': enlarge so the short side is at least det_limit_side_len; 'max': shrink so the long "
      "side is at most det_limit_side_len"));
  t.push_back(int_setting("det_limit_side_len", EDGEOCR_FIELD(det_resize.limit_side_len), 32,
                          kMaxDetSide, "the side length det_limit_type refers to, in pixels"));
  t.push_back(int_setting("det_max_side_len", EDGEOCR_FIELD(det_resize.max_side_len), 32,
                          kMaxDetSide,
                          "cap on the det input's long side after scaling (sides are then "
                          "rounded to multiples of 32)"));
  t.push_back(int_setting(
      "det_tile_pixels", EDGEOCR_FIELD(det_tile_pixels), 0, kMaxDetSide * kMaxDetSide,
      "a det input of more pixels runs in overlapping tiles of at most this many (at least 192 x "
      "192), stitched: bounds the runtime's det memory (0: one run whatever the size)"));
  t.push_back(
      float3_setting("det_mean", EDGEOCR_FIELD(det_norm.mean), closed(-10, 10),
                     "det input normalisation: (pixel/255 - mean) / std, per channel (B, G, R)"));
  t.push_back(float3_setting("det_std", EDGEOCR_FIELD(det_norm.std), open_closed(0, 10),
                             "det input normalisation divisor per channel"));
  // DB post-processing.
  t.push_back(float_setting("det_thresh", EDGEOCR_FIELD(db.thresh), open(0, 1),
                            "binarisation threshold on the det probability map"));
  t.push_back(float_setting("det_box_thresh", EDGEOCR_FIELD(db.box_thresh), closed(0, 1),
                            "boxes whose mean probability is below are dropped"));
  t.push_back(float_setting("det_unclip_ratio", EDGEOCR_FIELD(db.unclip_ratio), open_closed(0, 100),
                            "box expansion: offset distance = area * ratio / perimeter"));
  t.push_back(int_setting("det_max_candidates", EDGEOCR_FIELD(db.max_candidates), 1, 100000,
                          "at most this many regions are kept (the largest by pixel count)"));
  t.push_back(bool_setting("det_use_dilation", EDGEOCR_FIELD(db.use_dilation),
                           "2x2 dilation of the binary map before finding regions"));
  t.push_back(enum_setting(
      "det_score_mode", EDGEOCR_FIELD(db.score_mode),
      std::vector<std::pair<const char*, DbScoreMode>>{{"fast", DbScoreMode::kFast},
                                                       {"slow", DbScoreMode::kSlow}},
      "box score: mean probability inside the box's rectangle ('fast') or its polygon ('slow')"));
  t.push_back(float_setting("det_min_size", EDGEOCR_FIELD(db.min_size), closed(0, 1000),
                            "boxes whose short side (map pixels) is below are dropped"));
  // Direction classification.
  t.push_back(
      bool_setting("use_cls", EDGEOCR_FIELD(use_cls),
                   "run the direction classifier (0 / 180 degrees) when there is a cls model"));
  t.push_back(int_setting("cls_height", EDGEOCR_FIELD(cls_height), 8, kMaxLineHeight,
                          "cls input height (a model with a fixed input size sets its own)"));
  t.push_back(int_setting("cls_width", EDGEOCR_FIELD(cls_width), 8, kMaxRecWidth,
                          "cls input width (a model with a fixed input size sets its own)"));
  t.push_back(int_setting("cls_batch", EDGEOCR_FIELD(cls_batch), 1, kMaxBatch,
                          "crops per cls batch (batches are padded to this size)"));
  t.push_back(float_setting("cls_thresh", EDGEOCR_FIELD(cls_thresh), closed(0, 1),
                            "minimum classifier confidence to turn a line 180 degrees"));
  t.push_back(
      bool_setting("cls_verify", EDGEOCR_FIELD(cls_verify),
                   "keep a flip only if the recogniser is more confident on the turned crop"));
  t.push_back(float3_setting("cls_mean", EDGEOCR_FIELD(cls_norm.mean), closed(-10, 10),
                             "cls input normalisation mean per channel"));
  t.push_back(float3_setting("cls_std", EDGEOCR_FIELD(cls_norm.std), open_closed(0, 10),
                             "cls input normalisation divisor per channel"));
  // Recognition.
  t.push_back(int_setting("rec_height", EDGEOCR_FIELD(rec_height), 8, kMaxLineHeight,
                          "rec input height (a model with a fixed input size sets its own)"));
  t.push_back(int_setting("rec_batch", EDGEOCR_FIELD(rec_batch), 1, kMaxBatch,
                          "lines per rec batch (batches are padded to this size)"));
  t.push_back(int_list_setting(
      "rec_width_buckets", EDGEOCR_FIELD(rec_width_buckets), 8, kMaxRecWidth, 1, kMaxBuckets,
      "rec input widths: each batch is padded to the smallest that fits its widest crop"));
  t.push_back(int_setting(
      "rec_batch_columns", EDGEOCR_FIELD(rec_batch_columns), 0, kMaxBatch * kMaxRecWidth,
      "the most columns (lines x padded width) one rec run reads; wider batches run in parts "
      "padded to the same width (same text, less memory held by the runtime; 0: no limit)"));
  t.push_back(enum_setting(
      "rec_pad_to", EDGEOCR_FIELD(rec_pad_to),
      std::vector<std::pair<const char*, RecPadTo>>{{"line", RecPadTo::kLine},
                                                    {"batch", RecPadTo::kBatch}},
      "'line': a line is padded to its own width bucket and batched with lines of the same bucket "
      "(it reads the same whatever the page's other lines); 'batch': to the bucket of the widest "
      "of its batch of rec_batch lines in width order (PaddleOCR, RapidOCR)"));
  t.push_back(float3_setting("rec_mean", EDGEOCR_FIELD(rec_norm.mean), closed(-10, 10),
                             "rec input normalisation mean per channel"));
  t.push_back(float3_setting("rec_std", EDGEOCR_FIELD(rec_norm.std), open_closed(0, 10),
                             "rec input normalisation divisor per channel"));
  t.push_back(float_setting("rotate_ratio", EDGEOCR_FIELD(rotate_ratio), open_closed(0, 1000),
                            "crops with height / width at or above are turned 90 degrees"));
  t.push_back(float_setting("drop_score", EDGEOCR_FIELD(drop_score), closed(0, 1),
                            "lines recognised with a lower score are dropped"));
  t.push_back(float_setting("rec_space_gap", EDGEOCR_FIELD(rec_space_gap), closed(0, 1),
                            "CTC decoding writes a space between two characters when the space "
                            "class reaches this probability on a blank frame between them (0: "
                            "plain greedy decoding)"));
  t.push_back(
      int_setting("det_stretch_below", EDGEOCR_FIELD(det_stretch_below), 0, 256,
                  "det reads the page's levels stretched to 0..255 when its luminance range "
                  "(0.5th to 99.5th percentile) spans fewer grey levels than this (0: never)"));
  t.push_back(int_setting("rec_stretch_below", EDGEOCR_FIELD(rec_stretch_below), 0, 256,
                          "the same for cls and rec"));
  t.push_back(float_setting(
      "det_sharpen_below", EDGEOCR_FIELD(det_sharpen_below), closed(0, 1),
      "a blurred capture: when the page's edge sharpness at the det input's scale (median "
      "luminance step across an edge over the page's range) is below this, det reads the page a "
      "second time unsharp-masked (sigma 4 det pixels, amount 2) and adds the lines only that "
      "run found (0: never)"));
  return t;
}

#undef EDGEOCR_FIELD

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

// Numbers as text in the C locale whatever the process locale is (a C app
// may have called setlocale; "0,3" must never appear or be expected).
std::string c_locale_text(double v, int precision, bool fixed) {
  std::ostringstream out;
  out.imbue(std::locale::classic());
  if (fixed) out << std::fixed;
  out << std::setprecision(precision) << v;
  return out.str();
}

double c_locale_double(const std::string& s) {
  std::istringstream in(s);
  in.imbue(std::locale::classic());
  double d = 0;
  in >> d;
  return d;
}

std::string num(double v) {
  // Integers without a fraction, others in the shortest form that reads back.
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
    return c_locale_text(v, 0, true);
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
  std::string t;
  for (int p = 6; p <= 17; ++p) {
    t = c_locale_text(v, p, false);
    if (c_locale_double(t) == v) break;
  }
  return t;
}

}  // namespace

std::string float_text(float v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
  if (v == std::floor(v) && std::fabs(v) < 1e7) return c_locale_text(v, 1, true);
  std::string t;
  for (int p = 6; p <= 9; ++p) {
    t = c_locale_text(v, p, false);
    if (static_cast<float>(c_locale_double(t)) == v) break;
  }
  return t;
}

namespace {

bool in_range(const SettingInfo& s, double v) {
  if (!std::isfinite(v)) return false;
  if (s.min_exclusive ? !(v > s.min) : !(v >= s.min)) return false;
  if (s.max_exclusive ? !(v < s.max) : !(v <= s.max)) return false;
  return true;
}

std::string range_text(const SettingInfo& s) {
  return std::string(s.min_exclusive ? "(" : "[") + num(s.min) + ", " + num(s.max) +
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

std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// A number in the C locale; nullopt-like: ok=false if the text is not exactly one number.
SettingValue parse_number(const std::string& text, bool* ok) {
  const std::string t = trim(text);
  *ok = false;
  if (t.empty() || t.size() > 64) return SettingValue::of_string(text);
  // An integer if it is all digits (with a sign).
  std::size_t i = (t[0] == '-' || t[0] == '+') ? 1 : 0;
  bool digits = i < t.size();
  for (std::size_t j = i; j < t.size(); ++j)
    if (!std::isdigit(static_cast<unsigned char>(t[j]))) digits = false;
  if (digits) {
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(t.c_str(), &end, 10);
    if (errno == 0 && end == t.c_str() + t.size()) {
      *ok = true;
      return SettingValue::of_int(v);
    }
    // Too large for 64 bits: a float, so that the range check names it.
  }
  std::istringstream in(t);
  in.imbue(std::locale::classic());
  double d = 0;
  in >> d;
  if (!in.fail() && in.peek() == std::char_traits<char>::eof()) {
    *ok = true;
    return SettingValue::of_float(d);
  }
  // istringstream does not read inf/nan: they are refused by the range anyway.
  return SettingValue::of_string(text);
}

}  // namespace

const char* setting_type_name(SettingType type) noexcept {
  switch (type) {
    case SettingType::kBool:
      return "bool";
    case SettingType::kInt:
      return "int";
    case SettingType::kFloat:
      return "float";
    case SettingType::kEnum:
      return "enum";
    case SettingType::kFloat3:
      return "float3";
    case SettingType::kIntList:
      return "int_list";
  }
  return "?";
}

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
      return num(v.f);
    case SettingValue::Kind::kString: {
      std::string s = v.s.size() > 60 ? v.s.substr(0, 60) + "..." : v.s;
      return "'" + s + "'";
    }
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

const std::vector<SettingInfo>& settings_table() {
  static const std::vector<SettingInfo> table = build_table();
  return table;
}

const SettingInfo* find_setting(const std::string& name) noexcept {
  for (const auto& s : settings_table())
    if (s.name == name) return &s;
  return nullptr;
}

const SettingInfo& setting_info(const std::string& name) {
  if (const SettingInfo* s = find_setting(name)) return *s;
  std::string known;
  for (const auto& s : settings_table()) known += (known.empty() ? "" : ", ") + s.name;
  const std::string shown = name.size() > 60 ? name.substr(0, 60) + "..." : name;
  invalid("unknown pipeline setting '" + shown + "'; the settings are: " + known);
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
  const std::string t = trim(text);
  switch (s.type) {
    case SettingType::kBool: {
      std::string l;
      for (char c : t) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (l == "true" || l == "1" || l == "on" || l == "yes") return SettingValue::of_bool(true);
      if (l == "false" || l == "0" || l == "off" || l == "no") return SettingValue::of_bool(false);
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
      while (!trim(body).empty()) {
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

// ---- memory ------------------------------------------------------------------

namespace {

std::uint64_t round_up32(std::uint64_t v) {
  return (v + 31) / 32 * 32;
}

// What ONNX Runtime itself holds per det input pixel while the det model runs
// (activations, on top of edgeocr's 16 bytes of input and map): peak RSS grew
// by 187 and 192 bytes per pixel for 1024 and 2048 px square inputs of the
// PP-OCRv4 mobile det model (CPU, one shared arena), less the 16 counted.
constexpr std::uint64_t kDetRuntimeBytesPerPixel = 176;

std::string mib(std::uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return b;
}

}  // namespace

SettingsMemory settings_memory(const PipelineConfig& c, std::int64_t rec_classes) {
  // Every size below is range-checked first (at most 8192 px, 256 per batch,
  // 16384 px wide), so these products fit in 64 bits.
  SettingsMemory m;
  const auto& r = c.det_resize;
  const std::uint64_t side = round_up32(static_cast<std::uint64_t>(
      std::max(32, r.limit_type == DetLimitType::kMax ? std::min(r.limit_side_len, r.max_side_len)
                                                      : r.max_side_len)));
  // One det run reads the whole frame, or a tile of at most det_tile_pixels (at least 192 x 192)
  // while the frame's probability map is stitched.
  const std::uint64_t frame = side * side;
  std::uint64_t run = frame;
  if (c.det_tile_pixels > 0)
    run = std::min<std::uint64_t>(
        frame, std::max<std::uint64_t>(static_cast<std::uint64_t>(c.det_tile_pixels), 192 * 192));
  m.det = frame * sizeof(float) + run * (3 * sizeof(float) + kDetRuntimeBytesPerPixel);
  m.det_side = static_cast<int>(side);
  m.cls = static_cast<std::uint64_t>(c.cls_batch) *
          (3 * static_cast<std::uint64_t>(c.cls_height) * c.cls_width + 2) * sizeof(float);
  int widest = 0, narrowest = 0;
  if (!c.rec_width_buckets.empty()) {
    widest = *std::max_element(c.rec_width_buckets.begin(), c.rec_width_buckets.end());
    narrowest = *std::min_element(c.rec_width_buckets.begin(), c.rec_width_buckets.end());
  }
  auto rec_at = [&](int width) {
    const std::uint64_t w = static_cast<std::uint64_t>(std::max(width, 0));
    const std::uint64_t classes = rec_classes > 0 ? static_cast<std::uint64_t>(rec_classes) : 0;
    return (3 * static_cast<std::uint64_t>(c.rec_height) * w + (w + 7) / 8 * classes) *
           sizeof(float);
  };
  // Lines per run at a width: rec_batch, fewer when rec_batch_columns caps the run.
  auto per_run = [&](int width) -> std::uint64_t {
    if (c.rec_batch_columns <= 0 || width <= 0) return static_cast<std::uint64_t>(c.rec_batch);
    return static_cast<std::uint64_t>(std::clamp(c.rec_batch_columns / width, 1, c.rec_batch));
  };
  m.cls_line = (3 * static_cast<std::uint64_t>(c.cls_height) * c.cls_width + 2) * sizeof(float);
  m.rec_line =
      3 * static_cast<std::uint64_t>(c.rec_height) * std::max(narrowest, 0) * sizeof(float);
  m.rec = 0;
  for (int w : c.rec_width_buckets) m.rec = std::max(m.rec, per_run(w) * rec_at(w));
  m.rec_min = per_run(narrowest) * rec_at(narrowest);
  return m;
}

void validate_config(const PipelineConfig& config, std::uint64_t cap_bytes,
                     std::int64_t rec_classes) {
  for (const SettingInfo& s : settings_table()) check_setting(s, s.get(config));
  const SettingsMemory m = settings_memory(config, rec_classes);
  const std::uint64_t worst_cap = std::max(cap_bytes, kDefaultSettingsMemoryCap);
  const char* worst_why = cap_bytes > kDefaultSettingsMemoryCap
                              ? "max_memory_mb"
                              : "the settings' memory limit (raise it with max_memory_mb)";
  auto refuse = [&](const std::string& what, std::uint64_t need, std::uint64_t cap,
                    const char* why) {
    invalid(what + " need " + mib(need) + " of tensors per call, more than " + mib(cap) + " (" +
            why + ")");
  };
  if (m.det > worst_cap)
    refuse("det_limit_type/det_limit_side_len/det_max_side_len allow det inputs up to " +
               std::to_string(m.det_side) + " px square, which",
           m.det, worst_cap, worst_why);
  if (m.cls > worst_cap) refuse("cls_batch x cls_height x cls_width", m.cls, worst_cap, worst_why);
  if (m.rec > worst_cap)
    refuse("rec_batch (within rec_batch_columns) x rec_height x rec_width_buckets", m.rec,
           worst_cap, worst_why);
  if (cap_bytes > 0) {
    // What every call of a stage needs, whatever the image: the input of one line. Under a budget
    // the planner runs batches down to one line and counts that input, the model's activations
    // and a call overhead on top, so this check is never stricter than the planner.
    if (config.use_cls && m.cls_line > cap_bytes)
      refuse("one line of cls_height x cls_width", m.cls_line, cap_bytes, "max_memory_mb");
    if (m.rec_line > cap_bytes)
      refuse("one line of rec_height x the narrowest of rec_width_buckets", m.rec_line, cap_bytes,
             "max_memory_mb");
  }
}

}  // namespace edgeocr
