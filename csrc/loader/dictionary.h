// Dictionaries and roles of OCR models: the one implementation of these rules
// for Python, the C API and bundles.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "edgeocr/model.h"

namespace edgeocr {
namespace loader {

enum class ModelRole { kDet, kCls, kRec, kUnknown, kLayout, kTable };

// "det", "cls", "rec", "unknown", "layout", "table"
const char* role_name(ModelRole role);

// The role of a loaded model: its "edgeocr.role" metadata (det/cls/rec/layout/table) when
// present, else its outputs: 4 or more outputs of rank 3 in an even number (score maps and box
// distributions per stride): layout (PicoDet); two outputs of rank 3, one of 4 or 8 values per
// step (cell boxes) and one of more (structure tokens): table (SLANet); otherwise the rank of
// the first output (4: det N1HW map, 2: cls N x 2, 3: rec N x T x C).
ModelRole role_of(const Model& model);

// The longest layout label accepted, in bytes.
constexpr std::size_t kMaxLayoutLabelBytes = 128;

// A layout model's labels: its "character" metadata, one label per line (as PaddleDetection's
// exports and rapid_layout write them). InvalidModel naming the model when there is none, it is
// empty, holds a control character, more than 256 labels or a label longer than
// kMaxLayoutLabelBytes.
std::vector<std::string> layout_labels(const Model& layout);

// Largest keys file / keys text read, and most characters in a dictionary.
constexpr std::size_t kMaxKeysBytes = 16u << 20;
constexpr std::size_t kMaxCharacters = 1u << 20;

// A keys file's text: UTF-8, one character per line (\n, \r\n or \r),
// trailing empty lines dropped. InvalidModel when not UTF-8, too large, or a
// line holds a control character (check_characters); an empty result is
// allowed here (charset_for refuses it).
std::vector<std::string> parse_keys(const std::string& text, const std::string& source);

// Refuses (InvalidModel) a dictionary entry, chars[first..], that holds a
// control character: Unicode category Cc, U+0000-U+001F (NUL, tab, line
// breaks, escape ...) and U+007F-U+009F. A C caller reads a line's text up
// to its first NUL, and the others print nothing visible or move the cursor:
// no dictionary of a real model holds one. Space and every other printable
// character are allowed. The message names `source` and the `unit`
// ("line", "character") counted from 1. Every dictionary goes through it:
// keys files and text (parse_keys), lists and model metadata (charset_for),
// bundles (check_charset).
void check_characters(const std::vector<std::string>& chars, std::size_t first,
                      const std::string& source, const char* unit);

// Reads and parses a keys file (NotFound when missing).
std::vector<std::string> read_keys_file(const std::string& path);

// Python's str.splitlines() over UTF-8: the split used for a rec model's
// "character" metadata (PaddleOCR exporters write it that way).
std::vector<std::string> split_lines_like_python(const std::string& s);

// The rec model's classes: "" (the CTC blank), the characters, and " " when
// the model has one more class than that (or a dynamic class count).
// `chars` comes from the caller (keys; `source` says from where) or, when
// null, from the model's "character" metadata. InvalidModel when there is no
// dictionary, it is empty, or its size does not fit the model's class count.
std::vector<std::string> charset_for(const Model& rec, const std::vector<std::string>* chars,
                                     const std::string& source);

// A bundle's charset (the exact class list, blank first) against the rec
// model's class count. InvalidModel when they disagree.
void check_charset(const Model& rec, const std::vector<std::string>& charset,
                   const std::string& source);

}  // namespace loader
}  // namespace edgeocr
