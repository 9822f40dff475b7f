// Numbers as text for settings, in the C locale whatever the process locale is (a C app may have
// called setlocale; "0,3" must never appear or be expected). Internal to csrc/pipeline.
#pragma once

#include <string>

#include "edgeocr/settings.h"

namespace edgeocr {

// A double in the shortest form that reads back (integers without a fraction; nan, inf, -inf).
std::string number_text(double v);

// `s` without leading and trailing white space.
std::string trim_space(const std::string& s);

// `text` (white space around it ignored) as one number in JSON's grammar, the one bundle manifests
// use: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?. An integer (SettingValue::Kind::kInt) without
// fraction or exponent, else a float: "736.0" and "1e3" are floats, "0100", "+736", ".4", "0x100",
// "inf" are not numbers. ok=false when the text is not exactly one number.
SettingValue parse_number(const std::string& text, bool* ok);

}  // namespace edgeocr
