#include "loader/settings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <functional>
#include <vector>

namespace edgeocr {
namespace loader {
namespace {

using json = nlohmann::json;

// Largest model input a setting may imply, in float32 elements per tensor
// (det: 4096 x 4096 x 3; rec/cls: batch x 3 x height x width). Larger values
// are refused before any buffer is sized from them.
constexpr double kMaxInputElements = 64.0 * 1024 * 1024;

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

struct Ctx {
  const std::string& where;
  StatusCode code;
  [[noreturn]] void fail_range(const std::string& key, const json& v, const std::string& want) const {
    std::string shown = v.dump();
    if (shown.size() > 80) shown = shown.substr(0, 77) + "...";
    fail(code, where + "." + key + " is " + shown + "; expected " + want);
  }
};

int get_int(const Ctx& c, const std::string& k, const json& v, long lo, long hi) {
  const std::string want = "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (!v.is_number_integer()) c.fail_range(k, v, want);
  const long long x = v.is_number_unsigned() ? static_cast<long long>(std::min<std::uint64_t>(
                                                   v.get<std::uint64_t>(), INT64_MAX))
                                             : v.get<std::int64_t>();
  if (x < lo || x > hi) c.fail_range(k, v, want);
  return static_cast<int>(x);
}

float get_float(const Ctx& c, const std::string& k, const json& v, double lo, double hi,
                bool open_lo = false) {
  const std::string want = std::string("a number in ") + (open_lo ? "(" : "[") + num(lo) + ", " + num(hi) + "]";
  if (!v.is_number()) c.fail_range(k, v, want);
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi || (open_lo && x == lo)) c.fail_range(k, v, want);
  return static_cast<float>(x);
}

bool get_bool(const Ctx& c, const std::string& k, const json& v) {
  if (!v.is_boolean()) c.fail_range(k, v, "true or false");
  return v.get<bool>();
}

std::string get_enum(const Ctx& c, const std::string& k, const json& v, const char* a, const char* b) {
  const std::string want = std::string("\"") + a + "\" or \"" + b + "\"";
  if (!v.is_string()) c.fail_range(k, v, want);
  const std::string s = v.get<std::string>();
  if (s != a && s != b) c.fail_range(k, v, want);
  return s;
}

void get3(const Ctx& c, const std::string& k, const json& v, float out[3], double lo, double hi,
          bool open_lo) {
  const std::string want = "a list of 3 numbers in " + std::string(open_lo ? "(" : "[") + num(lo) + ", " +
                           num(hi) + "]";
  if (!v.is_array() || v.size() != 3) c.fail_range(k, v, want);
  float tmp[3];
  for (int i = 0; i < 3; ++i) {
    const json& x = v[static_cast<std::size_t>(i)];
    if (!x.is_number()) c.fail_range(k, v, want);
    const double d = x.get<double>();
    if (!std::isfinite(d) || d < lo || d > hi || (open_lo && d == lo)) c.fail_range(k, v, want);
    tmp[i] = static_cast<float>(d);
  }
  for (int i = 0; i < 3; ++i) out[i] = tmp[i];
}

using Setter = std::function<void(PipelineConfig&, const Ctx&, const std::string&, const json&)>;

const std::vector<std::pair<std::string, Setter>>& table() {
  static const std::vector<std::pair<std::string, Setter>> t = {
      {"det_limit_type", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) {
         p.det_resize.limit_type = get_enum(c, k, v, "min", "max") == "min" ? DetLimitType::kMin : DetLimitType::kMax;
       }},
      {"det_limit_side_len", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) {
         p.det_resize.limit_side_len = get_int(c, k, v, 32, 4096);
       }},
      {"det_max_side_len", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) {
         p.det_resize.max_side_len = get_int(c, k, v, 32, 4096);
       }},
      {"det_mean", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { get3(c, k, v, p.det_norm.mean, -10, 10, false); }},
      {"det_std", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { get3(c, k, v, p.det_norm.std, 0, 10, true); }},
      {"det_thresh", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { p.db.thresh = get_float(c, k, v, 0, 1); }},
      {"det_box_thresh", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { p.db.box_thresh = get_float(c, k, v, 0, 1); }},
      {"det_unclip_ratio", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { p.db.unclip_ratio = get_float(c, k, v, 0, 100, true); }},
      {"det_max_candidates", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { p.db.max_candidates = get_int(c, k, v, 1, 100000); }},
      {"det_use_dilation", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { p.db.use_dilation = get_bool(c, k, v); }},
      {"det_score_mode", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) {
         p.db.score_mode = get_enum(c, k, v, "fast", "slow") == "fast" ? DbScoreMode::kFast : DbScoreMode::kSlow;
       }},
      {"det_min_size", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { p.db.min_size = get_float(c, k, v, 0, 10000); }},
      {"use_cls", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { p.use_cls = get_bool(c, k, v); }},
      {"cls_height", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { p.cls_height = get_int(c, k, v, 8, 512); }},
      {"cls_width", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { p.cls_width = get_int(c, k, v, 8, 4096); }},
      {"cls_batch", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { p.cls_batch = get_int(c, k, v, 1, 1024); }},
      {"cls_thresh", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { p.cls_thresh = get_float(c, k, v, 0, 1); }},
      {"cls_verify", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { p.cls_verify = get_bool(c, k, v); }},
      {"cls_mean", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { get3(c, k, v, p.cls_norm.mean, -10, 10, false); }},
      {"cls_std", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { get3(c, k, v, p.cls_norm.std, 0, 10, true); }},
      {"rec_height", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { p.rec_height = get_int(c, k, v, 8, 512); }},
      {"rec_batch", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { p.rec_batch = get_int(c, k, v, 1, 1024); }},
      {"rec_width_buckets", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) {
         const std::string want = "a list of 1 to 1024 increasing integers in [8, 8192]";
         if (!v.is_array() || v.empty() || v.size() > 1024) c.fail_range(k, v, want);
         std::vector<int> w;
         w.reserve(v.size());
         for (const json& x : v) {
           if (!x.is_number_integer()) c.fail_range(k, v, want);
           const long long i = x.is_number_unsigned()
                                   ? static_cast<long long>(std::min<std::uint64_t>(x.get<std::uint64_t>(), INT64_MAX))
                                   : x.get<std::int64_t>();
           if (i < 8 || i > 8192 || (!w.empty() && i <= w.back())) c.fail_range(k, v, want);
           w.push_back(static_cast<int>(i));
         }
         p.rec_width_buckets = std::move(w);
       }},
      {"rec_mean", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { get3(c, k, v, p.rec_norm.mean, -10, 10, false); }},
      {"rec_std", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { get3(c, k, v, p.rec_norm.std, 0, 10, true); }},
      {"rotate_ratio", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { p.rotate_ratio = get_float(c, k, v, 0, 1000, true); }},
      {"drop_score", [](PipelineConfig& p, const Ctx& c, const std::string& k, const json& v) { p.drop_score = get_float(c, k, v, 0, 1); }},
  };
  return t;
}

