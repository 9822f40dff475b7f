#include "loader/dictionary.h"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "common/text.h"
#include "edgeocr/status.h"

namespace edgeocr {
namespace loader {
namespace {

// The first control character (Unicode category Cc: U+0000-U+001F, U+007F-U+009F) in valid UTF-8
// `s`, as its code point, or -1.
long control_character(const std::string& s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (p[i] < 0x20 || p[i] == 0x7f) return p[i];
    if (p[i] == 0xC2 && i + 1 < s.size() && p[i + 1] <= 0x9F) return p[i + 1];
  }
  return -1;
}

std::int64_t class_count(const Model& rec) {
  if (rec.outputs().empty() || rec.outputs()[0].shape.size() != 3)
    fail(StatusCode::kInvalidModel,
         rec.name() + ": a rec model's first output must be N x T x classes");
  return rec.outputs()[0].shape[2];
}

}  // namespace

void check_characters(const std::vector<std::string>& chars, std::size_t first,
                      const std::string& source, const char* unit) {
  for (std::size_t i = first; i < chars.size(); ++i) {
    const long c = control_character(chars[i]);
    if (c < 0) continue;
    char code[16];
    std::snprintf(code, sizeof code, "U+%04lX", c);
    fail(StatusCode::kInvalidModel,
         source + ": " + unit + " " + std::to_string(i - first + 1) +
             " holds the control character " + code +
             "; a dictionary holds printable characters, one per line (a C string would end "
             "at U+0000, and the other control characters print nothing or move the cursor)");
  }
}

const char* role_name(ModelRole role) {
  switch (role) {
    case ModelRole::kDet:
      return "det";
    case ModelRole::kCls:
      return "cls";
    case ModelRole::kRec:
      return "rec";
    case ModelRole::kLayout:
      return "layout";
    case ModelRole::kTable:
      return "table";
    default:
      return "unknown";
  }
}

ModelRole role_of(const Model& model) {
  auto it = model.metadata().find("edgeocr.role");
  if (it != model.metadata().end()) {
    if (it->second == "det") return ModelRole::kDet;
    if (it->second == "cls") return ModelRole::kCls;
    if (it->second == "rec") return ModelRole::kRec;
    if (it->second == "layout") return ModelRole::kLayout;
    if (it->second == "table") return ModelRole::kTable;
  }
  const auto& outs = model.outputs();
  bool all_rank3 = !outs.empty();
  for (const auto& o : outs) all_rank3 = all_rank3 && o.shape.size() == 3;
  if (all_rank3 && outs.size() >= 4 && outs.size() % 2 == 0) return ModelRole::kLayout;
  if (all_rank3 && outs.size() == 2) {
    const std::int64_t a = outs[0].shape[2], b = outs[1].shape[2];
    const bool a_box = a == 4 || a == 8, b_box = b == 4 || b == 8;
    if ((a_box && b > 8) || (b_box && a > 8)) return ModelRole::kTable;
  }
  const std::size_t rank = model.outputs().empty() ? 0 : model.outputs()[0].shape.size();
  return rank == 4   ? ModelRole::kDet
         : rank == 2 ? ModelRole::kCls
         : rank == 3 ? ModelRole::kRec
                     : ModelRole::kUnknown;
}

std::vector<std::string> layout_labels(const Model& layout) {
  auto it = layout.metadata().find("character");
  if (it == layout.metadata().end() || it->second.empty())
    fail(StatusCode::kInvalidModel,
         layout.name() +
             ": a layout model needs its labels in its metadata ('character', one per line)");
  const std::size_t bad = utf8_error(it->second);
  if (bad != std::string::npos)
    fail(StatusCode::kInvalidModel, layout.name() +
                                        ": its labels (metadata 'character') are not UTF-8 text "
                                        "(invalid byte at offset " +
                                        std::to_string(bad) + ")");
  std::vector<std::string> labels = split_lines_like_python(it->second);
  if (labels.empty() || labels.size() > 256)
    fail(StatusCode::kInvalidModel, layout.name() + ": its labels (metadata 'character') give " +
                                        std::to_string(labels.size()) + " classes, not 1..256");
  check_characters(labels, 0, layout.name() + ": its labels (metadata 'character')", "line");
  // Every region carries its label: a label of megabytes, copied into hundreds of regions (and
  // every output), would be memory no page asks for. Layout labels are words.
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (labels[i].size() > kMaxLayoutLabelBytes)
      fail(StatusCode::kInvalidModel,
           layout.name() + ": label " + std::to_string(i + 1) + " (metadata 'character') is " +
               std::to_string(labels[i].size()) + " bytes long; a layout label is at most " +
               std::to_string(kMaxLayoutLabelBytes) + " bytes");
  return labels;
}

std::vector<std::string> parse_keys(const std::string& text, const std::string& source) {
  if (text.size() > kMaxKeysBytes)
    fail(StatusCode::kInvalidModel, source + ": " + std::to_string(text.size()) +
                                        " bytes is too large for a dictionary (at most " +
                                        std::to_string(kMaxKeysBytes) + ")");
  const std::size_t bad = utf8_error(text);
  if (bad != std::string::npos)
    fail(StatusCode::kInvalidModel,
         source + ": not UTF-8 text (invalid byte at offset " + std::to_string(bad) + ")");
  std::vector<std::string> out;
  std::string cur;
  bool pending = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (out.size() >= kMaxCharacters)
        fail(StatusCode::kInvalidModel,
             source + ": more than " + std::to_string(kMaxCharacters) + " characters");
      out.push_back(cur);
      cur.clear();
      pending = false;
    } else {
      cur.push_back(c);
      pending = true;
    }
  }
  if (pending) out.push_back(cur);
  while (!out.empty() && out.back().empty()) out.pop_back();
  check_characters(out, 0, source, "line");
  return out;
}

