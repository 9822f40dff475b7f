// load_pipeline: every source a predictor is made from, in one place.
#include "edgeocr/loader.h"

#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <future>
#include <map>
#include <mutex>
#include <tuple>

#include "common/disk_cache.h"
#include "common/sha256.h"
#include "edgeocr/status.h"
#include "loader/bundle.h"
#include "loader/dictionary.h"
#include "loader/graph_cache.h"
#include "loader/mapped_file.h"
#include "loader/model_sets.h"
#include "loader/nb/nb.h"
#include "loader/settings.h"
#include "runtime/malloc_tuning.h"

namespace edgeocr {
namespace {

using loader::ModelRole;
using nlohmann::json;

bool ends_with(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

bool is_zip(const void* data, std::size_t size) {
  return size >= 4 && std::memcmp(data, "PK\x03\x04", 4) == 0;
}

[[noreturn]] void invalid(const std::string& message) {
  fail(StatusCode::kInvalidArgument, message);
}

void check_source(const ModelSource& s, const char* what) {
  if (!s.path.empty() && s.data) invalid(std::string(what) + ": give a path or bytes, not both");
  if (s.data && s.size == 0) invalid(std::string(what) + ": the bytes are empty");
}

std::string source_name(const ModelSource& s, const char* role) {
  if (!s.path.empty()) return s.path;
  return s.name.empty() ? std::string("<") + role + " model bytes>" : s.name;
}

void check_role(const Model& m, ModelRole want) {
  const ModelRole actual = loader::role_of(m);
  if (actual != want) {
    const std::size_t rank = m.outputs().empty() ? 0 : m.outputs()[0].shape.size();
    fail(StatusCode::kInvalidModel,
         m.name() + ": given as the " + loader::role_name(want) + " model, but " +
             (actual == ModelRole::kUnknown
                  ? std::string("its outputs look like no OCR model (first output rank ") +
                        std::to_string(rank) + ")"
                  : std::string("it looks like a ") + loader::role_name(actual) + " model"));
  }
}

// A file's version, as the digest cache knows it: device, inode, size, mtime and ctime (ns). A
// tool that resets mtime (cp -p, rsync -t, touch -d) still changes ctime, which no one can set.
using FileVersion = std::array<std::int64_t, 5>;

FileVersion version_of(const struct stat& st) {
  return {static_cast<std::int64_t>(st.st_dev), static_cast<std::int64_t>(st.st_ino),
          static_cast<std::int64_t>(st.st_size),
          static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
          static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec};
}

std::int64_t now_ns() {
  struct timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The racy-entry rule (git's index has it too): a digest taken less than this after the file's
// last change is not trusted, as a change within the same timestamp tick (same size, mtime and
// ctime) would not show. Coarser than any local file system's timestamps.
constexpr std::int64_t kRacyNs = std::int64_t(2) * 1000000000;

bool trusted(const FileVersion& v, std::int64_t taken_ns) {
  return std::max(v[3], v[4]) <= taken_ns - kRacyNs;
}

// The digest cache on disk ("sha256" under common/disk_cache.h's root): one small entry per file
// version.
constexpr std::size_t kDigestEntries = 1024;
constexpr std::uint64_t kDigestFolderBytes = std::uint64_t(1) << 20;

// The sha256 of the file at `path`, whose version is `v`: kept for the process in memory and
// across processes on disk (unless !use_disk_cache), and taken from either only for exactly this
// version and when trusted() (else hashed again). A digest is stored only when the file is still
// that version once hashed. An entry names only which known set a file is (its settings are
// checked values); bundles verify their members themselves.
std::string file_digest(const std::string& path, const FileVersion& v, bool use_disk_cache) {
  std::string id = "edgeocr-digest-v2";
  for (std::int64_t x : v) id += " " + std::to_string(x);
  static std::mutex mu;
  static std::map<std::string, std::pair<std::string, std::int64_t>> memo;  // id: digest, taken
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = memo.find(id);
    if (it != memo.end() && trusted(v, it->second.second)) return it->second.first;
  }
  const std::string dir = use_disk_cache ? disk_cache::folder("sha256") : std::string();
  const std::string entry = dir.empty() ? dir
                                        : dir + "/" + edgeocr::sha256_hex(id.data(), id.size()) +
                                              disk_cache::kEntrySuffix;
  std::string stored;
  if (!entry.empty() &&
      disk_cache::read_entry(entry, id, 128, &stored) == disk_cache::Lookup::kHit) {
    // "<64 hex digits> <ns when taken>"
    const std::size_t sp = stored.find(' ');
    if (sp == 64 && stored.find_first_not_of("0123456789abcdef") == 64 && stored.size() > 65 &&
        stored.size() < 90 && stored.find_first_not_of("0123456789", 65) == std::string::npos) {
      const std::int64_t taken = std::stoll(stored.substr(65));
      if (trusted(v, taken)) {
        std::lock_guard<std::mutex> lock(mu);
        if (memo.size() < 64) memo.emplace(id, std::make_pair(stored.substr(0, 64), taken));
        return stored.substr(0, 64);
      }
    }
  }
  const std::int64_t taken = now_ns();  // before reading: a later change is later than this
  std::string digest;
  {
    loader::MappedFile f(path);
    digest = edgeocr::sha256_hex(f.data(), f.size());
  }
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0 || version_of(st) != v) return digest;  // changed meanwhile
  if (!entry.empty()) {
    const std::string text = digest + " " + std::to_string(taken);
    if (disk_cache::write_entry(dir, entry, id, text.data(), text.size()))
      disk_cache::prune(dir, kDigestEntries, kDigestFolderBytes);
  }
  std::lock_guard<std::mutex> lock(mu);
  if (memo.size() < 64) memo[id] = std::make_pair(digest, taken);
  return digest;
}

// sha256 of a source when its size is that of a known model set's `member` (else "").
std::string digest_if_known(const ModelSource& s, loader::ModelFile loader::ModelSetInfo::* member,
                            bool use_disk_cache = true) {
  if (!s.given()) return "";
  std::uint64_t size = s.size;
  struct stat st{};
  if (!s.path.empty()) {
    if (::stat(s.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
    size = static_cast<std::uint64_t>(st.st_size);
  }
  bool known = false;
  for (const loader::ModelSetInfo* m = loader::model_sets(); m->name; ++m)
    known |= (m->*member).size == size;
  if (!known) return "";
  if (s.path.empty()) return edgeocr::sha256_hex(s.data, s.size);
  // Predictors made again from the same files, and each `edgeocr predict`, do not hash them
  // again (~27 MB for the default set).
  return file_digest(s.path, version_of(st), use_disk_cache);
}

// A model from a loose source. `sha256` (of the source's bytes; "" = unknown) lets the session
// come through the optimised-graph cache (loader/graph_cache.h).
std::shared_ptr<Model> load_model(const ModelSource& s, const char* role, const SessionOptions& so,
                                  const std::shared_ptr<MemoryPool>& pool, bool use_disk_cache,
                                  const std::string& sha256 = std::string()) {
  if (!s.path.empty()) {
    if (ends_with(s.path, ".eocr"))
      invalid(s.path +
              ": a .eocr bundle holds the whole pipeline; give it as the model, not as the " +
              role + " model");
    if (ends_with(s.path, ".nb")) {
      // Paddle Lite: translated to ONNX in C++ (csrc/loader/nb), cached by content hash; the
      // mapped file is read in place and released once the runtime holds the graph.
      std::string onnx;
      {
        loader::MappedFile f(s.path);
        onnx = nb::cached_translate_to_onnx(f.data(), f.size(), s.path, "", use_disk_cache);
      }
      return Model::from_bytes(onnx.data(), onnx.size(), so, pool, s.path);
    }
    return loader::load_through_graph_cache(s.path, nullptr, 0, sha256, so, pool, s.path,
                                            use_disk_cache);
  }
  const std::string name = source_name(s, role);
  if (nb::looks_like_nb(s.data, s.size)) {
    const std::string onnx = nb::cached_translate_to_onnx(s.data, s.size, name, "", use_disk_cache);
    return Model::from_bytes(onnx.data(), onnx.size(), so, pool, name);
  }
  return loader::load_through_graph_cache("", s.data, s.size, sha256, so, pool, name,
                                          use_disk_cache);
}

// A recheck model the pipeline may load when a call first needs it: a known set's recheck file
// (by sha256, so its checks pass) given as a path, outside a memory budget (whose plans count
// every session from the start). Returns its classes (0: load it with the others) and its digest.
std::int64_t deferrable_recheck(const LoadOptions& o, std::string& digest) {
  if (!o.recheck.given() || o.recheck.path.empty() || ends_with(o.recheck.path, ".nb") ||
      o.max_memory_bytes > 0 || !o.defer_recheck)
    return 0;
  digest = digest_if_known(o.recheck, &loader::ModelSetInfo::recheck, o.disk_cache);
  if (digest.empty()) return 0;
  // Deferred only with the dictionary the count is for (its metadata), as the known sets load it.
  if (!o.recheck_keys_path.empty() || o.has_recheck_keys_list) return 0;
  return loader::known_recheck_classes(digest);
}

// The models of a pipeline by index (det, cls, rec, recheck, then the document parser's layout
// and table): their names and roles.
constexpr const char* kRoleNames[6] = {"det", "cls", "rec", "recheck", "layout", "table"};
constexpr ModelRole kRoles[6] = {ModelRole::kDet, ModelRole::kCls,    ModelRole::kRec,
                                 ModelRole::kRec, ModelRole::kLayout, ModelRole::kTable};

// The sessions of a pipeline's models, made at once, one thread each: a session's creation runs
// on one core, and the four models of a recheck set then load in about the time of the largest.
// make(i) loads model i (null: none); errors are reported in model order.
template <std::size_t N, typename Make>
std::array<std::shared_ptr<Model>, N> load_at_once(const bool (&wanted)[N], Make make) {
  limit_malloc_arenas();  // first: the loading threads would otherwise each get an arena
  std::future<std::shared_ptr<Model>> loading[N];
  for (int i = 0; i < static_cast<int>(N); ++i)
    if (wanted[i]) loading[i] = std::async(std::launch::async, [&make, i] { return make(i); });
  std::array<std::shared_ptr<Model>, N> loaded;
  std::exception_ptr first_error;
  for (int i = 0; i < static_cast<int>(N); ++i) {
    if (!loading[i].valid()) continue;
    try {
      loaded[i] = loading[i].get();
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
  }
  if (first_error) std::rethrow_exception(first_error);
  return loaded;
}

PipelineConfig apply_json(PipelineConfig c, const std::string& text, const std::string& where,
                          StatusCode code) {
  if (text.empty()) return c;
  json j;
  try {
    j = json::parse(text, [](int depth, json::parse_event_t, json&) {
      if (depth > 4) fail(StatusCode::kInvalidArgument, "settings nest too deeply");
      return true;
    });
  } catch (const json::exception& e) {
    fail(code, where + " are not a JSON object: " + e.what());
  }
  loader::apply_settings(c, j, where, code, code);
  return c;
}

// The known set whose det and rec (and cls, when there is one: has_cls) have these sha256, and
// whose recheck model is `recheck` ("": the set has none).
const loader::ModelSetInfo* model_set_of(const std::string& det, bool has_cls,
                                         const std::string& cls, const std::string& rec,
                                         const std::string& recheck = "") {
  if (det.empty() || rec.empty()) return nullptr;
  for (const loader::ModelSetInfo* s = loader::model_sets(); s->name; ++s) {
    if (det != s->det.sha256 || rec != s->rec.sha256) continue;
    if (has_cls && cls != s->cls.sha256) continue;
    if (recheck != (s->recheck.sha256 ? s->recheck.sha256 : "")) continue;
    return s;
  }
  return nullptr;
}

const loader::ModelSetInfo* model_set_of(const ModelSource& det, const ModelSource& cls,
                                         const ModelSource& rec, const ModelSource& recheck,
                                         bool disk) {
  if (!det.given() || !rec.given()) return nullptr;
  const std::string d = digest_if_known(det, &loader::ModelSetInfo::det, disk);
  if (d.empty()) return nullptr;
  const std::string r = digest_if_known(rec, &loader::ModelSetInfo::rec, disk);
  if (r.empty()) return nullptr;
  std::string rc;
  if (recheck.given()) {
    rc = digest_if_known(recheck, &loader::ModelSetInfo::recheck, disk);
    if (rc.empty()) return nullptr;
  }
  return model_set_of(d, cls.given(), digest_if_known(cls, &loader::ModelSetInfo::cls, disk), r,
                      rc);
}

// A table model's structure tokens: its "character" metadata, one per line ({} without).
std::vector<std::string> table_tokens(const Model& table) {
  auto it = table.metadata().find("character");
  if (it == table.metadata().end()) return {};
  return loader::split_lines_like_python(it->second);
}

DocumentModels document_models(std::shared_ptr<Model> layout, std::shared_ptr<Model> table) {
  DocumentModels m;
  m.layout_labels = loader::layout_labels(*layout);
  m.layout = std::move(layout);
  if (table) {
    m.table_tokens = table_tokens(*table);
    m.table = std::move(table);
  }
  return m;
}

// The layout (and table) model from loose sources, loaded at once.
DocumentModels load_document_models(const ModelSource& layout, const ModelSource& table,
                                    const SessionOptions& so,
                                    const std::shared_ptr<MemoryPool>& pool, bool disk_cache) {
  const ModelSource src[2] = {layout, table};
  const bool wanted[2] = {layout.given(), table.given()};
  const auto loaded = load_at_once(wanted, [&](int i) {
    std::shared_ptr<Model> m = load_model(src[i], kRoleNames[4 + i], so, pool, disk_cache);
    check_role(*m, kRoles[4 + i]);
    return m;
  });
  return document_models(loaded[0], loaded[1]);
}

MemoryProfile memory_profile_of(const loader::ModelSetInfo* s) {
  MemoryProfile p;  // the core's defaults for models of no known set
  if (s) {
    p.det_bytes_per_pixel = s->memory.det_bytes_per_pixel;
    p.cls_bytes_per_pixel = s->memory.cls_bytes_per_pixel;
    p.rec_bytes_per_pixel = s->memory.rec_bytes_per_pixel;
  }
  return p;
}

}  // namespace

std::string model_set_settings(const ModelSource& det, const ModelSource& cls,
                               const ModelSource& rec, std::string* set_name,
                               const ModelSource& recheck) {
  if (set_name) set_name->clear();
  const loader::ModelSetInfo* s = model_set_of(det, cls, rec, recheck, true);
  if (!s) return "{}";
  if (set_name) *set_name = s->name;
  return s->settings_json;
}

LoadedPipeline load_pipeline(const LoadOptions& o) {
  check_source(o.bundle, "bundle");
  check_source(o.model, "model");
  check_source(o.det, "det");
  check_source(o.cls, "cls");
  check_source(o.rec, "rec");
  check_source(o.recheck, "recheck");
  check_source(o.layout, "layout");
  check_source(o.table, "table");
  if (o.table.given() && !o.layout.given())
    invalid("a table model reads the tables the layout model finds; give a layout model with it");
  if (o.recheck.given() && !o.rec.given())
    invalid("a recheck model re-reads the rec model's lines; give a rec model with it");
  if ((!o.recheck_keys_path.empty() || o.has_recheck_keys_list) && !o.recheck.given())
    invalid("recheck keys given but there is no recheck model");
  if (!o.recheck_keys_path.empty() && o.has_recheck_keys_list)
    invalid("give the recheck model's dictionary once: a keys file or a list of characters");
  const int n_keys = int(!o.keys_path.empty()) + int(o.has_keys_text) + int(o.has_keys_list);
  if (n_keys > 1)
    invalid("give the dictionary once: a keys file, keys text or a list of characters");
  const bool loose = o.det.given() || o.cls.given() || o.rec.given();
  if (o.bundle.given() && (o.model.given() || loose))
    invalid("a .eocr bundle holds its models and dictionary; give it alone");
  if (o.model.given() && loose) invalid("give either one model or det/cls/rec models, not both");

  // One model of any kind: a bundle by its name or its zip signature.
  ModelSource bundle_src = o.bundle;
  ModelSource single = o.model;
  if (single.given() &&
      (ends_with(single.path, ".eocr") || (single.data && is_zip(single.data, single.size)))) {
    bundle_src = single;
    single = ModelSource{};
  }
  if (!bundle_src.given() && !single.given() && !o.det.given() && !o.rec.given())
    invalid(o.cls.given() ? "a cls model alone cannot read text; give det and/or rec models too"
                          : "no model given: give a bundle, a model, or det and/or rec models");

  LoadedPipeline out;
  out.budget_bytes = o.max_memory_bytes;
  SessionOptions so = o.session;
  PipelineConfig config;
  std::shared_ptr<Model> models[3], recheck;
  std::vector<std::string> charset, recheck_charset;
  std::int64_t deferred_classes = 0;  // > 0: the recheck model is deferred (its classes)
  std::string deferred_digest;
  DocumentModels bundle_document;  // a bundle's layout and table models

  if (bundle_src.given()) {
    if (n_keys) invalid("a .eocr bundle holds its dictionary; do not give keys with it");
    std::shared_ptr<const loader::Bundle> b =
        !bundle_src.path.empty()
            ? loader::Bundle::open(bundle_src.path, o.verify_checksums)
            : loader::Bundle::view(bundle_src.data, bundle_src.size,
                                   bundle_src.name.empty() ? "<bundle bytes>" : bundle_src.name,
                                   o.verify_checksums);
    out.manifest_json = b->manifest().dump();
    const auto rt = b->manifest().find("runtime");
    if (o.bundle_budget && !o.pool && o.max_memory_bytes == 0 && rt != b->manifest().end() &&
        rt->is_object()) {
      const auto mb = rt->find("max_memory_mb");  // checked by the manifest's schema: (0, 1e9]
      if (mb != rt->end() && mb->is_number()) {
        out.budget_bytes = static_cast<std::size_t>(mb->get<double>() * 1048576.0);
        so.shared_arena = true;
        so.memory_pattern = false;
        so.shrink_arena = true;
      }
    }
    out.pool = o.pool ? o.pool : MemoryPool::create(out.budget_bytes);
    if (b->graph_optimization() >= 0 && !o.keep_optimization)
      so.optimization = static_cast<GraphOptimization>(b->graph_optimization());
    const std::string base = !bundle_src.path.empty() ? bundle_src.path : b->name();
    const std::string file =
        base.substr(base.find_last_of('/') == std::string::npos ? 0 : base.find_last_of('/') + 1);
    const loader::BundleModel* members[6];
    bool wanted[6];
    for (int i = 0; i < 6; ++i) {
      members[i] = b->model(kRoleNames[i]);
      wanted[i] = members[i] != nullptr;
      if (wanted[i]) out.names[i] = file + ":" + kRoleNames[i];
    }
    const auto loaded = load_at_once(wanted, [&](int i) {
      // The member's bytes go to the runtime in place (from the mapped file). A verified member
      // is known by its sha256: its session can come from the optimised-graph cache.
      const loader::BundleModel& m = *members[i];
      std::shared_ptr<Model> model = loader::load_through_graph_cache(
          "", m.data, m.size, o.verify_checksums ? m.sha256 : std::string(), so, out.pool,
          out.names[i], o.disk_cache);
      check_role(*model, kRoles[i]);
      return model;
    });
    for (int i = 0; i < 3; ++i) models[i] = loaded[i];
    recheck = loaded[3];
    if (loaded[4]) {
      if (o.layout.given() || o.table.given())
        invalid(base + " holds its own layout model; do not give layout or table models with it");
      bundle_document = document_models(loaded[4], loaded[5]);
    }
    if (models[2]) {
      charset = b->charset();
      loader::check_charset(*models[2], charset, base);
    }
    if (recheck) {
      recheck_charset = b->recheck_charset();
      loader::check_charset(*recheck, recheck_charset, base + " (recheck)");
    }
    config = b->config();
    out.from_bundle = true;
    // Members that are a known set's files (a bundle packed from them without quantisation)
    // need what those files need.
    auto digest = [&](const char* role) {
      const loader::BundleModel* m = b->model(role);
      return m ? m->sha256 : std::string();
    };
    out.memory_profile =
        memory_profile_of(model_set_of(digest("det"), b->model("cls") != nullptr, digest("cls"),
                                       digest("rec"), digest("recheck")));
    // `b` (and the mapping) is released here: the runtime holds its own copy of each graph.
  } else {
    out.pool = o.pool ? o.pool : MemoryPool::create(out.budget_bytes);
    ModelSource srcs[3] = {o.det, o.cls, o.rec};
    if (single.given()) {
      std::shared_ptr<Model> m = load_model(single, "given", so, out.pool, o.disk_cache);
      const ModelRole r = loader::role_of(*m);
      const std::string n = source_name(single, "given");
      if (r == ModelRole::kCls)
        fail(StatusCode::kInvalidModel,
             n + " is a direction classifier; it needs det and rec models to be useful");
      if (r == ModelRole::kUnknown)
        fail(StatusCode::kInvalidModel,
             n + ": cannot tell whether this is a det, cls or rec model (no "
                 "edgeocr.role metadata, first output rank not 4/2/3)");
      const int i = r == ModelRole::kDet ? 0 : 2;
      models[i] = std::move(m);
      out.names[i] = n;
    } else {
      const ModelSource all[4] = {o.det, o.cls, o.rec, o.recheck};
      loader::ModelFile loader::ModelSetInfo::* const members[4] = {
          &loader::ModelSetInfo::det, &loader::ModelSetInfo::cls, &loader::ModelSetInfo::rec,
          &loader::ModelSetInfo::recheck};
      // A known set's recheck file is loaded when a call first needs it: most pages have no line
      // to recheck, and its session is the largest of the set (Pipeline::defer_recheck).
      deferred_classes = deferrable_recheck(o, deferred_digest);
      const bool wanted[4] = {all[0].given(), all[1].given(), all[2].given(),
                              all[3].given() && deferred_classes == 0};
      const auto loaded = load_at_once(wanted, [&](int i) {
        // A known set's file is known by its sha256 (the digest cache): its session can come
        // from the optimised-graph cache.
        std::shared_ptr<Model> m = load_model(all[i], kRoleNames[i], so, out.pool, o.disk_cache,
                                              digest_if_known(all[i], members[i], o.disk_cache));
        check_role(*m, kRoles[i]);
        return m;
      });
      for (int i = 0; i < 3; ++i) {
        models[i] = loaded[i];
        if (models[i]) out.names[i] = source_name(all[i], kRoleNames[i]);
      }
      recheck = loaded[3];
      if (deferred_classes) out.names[3] = source_name(o.recheck, "recheck");
      if (recheck) {
        out.names[3] = source_name(o.recheck, "recheck");
        if (!o.recheck_keys_path.empty()) {
          const auto chars = loader::read_keys_file(o.recheck_keys_path);
          recheck_charset =
              loader::charset_for(*recheck, &chars, "the keys file " + o.recheck_keys_path);
        } else if (o.has_recheck_keys_list) {
          recheck_charset =
              loader::charset_for(*recheck, &o.recheck_keys_list, "the recheck keys given");
        } else {
          recheck_charset = loader::charset_for(*recheck, nullptr, "");
        }
      }
      const loader::ModelSetInfo* set = model_set_of(o.det, o.cls, o.rec, o.recheck, o.disk_cache);
      if (set) {
        config =
            apply_json(config, set->settings_json, "model set settings", StatusCode::kInternal);
        out.model_set = set->name;
      }
      out.memory_profile = memory_profile_of(set);
    }
    if (models[2]) {
      if (!o.keys_path.empty()) {
        const auto chars = loader::read_keys_file(o.keys_path);
        charset = loader::charset_for(*models[2], &chars, "the keys file " + o.keys_path);
      } else if (o.has_keys_text) {
        const auto chars = loader::parse_keys(o.keys_text, "the keys text");
        charset = loader::charset_for(*models[2], &chars, "the keys text");
      } else if (o.has_keys_list) {
        charset = loader::charset_for(*models[2], &o.keys_list, "the keys given");
      } else {
        charset = loader::charset_for(*models[2], nullptr, "");
      }
    } else if (n_keys) {
      invalid("keys given but there is no rec model");
    }
  }
  config = apply_json(config, o.settings_json, "settings", StatusCode::kInvalidArgument);
  for (const auto& kv : o.overrides) set_setting(config, kv.first, kv.second);
  out.has_det = models[0] != nullptr;
  out.has_cls = models[1] != nullptr;
  out.has_rec = models[2] != nullptr;
  out.has_recheck = recheck != nullptr || deferred_classes > 0;
  out.pipeline =
      std::make_shared<Pipeline>(models[0], models[1], models[2], std::move(charset),
                                 std::move(config), out.pool, recheck, std::move(recheck_charset));
  if (deferred_classes > 0) {
    Pipeline::DeferredRecheck d;
    d.classes = deferred_classes;
    d.load = [src = o.recheck, so, pool = out.pool, digest = deferred_digest,
              disk = o.disk_cache]() {
      // The file is read now: it must still be the one the pipeline was made from.
      if (digest_if_known(src, &loader::ModelSetInfo::recheck, disk) != digest)
        fail(StatusCode::kInvalidModel,
             src.path + ": the recheck model file changed since the pipeline was made");
      std::shared_ptr<Model> m = load_model(src, "recheck", so, pool, disk, digest);
      check_role(*m, ModelRole::kRec);
      std::vector<std::string> chars = loader::charset_for(*m, nullptr, "");
      return std::make_pair(std::move(m), std::move(chars));
    };
    out.pipeline->defer_recheck(std::move(d));
  }
  // The document parser: a bundle's models, else the loose layout (and table) model, loaded when
  // a parse first needs them when given as paths.
  if (bundle_document.layout) {
    out.names[4] = out.names[4].empty() ? "layout" : out.names[4];
    out.has_layout = true;
    out.has_table = bundle_document.table != nullptr;
    out.document = std::make_shared<DocumentParser>(out.pipeline, std::move(bundle_document));
  } else if (o.layout.given()) {
    out.names[4] = source_name(o.layout, "layout");
    if (o.table.given()) out.names[5] = source_name(o.table, "table");
    out.has_layout = true;
    out.has_table = o.table.given();
    out.document =
        load_document_parser(out.pipeline, o.layout, o.table, so, out.pool, o.disk_cache);
  }
  return out;
}

std::shared_ptr<DocumentParser> load_document_parser(
    std::shared_ptr<const Pipeline> ocr, const ModelSource& layout, const ModelSource& table,
    const SessionOptions& so, std::shared_ptr<MemoryPool> pool, bool disk_cache) {
  check_source(layout, "layout");
  check_source(table, "table");
  if (!layout.given()) invalid("document parsing needs a layout model");
  if (!ocr) invalid("document parsing needs an OCR pipeline");
  if (!pool) pool = ocr->pool();
  // Paths load on the parser's first call: a plain OCR call never pays for them (also under a
  // memory budget: the parser loads them before it reserves a call's share).
  if (!layout.path.empty() && (!table.given() || !table.path.empty())) {
    for (const ModelSource* s : {&layout, &table}) {
      struct stat st{};
      if (!s->path.empty() && ::stat(s->path.c_str(), &st) != 0)
        fail(StatusCode::kNotFound, "model file not found: " + s->path);
    }
    return std::make_shared<DocumentParser>(
        std::move(ocr), [layout, table, so, pool, disk_cache]() {
          return load_document_models(layout, table, so, pool, disk_cache);
        });
  }
  return std::make_shared<DocumentParser>(
      std::move(ocr), load_document_models(layout, table, so, pool, disk_cache));
}

}  // namespace edgeocr
