// One entry point that builds an OCR pipeline from any source: loose model
// files or buffers (ONNX), a .eocr bundle (file or buffer), with the model
// set's settings and the caller's overrides. Python's Predictor, the pack
// tooling's verification and the C API all call load_pipeline().
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "edgeocr/document.h"
#include "edgeocr/memory_pool.h"
#include "edgeocr/model.h"
#include "edgeocr/pipeline.h"
#include "edgeocr/settings.h"

namespace edgeocr {

// A model (or bundle) from a file path or from caller memory, or nothing.
struct ModelSource {
  std::string path;
  const void* data = nullptr;  // not kept after load_pipeline returns
  std::size_t size = 0;
  std::string name;  // for messages when `data` is given ("<det model bytes>" if empty)
  bool given() const { return !path.empty() || data != nullptr; }
};

struct LoadOptions {
  // Either `bundle`, or `model` (one file of any kind: a .eocr bundle, or a
  // det or rec model whose role is inferred), or det/cls/rec.
  ModelSource bundle;
  ModelSource model;
  ModelSource det, cls, rec;
  // A second recogniser that re-reads the lines rec is unsure of (PipelineConfig's
  // rec_recheck_below); with loose models and rec (a bundle holds its own). Its dictionary: this
  // keys file or list of characters (at most one), else its metadata.
  ModelSource recheck;
  std::string recheck_keys_path;
  std::vector<std::string> recheck_keys_list;
  bool has_recheck_keys_list = false;
  // A known set's recheck file (by sha256) given as a path, outside a memory budget, is loaded
  // when a call first has a line to recheck (Pipeline::defer_recheck), not with the others;
  // false: with the others, whatever it is.
  bool defer_recheck = true;
  // false: this load reads and writes no on-disk cache (file digests, optimised graphs, .nb
  // translations; common/disk_cache.h), as EDGEOCR_CACHE_DIR=off does for the whole process.
  bool disk_cache = true;
  // Document parsing (LoadedPipeline::document): a layout model (PicoDet, its labels in its
  // metadata) and optionally a table-structure model (needs the layout model). Loose sources,
  // also beside a bundle that has none of its own. Given as paths they are loaded when a parse
  // first needs them (a plain OCR call never pays for them; a missing file is NotFound now);
  // given as bytes, or in a bundle, with the pipeline.
  ModelSource layout, table;
  // The rec model's dictionary when it is not in its metadata: a keys file,
  // keys text (one character per line) or a list of characters (at most one).
  std::string keys_path;
  std::string keys_text;
  bool has_keys_text = false;
  std::vector<std::string> keys_list;
  bool has_keys_list = false;
  // Session options for every model. For a bundle the graph optimisation
  // level is the manifest's runtime.graph_optimization unless
  // `keep_optimization` is set.
  SessionOptions session;
  bool keep_optimization = false;
  // The pool every model and the pipeline allocate from (created with
  // `max_memory_bytes` as its cap when null; 0 = no cap).
  std::shared_ptr<MemoryPool> pool;
  std::size_t max_memory_bytes = 0;
  // With no pool and no max_memory_bytes given: a bundle's runtime.max_memory_mb (the budget
  // it was packed for) becomes the pool's cap, and the sessions run as under a budget (shared
  // arena, no memory pattern, the arena shrunk after each run). The caller sets the pipeline's
  // budget from LoadedPipeline::budget_bytes.
  bool bundle_budget = false;
  // Pipeline settings as a JSON object, applied last (over edgeocr's
  // defaults, the model set's settings or the bundle's). Checked: a bad key,
  // type or range is InvalidArgument naming the setting.
  std::string settings_json;
  // Typed settings (as the C API's options give them), applied after settings_json.
  std::vector<std::pair<std::string, SettingValue>> overrides;
  bool verify_checksums = true;
};

struct LoadedPipeline {
  std::shared_ptr<Pipeline> pipeline;
  std::shared_ptr<MemoryPool> pool;
  bool has_det = false, has_cls = false, has_rec = false, has_recheck = false;
  bool has_layout = false, has_table = false;
  // Per role (det, cls, rec, recheck, layout, table): the file or "<bundle>:role"; "" when absent.
  std::string names[6];
  // The document parser over `pipeline` when there is a layout model (else null); its models
  // may load on its first call (LoadOptions::layout).
  std::shared_ptr<DocumentParser> document;
  std::string model_set;  // the known model set the models are, "" if none
  bool from_bundle = false;
  // What the models need per input pixel under a memory budget: the known set's figures when the
  // models are its files (loose, or a bundle's members with the same sha256), else the core's
  // defaults. Give it to Pipeline::set_memory_budget.
  MemoryProfile memory_profile;
  std::string manifest_json;     // a bundle's manifest, "" for other sources
  std::size_t budget_bytes = 0;  // the pool's cap: the caller's, else the bundle's (bundle_budget)
};

// Throws edgeocr::Error: NotFound (missing file), InvalidModel (bad model,
// bundle or dictionary; bundle errors are loader::BundleError), Unsupported
// (bundle version / feature), InvalidArgument (bad options or settings),
// RuntimeUnavailable, BackendError.
LoadedPipeline load_pipeline(const LoadOptions& options);

// A document parser over an existing OCR pipeline with this layout (and optional table) model:
// what load_pipeline makes for LoadOptions::layout / table, for a caller that adds document
// parsing to a pipeline it already has (Python's Predictor on its first parse). Paths are loaded
// on the parser's first call (a missing file is NotFound now), bytes now; the sessions use
// `session` and `pool`; !disk_cache: no on-disk cache is read or written (LoadOptions::disk_cache).
// Throws as load_pipeline does.
std::shared_ptr<DocumentParser> load_document_parser(
    std::shared_ptr<const Pipeline> ocr, const ModelSource& layout, const ModelSource& table,
    const SessionOptions& session, std::shared_ptr<MemoryPool> pool, bool disk_cache = true);

// The settings of the known model set these models belong to, as a JSON
// object ("{}" when none), and its name. Each source is a path or bytes;
// only files whose size matches a known model are hashed.
std::string model_set_settings(const ModelSource& det, const ModelSource& cls,
                               const ModelSource& rec, std::string* set_name = nullptr,
                               const ModelSource& recheck = ModelSource{});

}  // namespace edgeocr
