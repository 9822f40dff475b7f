#include "loader/bundle.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <set>

#include "common/sha256.h"
#include "loader/settings.h"
#include "loader/zip_reader.h"

namespace edgeocr {
namespace loader {
namespace {

using json = nlohmann::json;
const char* const kManifestName = "manifest.json";
const char* const kFormatName = "edgeocr-bundle";

// ---- the manifest schema ----------------------------------------------------
// One declaration of every field a reader uses: its type, whether it is
// required, its range or allowed values, its length. Objects not described
// field by field (quantization, verification) are free-form but still bounded
// by the parse's nesting limit and the manifest's size.

enum class Type { kObject, kArray, kString, kInt, kNumber, kBool, kAny };

struct Node;
using NodeP = std::shared_ptr<const Node>;
using Check = std::function<void(const json&, const std::string& path)>;

struct Field {
  std::string key;
  bool required;
  NodeP node;
};

struct Node {
  Type type = Type::kAny;
  bool nullable = false;
  std::size_t min_len = 0, max_len = 256;  // strings (bytes), arrays (items)
  std::vector<std::string> one_of;         // strings
  BundleErrorKind one_of_kind = BundleErrorKind::kManifest;
  bool hex64 = false;
  std::int64_t lo = 0, hi = 0;  // integers
  NodeP items;                  // arrays
  std::vector<Field> fields;    // objects (unknown keys are allowed)
  Check check;                  // run after the node's own checks
};

NodeP str(std::size_t max_len = 256, bool nullable = false, std::size_t min_len = 0) {
  auto n = std::make_shared<Node>();
  n->type = Type::kString;
  n->max_len = max_len;
  n->min_len = min_len;
  n->nullable = nullable;
  return n;
}
NodeP one_of(std::vector<std::string> values, BundleErrorKind kind = BundleErrorKind::kManifest) {
  auto n = std::make_shared<Node>();
  n->type = Type::kString;
  n->one_of = std::move(values);
  n->one_of_kind = kind;
  return n;
}
NodeP hex64(bool nullable = false) {
  auto n = std::make_shared<Node>();
  n->type = Type::kString;
  n->hex64 = true;
  n->nullable = nullable;
  return n;
}
NodeP integer(std::int64_t lo, std::int64_t hi, bool nullable = false) {
  auto n = std::make_shared<Node>();
  n->type = Type::kInt;
  n->lo = lo;
  n->hi = hi;
  n->nullable = nullable;
  return n;
}
NodeP boolean() {
  auto n = std::make_shared<Node>();
  n->type = Type::kBool;
  return n;
}
NodeP array(NodeP items, std::size_t max_items, std::size_t min_items = 0) {
  auto n = std::make_shared<Node>();
  n->type = Type::kArray;
  n->items = std::move(items);
  n->max_len = max_items;
  n->min_len = min_items;
  return n;
}
NodeP object(std::vector<Field> fields, Check check = nullptr) {
  auto n = std::make_shared<Node>();
  n->type = Type::kObject;
  n->fields = std::move(fields);
  n->check = std::move(check);
  return n;
}
NodeP with_check(NodeP base, Check check) {
  auto n = std::make_shared<Node>(*base);
  n->check = std::move(check);
  return n;
}

const std::set<std::string>& known_features() {
  static const std::set<std::string> f = {"onnx",    "ort-contrib-ops", "int8-qdq", "int8-dynamic",
                                          "recheck", "layout",          "table"};
  return f;
}

struct Validator {
  const std::string& name;

  [[noreturn]] void bad(const std::string& path, const std::string& want, const json& v,
                        BundleErrorKind kind = BundleErrorKind::kManifest) const {
    std::string shown;
    if (v.is_object())
      shown = "an object";
    else if (v.is_array())
      shown = "a list of " + std::to_string(v.size());
    else
      shown = v.dump(-1, ' ', false, json::error_handler_t::replace);
    if (shown.size() > 80) shown = shown.substr(0, 77) + "...";
    bundle_fail(kind, name + ": manifest field '" + path + "' must be " + want + ", got " + shown);
  }

