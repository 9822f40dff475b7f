// DocumentRules by name (document.h, document_rule_names): the one table Python's
// Predictor(document_rules=...) and the benchmarks' ablations set rules through.
#include <cmath>
#include <string>
#include <vector>

#include "edgeocr/document.h"
#include "edgeocr/status.h"

namespace edgeocr {
namespace {

struct RuleField {
  const char* name;
  float DocumentRules::* f;
  int DocumentRules::* i;
  bool DocumentRules::* b;
};

// Every field of DocumentRules (all 4-byte: the static_assert below fails when a field is added
// to the struct and not here).
const RuleField kFields[] = {
    {"deskew_degrees", &DocumentRules::deskew_degrees, nullptr, nullptr},
    {"duplicate_iou", &DocumentRules::duplicate_iou, nullptr, nullptr},
    {"inside_share", &DocumentRules::inside_share, nullptr, nullptr},
    {"line_in_region", &DocumentRules::line_in_region, nullptr, nullptr},
    {"split_share", &DocumentRules::split_share, nullptr, nullptr},
    {"figure_text_lines", nullptr, &DocumentRules::figure_text_lines, nullptr},
    {"prose_words", nullptr, &DocumentRules::prose_words, nullptr},
    {"prose_width", &DocumentRules::prose_width, nullptr, nullptr},
    {"figure_text_share", &DocumentRules::figure_text_share, nullptr, nullptr},
    {"figure_page_share", &DocumentRules::figure_page_share, nullptr, nullptr},
    {"grid_cols", nullptr, &DocumentRules::grid_cols, nullptr},
    {"grid_rows", nullptr, &DocumentRules::grid_rows, nullptr},
    {"grid_row_gap", &DocumentRules::grid_row_gap, nullptr, nullptr},
    {"grid_col_gap", &DocumentRules::grid_col_gap, nullptr, nullptr},
    {"grid_cell_width", &DocumentRules::grid_cell_width, nullptr, nullptr},
    {"grid_cell_words", &DocumentRules::grid_cell_words, nullptr, nullptr},
    {"grid_prose_share", &DocumentRules::grid_prose_share, nullptr, nullptr},
    {"stray_gap", &DocumentRules::stray_gap, nullptr, nullptr},
    {"furniture_band", &DocumentRules::furniture_band, nullptr, nullptr},
    {"furniture_lines", nullptr, &DocumentRules::furniture_lines, nullptr},
    {"furniture_gap", &DocumentRules::furniture_gap, nullptr, nullptr},
    {"furniture_height", &DocumentRules::furniture_height, nullptr, nullptr},
    {"page_number_band", &DocumentRules::page_number_band, nullptr, nullptr},
    {"caption_reach", &DocumentRules::caption_reach, nullptr, nullptr},
    {"caption_page", &DocumentRules::caption_page, nullptr, nullptr},
    {"column_overlap", &DocumentRules::column_overlap, nullptr, nullptr},
    {"max_ordered", nullptr, &DocumentRules::max_ordered, nullptr},
    {"heading_lines", nullptr, &DocumentRules::heading_lines, nullptr},
    {"heading_words", &DocumentRules::heading_words, nullptr, nullptr},
    {"heading_size", &DocumentRules::heading_size, nullptr, nullptr},
    {"heading_size_ocr", &DocumentRules::heading_size_ocr, nullptr, nullptr},
    {"title_size", &DocumentRules::title_size, nullptr, nullptr},
    {"level_size", &DocumentRules::level_size, nullptr, nullptr},
    {"bold_stroke", &DocumentRules::bold_stroke, nullptr, nullptr},
    {"repeat_pages", nullptr, &DocumentRules::repeat_pages, nullptr},
    {"repeat_distance", &DocumentRules::repeat_distance, nullptr, nullptr},
    {"repeat_band", &DocumentRules::repeat_band, nullptr, nullptr},
    {"repeat_lines", nullptr, &DocumentRules::repeat_lines, nullptr},
    {"number_pages", nullptr, &DocumentRules::number_pages, nullptr},
    {"column_distance", &DocumentRules::column_distance, nullptr, nullptr},
    {"join_full_line", &DocumentRules::join_full_line, nullptr, nullptr},
    {"join_indent", &DocumentRules::join_indent, nullptr, nullptr},
};

static_assert(sizeof(DocumentRules) == 4 * (sizeof kFields / sizeof kFields[0]),
              "a field of DocumentRules is missing from rules.cpp's table");

const RuleField& field(const std::string& name) {
  for (const RuleField& f : kFields)
    if (name == f.name) return f;
  std::string known;
  for (const RuleField& f : kFields) known += std::string(known.empty() ? "" : ", ") + f.name;
  fail(StatusCode::kInvalidArgument, "no document rule '" + name + "' (the rules: " + known + ")");
}

}  // namespace

std::vector<std::string> document_rule_names() {
  std::vector<std::string> out;
  for (const RuleField& f : kFields) out.emplace_back(f.name);
  return out;
}

double document_rule(const DocumentRules& r, const std::string& name) {
  const RuleField& f = field(name);
  if (f.f) return r.*(f.f);
  if (f.i) return r.*(f.i);
  return (r.*(f.b)) ? 1.0 : 0.0;
}

void set_document_rule(DocumentRules& r, const std::string& name, double value) {
  const RuleField& f = field(name);
  // Lengths, shares, counts and factors: none is negative, and none past these bounds is a
  // page's (max_ordered bounds an O(n^3) step).
  const double hi = name == "max_ordered" ? 1000.0 : 1e4;
  if (!std::isfinite(value) || value < 0.0 || value > hi)
    fail(StatusCode::kInvalidArgument, "document rule '" + name + "' must be in [0, " +
                                           std::to_string(static_cast<int>(hi)) + "], not " +
                                           std::to_string(value));
  if (f.f) {
    r.*(f.f) = static_cast<float>(value);
  } else if (f.i) {
    if (value != std::floor(value))
      fail(StatusCode::kInvalidArgument,
           "document rule '" + name + "' is a count: a whole number, not " + std::to_string(value));
    r.*(f.i) = static_cast<int>(value);
  } else {
    if (value != 0.0 && value != 1.0)
      fail(StatusCode::kInvalidArgument, "document rule '" + name + "' is 0 or 1");
    r.*(f.b) = value != 0.0;
  }
}

}  // namespace edgeocr