std::vector<std::string> read_keys_file(const std::string& path) {
  // Only files: opening a pipe waits for a writer, a device may never end.
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    fail(StatusCode::kInvalidModel, path + ": the dictionary (keys) is not a regular file");
  std::ifstream f(path, std::ios::binary);
  if (!f) fail(StatusCode::kNotFound, "dictionary (keys) file not found or unreadable: " + path);
  f.seekg(0, std::ios::end);
  const std::streamoff size = f.tellg();
  if (size < 0) fail(StatusCode::kInvalidModel, path + ": cannot read the dictionary (keys) file");
  if (static_cast<std::uint64_t>(size) > kMaxKeysBytes)
    fail(StatusCode::kInvalidModel, path + ": " + std::to_string(size) +
                                        " bytes is too large for a dictionary (at most " +
                                        std::to_string(kMaxKeysBytes) + ")");
  f.seekg(0);
  std::string text(static_cast<std::size_t>(size), '\0');
  if (size > 0 && !f.read(&text[0], size))
    fail(StatusCode::kInvalidModel, path + ": cannot read the dictionary (keys) file");
  return parse_keys(text, path);
}

std::vector<std::string> split_lines_like_python(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  std::size_t i = 0;
  bool pending = false;  // a line was started (splitlines drops only a final empty remainder)
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t sep = 0;
    if (c == '\r')
      sep = (i + 1 < s.size() && s[i + 1] == '\n') ? 2 : 1;
    else if (c == '\n' || c == 0x0b || c == 0x0c || c == 0x1c || c == 0x1d || c == 0x1e)
      sep = 1;
    else if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x85)
      sep = 2;
    else if (c == 0xe2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
             (static_cast<unsigned char>(s[i + 2]) == 0xa8 ||
              static_cast<unsigned char>(s[i + 2]) == 0xa9))
      sep = 3;
    if (sep) {
      out.push_back(cur);
      cur.clear();
      pending = false;
      i += sep;
    } else {
      cur.push_back(s[i]);
      pending = true;
      ++i;
    }
  }
  if (pending) out.push_back(cur);
  return out;
}

std::vector<std::string> charset_for(const Model& rec, const std::vector<std::string>* given,
                                     const std::string& source_in) {
  std::vector<std::string> chars;
  std::string source = source_in;
  if (given) {
    chars = *given;
  } else {
    auto it = rec.metadata().find("character");
    if (it == rec.metadata().end() || it->second.empty())
      fail(StatusCode::kInvalidModel,
           rec.name() +
               ": this rec model carries no dictionary in its metadata; pass keys= (Python) or "
               "keys_path / keys_data (C): "
               "a keys file such as ppocr_keys_v1.txt (one character per line) or a list "
               "of characters");
    if (it->second.size() > kMaxKeysBytes)
      fail(StatusCode::kInvalidModel, rec.name() + ": the dictionary in its metadata is too large");
    if (utf8_error(it->second) != std::string::npos)
      fail(StatusCode::kInvalidModel, rec.name() + ": the dictionary in its metadata is not UTF-8");
    chars = split_lines_like_python(it->second);
    source = "its metadata";
  }
  if (chars.empty())
    fail(StatusCode::kInvalidModel, "the dictionary (keys) from " + source + " is empty");
  check_characters(chars, 0, given ? source : rec.name() + ": the dictionary in its metadata",
                   given ? "character" : "line");
  if (chars.size() > kMaxCharacters)
    fail(StatusCode::kInvalidModel, "the dictionary (keys) from " + source + " has more than " +
                                        std::to_string(kMaxCharacters) + " characters");
  const std::int64_t n_classes = class_count(rec);
  const auto n = static_cast<std::int64_t>(chars.size());
  std::vector<std::string> charset;
  charset.reserve(chars.size() + 2);
  charset.emplace_back();
  for (auto& c : chars) charset.push_back(std::move(c));
  if (n_classes == -1 || n_classes == n + 2) {
    charset.emplace_back(" ");
  } else if (n_classes != n + 1) {
    fail(StatusCode::kInvalidModel,
         rec.name() + ": the model has " + std::to_string(n_classes) + " classes but " + source +
             " has " + std::to_string(n) +
             " characters (expected classes = characters + 1 blank [+ 1 space]); wrong "
             "dictionary for this model?");
  }
  return charset;
}

void check_charset(const Model& rec, const std::vector<std::string>& charset,
                   const std::string& source) {
  check_characters(charset, 1, source, "character");  // charset[0] is the CTC blank
  const std::int64_t n_classes = class_count(rec);
  if (charset.size() < 2)
    fail(StatusCode::kInvalidModel, source +
                                        ": the rec model needs a dictionary, the charset has " +
                                        std::to_string(charset.size()) + " classes");
  if (n_classes != -1 && n_classes != static_cast<std::int64_t>(charset.size()))
    fail(StatusCode::kInvalidModel, source + ": the rec model has " + std::to_string(n_classes) +
                                        " classes but the dictionary has " +
                                        std::to_string(charset.size()) + " (blank included)");
}

}  // namespace loader
}  // namespace edgeocr
