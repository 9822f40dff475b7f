// The table of pipeline settings (see edgeocr/settings.h): one entry per field of PipelineConfig
// with its name, type, range and doc.
#include <utility>

#include "common/text.h"
#include "edgeocr/settings.h"
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
  t.push_back(float_setting(
      "det_max_upscale", EDGEOCR_FIELD(det_resize.max_upscale), closed(1, 1000),
      "the most det_limit_type may enlarge the image (1: never enlarged): a small image, label or "
      "strip is read near its own size instead of at a det_limit_side_len short side"));
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
  t.push_back(float_setting(
      "rec_recheck_below", EDGEOCR_FIELD(rec_recheck_below), closed(0, 1),
      "with a recheck model: a line rec reads with a lower score is read again by the recheck "
      "model, whose reading replaces it (0: never)"));
  t.push_back(enum_setting(
      "rec_recheck_trigger", EDGEOCR_FIELD(rec_recheck_trigger),
      std::vector<std::pair<const char*, RecheckTrigger>>{{"line", RecheckTrigger::kLine},
                                                          {"word", RecheckTrigger::kWord},
                                                          {"char", RecheckTrigger::kChar}},
      "what rec_recheck_below is compared with: 'line': rec's line score (the mean of its "
      "characters' probabilities); 'word': its weakest word's score; 'char': its weakest "
      "character's probability (an empty reading is always rechecked)"));
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
  // Layout analysis (DocumentParser).
  t.push_back(int_setting("layout_height", EDGEOCR_FIELD(layout_height), 32, 4096,
                          "layout model input height (a model with a fixed input size sets its "
                          "own)"));
  t.push_back(int_setting("layout_width", EDGEOCR_FIELD(layout_width), 32, 4096,
                          "layout model input width (a model with a fixed input size sets its "
                          "own)"));
  t.push_back(float_setting("layout_score_thresh", EDGEOCR_FIELD(layout_score_thresh), closed(0, 1),
                            "a layout region's class score must exceed this"));
  t.push_back(float_setting("layout_nms_iou", EDGEOCR_FIELD(layout_nms_iou), closed(0, 1),
                            "per class, a layout region overlapping a better one by a larger IoU "
                            "is dropped"));
  t.push_back(int_setting("layout_max_regions", EDGEOCR_FIELD(layout_max_regions), 1, 10000,
                          "the most layout regions a page keeps (the best-scoring)"));
  // Tables (DocumentParser, docs/tables.md).
  t.push_back(enum_setting(
      "table_method", EDGEOCR_FIELD(table_method),
      std::vector<std::pair<const char*, TableMethod>>{{"auto", TableMethod::kAuto},
                                                       {"model", TableMethod::kModel},
                                                       {"grid", TableMethod::kGrid}},
      "how a table's cells are found: 'auto': the table model's grid unless it is unusable (no "
      "cells, truncated, below table_min_score or table_min_fit), then the grid method (ruled "
      "lines and text alignment); 'model': the model's grid whatever it is; 'grid': the grid "
      "method alone (also used when there is no table model)"));
  t.push_back(int_setting("table_side", EDGEOCR_FIELD(table_side), 32, 2048,
                          "table model input side (the crop is resized to it and padded to a "
                          "square; a model with a fixed input size sets its own)"));
  t.push_back(float_setting("table_min_score", EDGEOCR_FIELD(table_min_score), closed(0, 1),
                            "'auto': a model grid whose mean token probability is below this is "
                            "left for the grid method"));
  t.push_back(float_setting("table_min_fit", EDGEOCR_FIELD(table_min_fit), closed(0, 1),
                            "'auto': a model grid holding less than this share of the region's "
                            "text (by area) inside the cells it is assigned to is left for the "
                            "grid method"));
  return t;
}

#undef EDGEOCR_FIELD

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
  fail(StatusCode::kInvalidArgument,
       "unknown pipeline setting " + quoted(name) + "; the settings are: " + known);
}

}  // namespace edgeocr
