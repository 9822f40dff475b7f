#include "loader/graph_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "common/disk_cache.h"
#include "common/sha256.h"
#include "edgeocr/cpu_features.h"
#include "edgeocr/status.h"
#include "loader/mapped_file.h"
#include "runtime/ort/ort_api.h"

namespace edgeocr {
namespace loader {
namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// What an entry is built from: the model's bytes (their sha256), the runtime and the CPU, and
// the options that change the graph. Its sha256 names the entry's file; its text is checked in
// the entry's record, so an entry renamed to another key is refused.
std::string entry_id(const std::string& sha256, const SessionOptions& so) {
  // The runtime and the CPU do not change within a process.
  static const std::string machine = [] {
    const ort::Runtime& rt = ort::runtime();
    struct stat st{};
    const long long lib_size =
        ::stat(rt.library_path.c_str(), &st) == 0 ? static_cast<long long>(st.st_size) : -1;
    return "\nort " + rt.version + " " + std::to_string(lib_size) + "\ncpu " + cpu_signature();
  }();
  return "edgeocr-ort-graph-v2\nmodel " + sha256 + machine + "\nopt " +
         std::to_string(static_cast<int>(so.optimization)) + " bf16 " +
         (so.arm64_bf16_fastmath ? "1" : "0") + "\n";
}

}  // namespace

std::string graph_cache_dir() {
  const char* off = std::getenv("EDGEOCR_GRAPH_CACHE");
  if (off && std::string(off) == "0") return "";
  return disk_cache::folder("ort");
}

std::shared_ptr<Model> load_through_graph_cache(const std::string& path, const void* data,
                                                std::size_t size, const std::string& sha256,
                                                const SessionOptions& so,
                                                const std::shared_ptr<MemoryPool>& pool,
                                                const std::string& name, bool use_disk_cache) {
  auto from_source = [&](const SessionOptions& o) {
    return data ? Model::from_bytes(data, size, o, pool, name)
                : Model::from_file(path, o, pool, name);
  };
  // ORT-format files (flatbuffers, "ORTM" at byte 4) are loaded as they are: ONNX Runtime saves
  // graphs of ONNX models only.
  const bool ort_format =
      data ? (size >= 8 && std::memcmp(static_cast<const char*>(data) + 4, "ORTM", 4) == 0)
           : ends_with(path, ".ort");
  if (!use_disk_cache || sha256.empty() || ort_format ||
      so.optimization == GraphOptimization::kDisabled || !so.optimized_model_path.empty())
    return from_source(so);
  if (!data) {  // the source's own errors (missing, a folder, empty) come first
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0 ||
        static_cast<std::uint64_t>(st.st_size) > kGraphCacheMaxBytes)
      return from_source(so);
  }
  const std::string dir = graph_cache_dir();
  if (dir.empty()) return from_source(so);
  const std::string id = entry_id(sha256, so);
  const std::string entry = dir + "/" + sha256_hex(id.data(), id.size()) + disk_cache::kEntrySuffix;
  {
    std::string graph;  // verified: this key's, its content as written
    if (disk_cache::read_entry(entry, id, kGraphCacheMaxBytes, &graph) ==
        disk_cache::Lookup::kHit) {
      SessionOptions o = so;
      o.optimization = GraphOptimization::kDisabled;  // the entry is the optimised graph
      try {
        std::shared_ptr<Model> m = Model::from_bytes(graph.data(), graph.size(), o, pool, name);
        disk_cache::touch(entry);  // most recently used
        return m;
      } catch (const Error&) {
        ::unlink(entry.c_str());  // from a runtime that reads it no more
      }
    }
  }
  // Made again from the model's bytes: a file is read once, and only the bytes whose sha256 is
  // the key's make the session and the entry (a file changed since its digest was taken is
  // loaded as it is now, and not cached).
  std::string file;
  const void* bytes = data;
  std::size_t n = size;
  if (!data) {
    try {
      MappedFile f(path);
      file.assign(reinterpret_cast<const char*>(f.data()), f.size());  // a copy: it stays put
    } catch (const Error&) {
      return from_source(so);  // the source's own error
    }
    bytes = file.data();
    n = file.size();
  }
  if (!data && sha256_hex(bytes, n) != sha256) return Model::from_bytes(bytes, n, so, pool, name);
  std::string tmp = dir + "/" + disk_cache::kTempPrefix + "XXXXXX";
  const int fd = ::mkstemp(&tmp[0]);
  if (fd < 0) return Model::from_bytes(bytes, n, so, pool, name);
  ::close(fd);
  SessionOptions o = so;
  o.optimized_model_path = tmp;  // ONNX Runtime writes the optimised graph there
  std::shared_ptr<Model> m;
  try {
    m = Model::from_bytes(bytes, n, o, pool, name);
  } catch (const Error&) {
    ::unlink(tmp.c_str());
    return from_source(so);  // the source's own error, or a cache that could not be written
  }
  std::string graph;
  if (disk_cache::read_own_file(tmp, kGraphCacheMaxBytes, &graph) && !graph.empty() &&
      disk_cache::write_entry(dir, entry, id, graph.data(), graph.size()))
    disk_cache::prune(dir, kGraphCacheMaxEntries, kGraphCacheMaxBytes);
  ::unlink(tmp.c_str());
  return m;
}

}  // namespace loader
}  // namespace edgeocr