json list3(const float v[3]) { return json::array({v[0], v[1], v[2]}); }

}  // namespace

void apply_settings(PipelineConfig& config, const json& settings, const std::string& where,
                    StatusCode code, StatusCode unknown_code) {
  if (!settings.is_object()) fail(code, where + " must be a JSON object of settings");
  const Ctx ctx{where, code};
  PipelineConfig c = config;
  for (auto it = settings.begin(); it != settings.end(); ++it) {
    const Setter* setter = nullptr;
    for (const auto& e : table())
      if (e.first == it.key()) setter = &e.second;
    if (!setter) {
      std::string known;
      for (const auto& e : table()) known += (known.empty() ? "" : ", ") + e.first;
      fail(unknown_code, where + ": unknown pipeline setting '" + it.key().substr(0, 64) + "'" +
                             (unknown_code == StatusCode::kUnsupported ? " (made by a newer edgeocr?)" : "") +
                             "; known: " + known);
    }
    (*setter)(c, ctx, it.key(), it.value());
  }
  // Sizes that follow from several settings together.
  const double rec_elems = double(c.rec_batch) * 3 * c.rec_height * c.rec_width_buckets.back();
  if (rec_elems > kMaxInputElements)
    fail(code, where + ": rec_batch x rec_height x the widest rec_width_buckets (" +
                   std::to_string(c.rec_batch) + " x " + std::to_string(c.rec_height) + " x " +
                   std::to_string(c.rec_width_buckets.back()) + ") implies a rec input of " +
                   std::to_string(static_cast<long long>(rec_elems * 4 / 1048576)) +
                   " MiB; at most " + std::to_string(static_cast<long long>(kMaxInputElements * 4 / 1048576)) +
                   " MiB is allowed");
  const double cls_elems = double(c.cls_batch) * 3 * c.cls_height * c.cls_width;
  if (cls_elems > kMaxInputElements)
    fail(code, where + ": cls_batch x cls_height x cls_width (" + std::to_string(c.cls_batch) + " x " +
                   std::to_string(c.cls_height) + " x " + std::to_string(c.cls_width) +
                   ") implies a cls input larger than " +
                   std::to_string(static_cast<long long>(kMaxInputElements * 4 / 1048576)) + " MiB");
  config = std::move(c);
}

json settings_to_json(const PipelineConfig& c) {
  json d = json::object();
  d["det_limit_type"] = c.det_resize.limit_type == DetLimitType::kMin ? "min" : "max";
  d["det_limit_side_len"] = c.det_resize.limit_side_len;
  d["det_max_side_len"] = c.det_resize.max_side_len;
  d["det_mean"] = list3(c.det_norm.mean);
  d["det_std"] = list3(c.det_norm.std);
  d["det_thresh"] = c.db.thresh;
  d["det_box_thresh"] = c.db.box_thresh;
  d["det_unclip_ratio"] = c.db.unclip_ratio;
  d["det_max_candidates"] = c.db.max_candidates;
  d["det_use_dilation"] = c.db.use_dilation;
  d["det_score_mode"] = c.db.score_mode == DbScoreMode::kFast ? "fast" : "slow";
  d["det_min_size"] = c.db.min_size;
  d["use_cls"] = c.use_cls;
  d["cls_height"] = c.cls_height;
  d["cls_width"] = c.cls_width;
  d["cls_batch"] = c.cls_batch;
  d["cls_thresh"] = c.cls_thresh;
  d["cls_verify"] = c.cls_verify;
  d["cls_mean"] = list3(c.cls_norm.mean);
  d["cls_std"] = list3(c.cls_norm.std);
  d["rec_height"] = c.rec_height;
  d["rec_batch"] = c.rec_batch;
  d["rec_width_buckets"] = c.rec_width_buckets;
  d["rec_mean"] = list3(c.rec_norm.mean);
  d["rec_std"] = list3(c.rec_norm.std);
  d["rotate_ratio"] = c.rotate_ratio;
  d["drop_score"] = c.drop_score;
  return d;
}

}  // namespace loader
}  // namespace edgeocr