  void run(const Node& n, const json& v, const std::string& path) const {
    if (n.nullable && v.is_null()) return;
    switch (n.type) {
      case Type::kAny:
        break;
      case Type::kBool:
        if (!v.is_boolean()) bad(path, "true or false", v);
        break;
      case Type::kInt: {
        const std::string want =
            "an integer in [" + std::to_string(n.lo) + ", " + std::to_string(n.hi) + "]";
        if (!v.is_number_integer()) bad(path, want, v);
        // nlohmann/json keeps non-negative integers as unsigned: compare in that domain.
        const bool out =
            v.is_number_unsigned()
                ? (n.hi < 0 || v.get<std::uint64_t>() > static_cast<std::uint64_t>(n.hi) ||
                   (n.lo > 0 && v.get<std::uint64_t>() < static_cast<std::uint64_t>(n.lo)))
                : (v.get<std::int64_t>() < n.lo || v.get<std::int64_t>() > n.hi);
        if (out) bad(path, want, v);
        break;
      }
      case Type::kNumber:
        if (!v.is_number()) bad(path, "a number", v);
        break;
      case Type::kString: {
        if (!v.is_string()) bad(path, "a string", v);
        const std::string& s = v.get_ref<const std::string&>();
        if (!n.one_of.empty()) {
          if (std::find(n.one_of.begin(), n.one_of.end(), s) == n.one_of.end()) {
            std::string want = "one of";
            for (const auto& o : n.one_of) want += " \"" + o + "\"";
            if (n.one_of_kind == BundleErrorKind::kVersion)
              want += " (this edgeocr's; made by a newer one?)";
            bad(path, want, v, n.one_of_kind);
          }
        } else if (n.hex64) {
          if (s.size() != 64 || s.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
            bad(path, "64 hexadecimal digits (a sha256)", v);
        } else if (s.size() < n.min_len || s.size() > n.max_len) {
          bad(path,
              "a string of " + std::to_string(n.min_len) + " to " + std::to_string(n.max_len) +
                  " bytes",
              v);
        }
        break;
      }
      case Type::kArray: {
        const std::string want = "a list of " + std::to_string(n.min_len) + " to " +
                                 std::to_string(n.max_len) + " items";
        if (!v.is_array() || v.size() < n.min_len || v.size() > n.max_len) bad(path, want, v);
        std::size_t i = 0;
        for (const json& item : v) run(*n.items, item, path + "[" + std::to_string(i++) + "]");
        break;
      }
      case Type::kObject: {
        if (!v.is_object()) bad(path, "an object", v);
        for (const Field& f : n.fields) {
          const std::string p = path.empty() ? f.key : path + "." + f.key;
          auto it = v.find(f.key);
          if (it == v.end()) {
            if (f.required)
              bundle_fail(BundleErrorKind::kManifest,
                          name + ": manifest field '" + p + "' is missing");
            continue;
          }
          run(*f.node, *it, p);
        }
        break;
      }
    }
    if (n.check) n.check(v, path);
  }
};

NodeP manifest_schema(const std::string& name, std::uint64_t file_size) {
  auto version =
      with_check(integer(INT64_MIN, INT64_MAX), [name](const json& v, const std::string&) {
        const std::int64_t ver = v.is_number_unsigned()
                                     ? static_cast<std::int64_t>(std::min<std::uint64_t>(
                                           v.get<std::uint64_t>(), INT64_MAX))
                                     : v.get<std::int64_t>();
        if (ver != kBundleFormatVersion)
          bundle_fail(BundleErrorKind::kVersion,
                      name + ": bundle format version " + std::to_string(ver) + " (" +
                          (ver > kBundleFormatVersion ? "newer" : "older, unsupported") +
                          "); this edgeocr reads format version " +
                          std::to_string(kBundleFormatVersion) + " only");
      });
  auto requires_ = with_check(array(str(64), 32), [name](const json& v, const std::string&) {
    std::string missing;
    for (const json& f : v)
      if (!known_features().count(f.get<std::string>()))
        missing += (missing.empty() ? "'" : ", '") + f.get<std::string>() + "'";
    if (!missing.empty()) {
      std::string known;
      for (const auto& k : known_features()) known += (known.empty() ? "" : ", ") + k;
      bundle_fail(BundleErrorKind::kVersion,
                  name + ": the bundle requires features this edgeocr does not have: " + missing +
                      " (supported: " + known + "); upgrade edgeocr");
    }
  });
  auto producer = object({{"name", false, str(256, true)},
                          {"version", false, str(256, true)},
                          {"onnxruntime", false, str(256, true)},
                          {"created", false, str(256, true)}});
  auto budget = std::make_shared<Node>();
  budget->type = Type::kNumber;
  budget->nullable = true;
  budget->check = [name](const json& v, const std::string& path) {
    if (v.is_number() && !(v.get<double>() > 0 && v.get<double>() <= 1e9))
      bundle_fail(BundleErrorKind::kManifest,
                  name + ": manifest field '" + path + "' must be a positive number of MiB");
  };
  auto runtime = object(
      {{"graph_optimization", false, one_of({"none", "disabled", "basic", "extended", "all"})},
       {"max_memory_mb", false, budget}});
  auto source = object({{"file", false, str(4096, true)},
                        {"sha256", false, hex64(true)},
                        {"size", false, integer(0, INT64_MAX, true)},
                        {"format", false, str(64, true)}});
  auto model = object(
      {{"role", true,
        one_of({"det", "cls", "rec", "recheck", "layout", "table"}, BundleErrorKind::kVersion)},
       {"file", true, str(1024, false, 1)},
       {"format", true, one_of({"onnx"}, BundleErrorKind::kVersion)},
       {"size", true, integer(1, static_cast<std::int64_t>(file_size))},
       {"sha256", true, hex64()},
       {"source", false, source},
       {"graph_optimization", false, str(64, true)},
       {"kept_float", false, array(str(4096), 1u << 20)},
       {"quantized", false, boolean()}});
  auto models = with_check(array(model, 6, 1), [name](const json& v, const std::string&) {
    std::set<std::string> roles, files;
    for (const json& m : v) {
      const std::string role = m["role"].get<std::string>();
      if (!roles.insert(role).second)
        bundle_fail(BundleErrorKind::kManifest,
                    name + ": manifest lists two models with role '" + role + "'");
      if (!files.insert(m["file"].get<std::string>()).second)
        bundle_fail(BundleErrorKind::kManifest,
                    name + ": manifest lists member '" + m["file"].get<std::string>() + "' twice");
    }
    if (!roles.count("det") && !roles.count("rec"))
      bundle_fail(BundleErrorKind::kManifest,
                  name + ": the bundle has neither a det nor a rec model");
    if (roles.count("recheck") && !roles.count("rec"))
      bundle_fail(BundleErrorKind::kManifest,
                  name +
                      ": the bundle has a recheck model but no rec model whose lines it "
                      "re-reads");
    if (roles.count("table") && !roles.count("layout"))
      bundle_fail(BundleErrorKind::kManifest,
                  name + ": the bundle has a table model but no layout model to find tables with");
  });
  auto pipeline = object({}, [name](const json& v, const std::string& path) {
    PipelineConfig c;
    try {
      apply_settings(c, v, "manifest " + path, StatusCode::kInvalidModel, StatusCode::kUnsupported);
    } catch (const Error& e) {
      bundle_fail(e.code() == StatusCode::kUnsupported ? BundleErrorKind::kVersion
                                                       : BundleErrorKind::kManifest,
                  name + ": " + e.what());
    }
  });
  auto dictionary = object(
      {{"charset", true, array(str(256), (1u << 20) + 2)}, {"blank_index", false, integer(0, 0)}});
  auto free_object = object({});
  return object({{"format", true, one_of({kFormatName})},
                 {"format_version", true, version},
                 {"requires", false, requires_},
                 {"producer", false, producer},
                 {"target", false, str(64)},
                 {"runtime", false, runtime},
                 {"models", true, models},
                 {"pipeline", true, pipeline},
                 {"dictionary", true, dictionary},
                 {"recheck_dictionary", false, dictionary},
                 {"quantization", false, free_object},
                 {"verification", false, free_object}});
}

}  // namespace

json parse_manifest(const char* text, std::size_t size, std::uint64_t file_size,
                    const std::string& name) {
  if (size > kMaxManifestBytes)
    bundle_fail(BundleErrorKind::kFormat, name + ": manifest.json is " + std::to_string(size) +
                                              " bytes; at most " +
                                              std::to_string(kMaxManifestBytes) + " are read");
  json m;
  try {
    // The parse itself is iterative; the depth limit bounds what a deeply nested document costs
    // the code that walks it (validation, dumps).
    m = json::parse(text, text + size, [&](int depth, json::parse_event_t, json&) {
      if (depth > kMaxManifestDepth)
        bundle_fail(BundleErrorKind::kManifest, name + ": manifest.json nests deeper than " +
                                                    std::to_string(kMaxManifestDepth) + " levels");
      return true;
    });
  } catch (const json::exception& e) {
    bundle_fail(BundleErrorKind::kManifest,
                name + ": manifest.json is not valid UTF-8 JSON: " + e.what());
  }
  if (!m.is_object())
    bundle_fail(BundleErrorKind::kManifest, name + ": manifest.json must hold a JSON object");
  auto it = m.find("format");
  if (it == m.end() || !it->is_string() || it->get<std::string>() != kFormatName)
    bundle_fail(BundleErrorKind::kManifest,
                name + ": manifest 'format' is not \"" + kFormatName + "\"; not an edgeocr bundle");
  Validator v{name};
  v.run(*manifest_schema(name, file_size), m, "");
  return m;
}

std::shared_ptr<const Bundle> Bundle::open(const std::string& path, bool verify_checksums) {
  std::shared_ptr<Bundle> b(new Bundle());
  b->name_ = path;
  try {
    b->map_ = std::make_unique<MappedFile>(path);
  } catch (const Error& e) {
    if (e.code() == StatusCode::kNotFound)
      fail(StatusCode::kNotFound, std::string("bundle not found: ") + e.what());
    bundle_fail(BundleErrorKind::kFormat, e.what());
  }
  b->data_ = b->map_->data();
  b->size_ = b->map_->size();
  b->init(verify_checksums);
  return b;
}

std::shared_ptr<const Bundle> Bundle::view(const void* data, std::size_t size,
                                           const std::string& name, bool verify_checksums) {
  if (!data || size == 0)
    bundle_fail(BundleErrorKind::kFormat, name + ": empty (expected a .eocr zip archive)");
  std::shared_ptr<Bundle> b(new Bundle());
  b->name_ = name;
  b->data_ = static_cast<const std::uint8_t*>(data);
  b->size_ = size;
  b->init(verify_checksums);
  return b;
}

const BundleModel* Bundle::model(const std::string& role) const {
  for (const auto& m : models_)
    if (m.role == role) return &m;
  return nullptr;
}

void Bundle::init(bool verify_checksums) {
  const std::vector<ZipMember> members = read_zip_directory(data_, size_, name_);
  auto find = [&](const std::string& file) -> const ZipMember* {
    for (const auto& m : members)
      if (m.name == file) return &m;
    return nullptr;
  };
  auto stored = [&](const ZipMember& m) {
    if (m.method != 0)
      bundle_fail(BundleErrorKind::kFormat,
                  name_ + ": member '" + m.name + "' is compressed (method " +
                      std::to_string(m.method) + "); bundle members must be stored uncompressed");
  };
  const ZipMember* mf = find(kManifestName);
  if (!mf)
    bundle_fail(BundleErrorKind::kFormat,
                name_ + ": the manifest (manifest.json) is missing from the archive");
  stored(*mf);
  manifest_ = parse_manifest(reinterpret_cast<const char*>(data_ + mf->data_offset),
                             static_cast<std::size_t>(mf->size), size_, name_);

  for (const json& e : manifest_["models"]) {
    BundleModel m;
    m.role = e["role"].get<std::string>();
    m.file = e["file"].get<std::string>();
    m.format = e["format"].get<std::string>();
    m.sha256 = e["sha256"].get<std::string>();
    std::transform(m.sha256.begin(), m.sha256.end(), m.sha256.begin(), [](char c) {
      return static_cast<char>(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c);
    });
    auto src = e.find("source");
    if (src != e.end() && src->is_object()) {
      auto s = src->find("sha256");
      if (s != src->end() && s->is_string()) m.source_sha256 = s->get<std::string>();
    }
    const ZipMember* z = find(m.file);
    if (!z)
      bundle_fail(
          BundleErrorKind::kFormat,
          name_ + ": member '" + m.file + "' (listed in the manifest) is missing from the archive");
    stored(*z);
    const auto want = e["size"].get<std::uint64_t>();
    if (z->size != want)
      bundle_fail(BundleErrorKind::kChecksum,
                  name_ + ": member '" + m.file + "' is " + std::to_string(z->size) +
                      " bytes, the manifest says " + std::to_string(want));
    m.data = data_ + z->data_offset;
    m.size = static_cast<std::size_t>(z->size);
    if (verify_checksums) {
      const std::string digest = sha256_hex(m.data, m.size);
      if (digest != m.sha256)
        bundle_fail(BundleErrorKind::kChecksum, name_ + ": member '" + m.file + "' (" + m.role +
                                                    " model) fails its checksum: sha256 " + digest +
                                                    ", the manifest says " + m.sha256 +
                                                    "; the file is corrupt or was modified");
    }
    models_.push_back(std::move(m));
  }
  // A dictionary's class list: at least the blank and one character, the blank ("") first.
  auto read_charset = [&](const char* field, const char* model_name) {
    const json& cs = manifest_[field]["charset"];
    if (cs.size() < 2)
      bundle_fail(BundleErrorKind::kManifest, name_ + ": the bundle has a " + model_name +
                                                  " model but its dictionary is empty");
    std::vector<std::string> out;
    out.reserve(cs.size());
    for (const json& c : cs) out.push_back(c.get<std::string>());
    if (!out[0].empty())
      bundle_fail(BundleErrorKind::kManifest, name_ + ": manifest field '" + field +
                                                  ".charset[0]' must be \"\" (the CTC blank)");
    return out;
  };
  if (model("rec")) charset_ = read_charset("dictionary", "rec");
  if (model("recheck")) {
    // A reader that knows no recheck model refuses the bundle by its `requires` (or the role).
    const auto req = manifest_.find("requires");
    bool declared = false;
    if (req != manifest_.end())
      for (const json& f : *req) declared |= f.get<std::string>() == "recheck";
    if (!declared)
      bundle_fail(BundleErrorKind::kManifest,
                  name_ +
                      ": the bundle has a recheck model but its manifest field 'requires' "
                      "does not list \"recheck\"");
    if (manifest_.find("recheck_dictionary") == manifest_.end())
      bundle_fail(BundleErrorKind::kManifest,
                  name_ +
                      ": the bundle has a recheck model but no manifest field "
                      "'recheck_dictionary'");
    recheck_charset_ = read_charset("recheck_dictionary", "recheck");
  }
  // A reader that knows no layout (table) model refuses the bundle by its `requires`.
  for (const char* role : {"layout", "table"}) {
    if (!model(role)) continue;
    const auto req = manifest_.find("requires");
    bool declared = false;
    if (req != manifest_.end())
      for (const json& f : *req) declared |= f.get<std::string>() == role;
    if (!declared)
      bundle_fail(BundleErrorKind::kManifest, name_ + ": the bundle has a " + role +
                                                  " model but its manifest field 'requires' "
                                                  "does not list \"" +
                                                  role + "\"");
  }
  apply_settings(config_, manifest_["pipeline"], name_ + ": manifest pipeline",
                 StatusCode::kInvalidModel, StatusCode::kUnsupported);
  auto rt = manifest_.find("runtime");
  if (rt != manifest_.end()) {
    auto g = rt->find("graph_optimization");
    if (g != rt->end()) {
      const std::string s = g->get<std::string>();
      graph_optimization_ = s == "all" ? 99 : s == "extended" ? 2 : s == "basic" ? 1 : 0;
    }
  }
}

}  // namespace loader
}  // namespace edgeocr
