#include "loader/graph_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <tuple>
#include <vector>

#include "common/sha256.h"
#include "edgeocr/cpu_features.h"
#include "edgeocr/status.h"
#include "loader/nb/nb.h"
#include "runtime/ort/ort_api.h"

namespace edgeocr {
namespace loader {
namespace {

constexpr const char* kEntrySuffix = ".onnx";
constexpr const char* kTmpPrefix = ".tmp-";
constexpr std::time_t kStaleTmpSeconds = 3600;  // a writer that died left it

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string entry_path(const std::string& dir, const std::string& sha256,
                       const SessionOptions& so) {
  // The runtime and the CPU do not change within a process.
  static const std::string machine = [] {
    const ort::Runtime& rt = ort::runtime();
    struct stat st{};
    const long long lib_size =
        ::stat(rt.library_path.c_str(), &st) == 0 ? static_cast<long long>(st.st_size) : -1;
    return "\nort " + rt.version + " " + std::to_string(lib_size) + "\ncpu " + cpu_signature();
  }();
  const std::string id = "edgeocr-ort-graph-v1\nmodel " + sha256 + machine + "\nopt " +
                         std::to_string(static_cast<int>(so.optimization)) + " bf16 " +
                         (so.arm64_bf16_fastmath ? "1" : "0") + "\n";
  return dir + "/" + sha256_hex(id.data(), id.size()) + kEntrySuffix;
}

// Keeps the folder within kGraphCacheMaxEntries and kGraphCacheMaxBytes (most recently used
// first: a hit touches its entry) and removes temporary files a dead writer left.
void prune(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  std::vector<std::tuple<std::int64_t, std::uint64_t, std::string>> entries;  // mtime, size, path
  const std::time_t now = std::time(nullptr);
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    const bool tmp = name.rfind(kTmpPrefix, 0) == 0;
    if (!tmp && !ends_with(name, kEntrySuffix)) continue;
    const std::string path = dir + "/" + name;
    struct stat st{};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (tmp) {
      if (now - st.st_mtime > kStaleTmpSeconds) ::unlink(path.c_str());
      continue;
    }
    entries.emplace_back(
        static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
        static_cast<std::uint64_t>(st.st_size), path);
  }
  ::closedir(d);
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return std::get<0>(a) > std::get<0>(b); });
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    bytes += std::get<1>(entries[i]);
    if (i >= static_cast<std::size_t>(kGraphCacheMaxEntries) || bytes > kGraphCacheMaxBytes)
      ::unlink(std::get<2>(entries[i]).c_str());
  }
}

}  // namespace

std::string graph_cache_dir() {
  const char* off = std::getenv("EDGEOCR_GRAPH_CACHE");
  if (off && std::string(off) == "0") return "";
  return nb::cache_subdir("ort");
}

std::shared_ptr<Model> load_through_graph_cache(const std::string& path, const void* data,
                                                std::size_t size, const std::string& sha256,
                                                const SessionOptions& so,
                                                const std::shared_ptr<MemoryPool>& pool,
                                                const std::string& name) {
  auto from_source = [&](const SessionOptions& o) {
    return data ? Model::from_bytes(data, size, o, pool, name)
                : Model::from_file(path, o, pool, name);
  };
  // ORT-format files (flatbuffers, "ORTM" at byte 4) are loaded as they are: ONNX Runtime saves
  // graphs of ONNX models only.
  const bool ort_format =
      data ? (size >= 8 && std::memcmp(static_cast<const char*>(data) + 4, "ORTM", 4) == 0)
           : ends_with(path, ".ort");
  if (sha256.empty() || ort_format || so.optimization == GraphOptimization::kDisabled ||
      !so.optimized_model_path.empty())
    return from_source(so);
  const std::string dir = graph_cache_dir();
  if (dir.empty()) return from_source(so);
  if (!data) {  // the source's own errors (missing, a folder, empty) come first
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
      return from_source(so);
  }
  const std::string entry = entry_path(dir, sha256, so);
  struct stat st{};
  if (::stat(entry.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    SessionOptions o = so;
    o.optimization = GraphOptimization::kDisabled;  // the entry is the optimised graph
    try {
      std::shared_ptr<Model> m = Model::from_file(entry, o, pool, name);
      ::utimensat(AT_FDCWD, entry.c_str(), nullptr, 0);  // most recently used
      return m;
    } catch (const Error&) {
      ::unlink(entry.c_str());  // damaged, or from a runtime that reads it no more
    }
  }
  if (!nb::make_dirs(dir)) return from_source(so);
  std::string tmp = dir + "/" + kTmpPrefix + "XXXXXX";
  const int fd = ::mkstemp(&tmp[0]);
  if (fd < 0) return from_source(so);
  ::close(fd);
  SessionOptions o = so;
  o.optimized_model_path = tmp;  // ONNX Runtime writes the optimised graph there
  std::shared_ptr<Model> m;
  try {
    m = from_source(o);
  } catch (const Error&) {
    ::unlink(tmp.c_str());
    return from_source(so);  // the source's own error, or a cache that could not be written
  }
  struct stat written{};
  if (::stat(tmp.c_str(), &written) == 0 && written.st_size > 0 &&
      std::rename(tmp.c_str(), entry.c_str()) == 0)
    prune(dir);
  else
    ::unlink(tmp.c_str());
  return m;
}

}  // namespace loader
}  // namespace edgeocr
