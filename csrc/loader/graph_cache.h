// The on-disk cache of ONNX Runtime's optimised graphs.
//
// A session made from a model whose sha256 is known (a known set's file, identified by the
// digest cache; a member of a bundle whose checksums were verified) keeps ONNX Runtime's optimised
// graph in the cache folder "ort" (common/disk_cache.h: $EDGEOCR_CACHE_DIR/ort, default
// ~/.cache/edgeocr/ort). A later session of the same model on the same machine loads that graph
// with graph optimisation off: the same outputs, bit for bit, in a half to a tenth of the time
// (graph optimisation is most of a session's creation).
//
// The key: the model's sha256, ONNX Runtime's version and library size, the CPU's feature words
// (an optimised graph may hold CPU-specific layouts) and the options that change the graph
// (optimisation level, aarch64 bf16 fast-math). An entry is run only once verified
// (disk_cache::read_entry: its record names this key and its content's sha256 matches, the file
// is ours and no link), and from the bytes that were verified; anything else there is removed and
// the session made again from the model's own bytes (a file is read once and must still have the
// key's sha256), so a damaged or planted entry never runs and is never reported as an error of
// the model. A folder that cannot be used is never an error. The folder keeps at most
// kGraphCacheMaxEntries entries and kGraphCacheMaxBytes bytes, the least recently used removed
// first. EDGEOCR_GRAPH_CACHE=0 turns this cache off, EDGEOCR_CACHE_DIR=off every disk cache.
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

// The cache folder (created and checked), or "" when EDGEOCR_GRAPH_CACHE=0, disk caches are off or
// the folder cannot be used.
std::string graph_cache_dir();

// A model from the file at `path` (data == nullptr) or from `size` bytes at `data`, named `name`,
// through the cache when `sha256` (of those bytes, verified by the caller) is not empty and the
// options optimise the graph and save it nowhere else, and `use_disk_cache`. Errors are those of
// Model::from_file and Model::from_bytes for the source.
std::shared_ptr<Model> load_through_graph_cache(const std::string& path, const void* data,
                                                std::size_t size, const std::string& sha256,
                                                const SessionOptions& so,
                                                const std::shared_ptr<MemoryPool>& pool,
                                                const std::string& name,
                                                bool use_disk_cache = true);

}  // namespace loader
}  // namespace edgeocr
