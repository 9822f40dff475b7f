// The on-disk cache of ONNX Runtime's optimised graphs.
//
// A session made from a model whose sha256 is known (a known set's file, identified by the
// digest cache; a member of a bundle whose checksums were verified) keeps ONNX Runtime's optimised
// graph in $EDGEOCR_CACHE_DIR/ort (default ~/.cache/edgeocr/ort). A later session of the same model
// on the same machine loads that graph with graph optimisation off: the same outputs, bit for bit,
// in a half to a tenth of the time (graph optimisation is most of a session's creation).
//
// The key: the model's sha256, ONNX Runtime's version and library size, the CPU's feature words
// (an optimised graph may hold CPU-specific layouts) and the options that change the graph
// (optimisation level, aarch64 bf16 fast-math). Entries are written atomically; one that cannot
// be loaded is removed and the model is loaded from its source; a folder that cannot be used is
// never an error. The folder keeps at most kGraphCacheMaxEntries entries and
// kGraphCacheMaxBytes bytes, the least recently used removed first. EDGEOCR_GRAPH_CACHE=0 turns
// the cache off.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "edgeocr/model.h"

namespace edgeocr {
namespace loader {

constexpr int kGraphCacheMaxEntries = 64;
constexpr std::uint64_t kGraphCacheMaxBytes = std::uint64_t(512) << 20;

// The cache folder, or "" when EDGEOCR_GRAPH_CACHE=0.
std::string graph_cache_dir();

// A model from the file at `path` (data == nullptr) or from `size` bytes at `data`, named `name`,
// through the cache when `sha256` (of those bytes, verified by the caller) is not empty and the
// options optimise the graph and save it nowhere else. Errors are those of Model::from_file and
// Model::from_bytes for the source.
std::shared_ptr<Model> load_through_graph_cache(const std::string& path, const void* data,
                                                std::size_t size, const std::string& sha256,
                                                const SessionOptions& so,
                                                const std::shared_ptr<MemoryPool>& pool,
                                                const std::string& name);

}  // namespace loader
}  // namespace edgeocr
