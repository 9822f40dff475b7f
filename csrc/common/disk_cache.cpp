#include "common/disk_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <set>
#include <tuple>
#include <vector>

#include "common/sha256.h"

namespace edgeocr {
namespace disk_cache {
namespace {

// The record at the end of an entry: text, then its length (8 bytes, little-endian) and a magic.
constexpr char kMagic[8] = {'e', 'o', 'c', 'r', 'c', 'a', 'c', '1'};
constexpr std::size_t kTail = 16;
constexpr std::size_t kMaxRecord = 512;
constexpr const char* kRecordHead = "edgeocr-cache-entry-v1\n";

// One warning per folder and process: a refused folder is refused again on every load.
void warn_once(const std::string& path, const std::string& why) {
  static std::mutex mu;
  static std::set<std::string> warned;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!warned.insert(path).second || warned.size() > 64) return;
  }
  std::fprintf(stderr,
               "edgeocr: not using the cache folder %s: %s (no disk cache there; make it yours "
               "with mode 0700, or set EDGEOCR_CACHE_DIR)\n",
               path.c_str(), why.c_str());
}

// "" when `st` is a folder we may trust, else why not.
std::string folder_problem(const struct stat& st) {
  if (!S_ISDIR(st.st_mode)) return S_ISLNK(st.st_mode) ? "a symbolic link" : "not a folder";
  if (st.st_uid != ::geteuid())
    return "owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
           std::to_string(::geteuid()) + ")";
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return std::string("writable by group or others (mode ") + mode + ")";
  }
  return "";
}

// Makes `path` if it is missing (its missing parents too), each 0700.
void make_missing(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0) return;
  for (std::size_t pos = path.find('/', 1);; pos = path.find('/', pos + 1)) {
    const std::string cur = path.substr(0, pos);
    if (!cur.empty() && ::mkdir(cur.c_str(), 0700) != 0 && errno != EEXIST) return;
    if (pos == std::string::npos) return;
  }
}

// `path` created if missing and checked; follow: a symbolic link to a good folder will do.
bool usable(const std::string& path, bool follow) {
  make_missing(path);
  struct stat st{};
  if ((follow ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) != 0) return false;
  const std::string why = folder_problem(st);
  if (why.empty()) return true;
  warn_once(path, why);
  return false;
}

std::string strip_slashes(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

void put_u64(unsigned char* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

std::uint64_t get_u64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}

std::string record_of(const std::string& id, const void* data, std::size_t size) {
  return std::string(kRecordHead) + "id " + sha256_hex(id.data(), id.size()) + "\nsize " +
         std::to_string(size) + "\nsha256 " + sha256_hex(data, size) + "\n";
}

bool write_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t w = ::write(fd, p, size);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    size -= static_cast<std::size_t>(w);
  }
  return true;
}

}  // namespace

std::string root() {
  const char* env = std::getenv("EDGEOCR_CACHE_DIR");
  const char* home = std::getenv("HOME");
  const bool has_home = home && *home == '/';
  if (env && *env) {
    const std::string e = env;
    if (e == "off") return "";
    if (e == "~" || e.rfind("~/", 0) == 0) return has_home ? strip_slashes(home + e.substr(1)) : "";
    return strip_slashes(e);
  }
  return has_home ? strip_slashes(home) + "/.cache/edgeocr" : "";
}

std::string folder(const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) return "";
  const std::string r = root();
  if (r.empty() || !usable(r, true)) return "";
  const std::string dir = r + "/" + name;
  return usable(dir, false) ? dir : "";
}

std::string checked_folder(const std::string& path) {
  if (path.empty()) return "";
  const std::string dir = strip_slashes(path);
  return usable(dir, false) ? dir : "";
}

bool read_own_file(const std::string& path, std::size_t max_bytes, std::string* out) noexcept {
  try {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st{};
    bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
              !(st.st_mode & (S_IWGRP | S_IWOTH)) && st.st_size >= 0 &&
              static_cast<std::uint64_t>(st.st_size) <= max_bytes;
    std::string data;
    if (ok) {
      data.resize(static_cast<std::size_t>(st.st_size));
      std::size_t got = 0;
      while (got < data.size()) {
        const ssize_t n = ::pread(fd, &data[got], data.size() - got, static_cast<off_t>(got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
      }
      ok = got == data.size();
    }
    ::close(fd);
    if (ok) *out = std::move(data);
    return ok;
  } catch (...) {  // std::bad_alloc: a miss
    return false;
  }
}

Lookup read_entry(const std::string& path, const std::string& id, std::size_t max_bytes,
                  std::string* content) noexcept {
  struct stat st{};
  if (::lstat(path.c_str(), &st) != 0) return Lookup::kMiss;
  std::string data;
  bool ok = read_own_file(path, max_bytes + kMaxRecord + kTail, &data) && data.size() >= kTail &&
            std::memcmp(data.data() + data.size() - 8, kMagic, 8) == 0;
  if (ok) {
    const std::uint64_t rec_len =
        get_u64(reinterpret_cast<const unsigned char*>(data.data() + data.size() - kTail));
    ok = rec_len <= kMaxRecord && rec_len <= data.size() - kTail;
    if (ok) {
      const std::size_t body = data.size() - kTail - static_cast<std::size_t>(rec_len);
      try {
        ok = body <= max_bytes && data.compare(body, static_cast<std::size_t>(rec_len),
                                               record_of(id, data.data(), body)) == 0;
        if (ok) {
          data.resize(body);
          *content = std::move(data);
        }
      } catch (...) {
        ok = false;
      }
    }
  }
  if (ok) return Lookup::kHit;
  ::unlink(path.c_str());  // damaged, cut, foreign, a link or another key's: rebuilt by the caller
  return Lookup::kRefused;
}

bool write_entry(const std::string& dir, const std::string& path, const std::string& id,
                 const void* data, std::size_t size) noexcept {
  try {
    std::string tmp = dir + "/" + kTempPrefix + "XXXXXX";
    const int fd = ::mkstemp(&tmp[0]);  // 0600
    if (fd < 0) return false;
    const std::string record = record_of(id, data, size);
    unsigned char tail[kTail];
    put_u64(tail, record.size());
    std::memcpy(tail + 8, kMagic, 8);
    bool ok = write_all(fd, data, size) && write_all(fd, record.data(), record.size()) &&
              write_all(fd, tail, kTail);
    ok = (::close(fd) == 0) && ok;
    if (ok && std::rename(tmp.c_str(), path.c_str()) == 0) return true;
    ::unlink(tmp.c_str());
    return false;
  } catch (...) {
    return false;
  }
}

void touch(const std::string& path) noexcept {
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
}

void prune(const std::string& dir, std::size_t max_entries, std::uint64_t max_bytes) noexcept {
  try {
    DIR* d = ::opendir(dir.c_str());
    if (!d) return;
    constexpr std::time_t kStaleTemp = 3600;  // a writer that died left it
    const std::time_t now = std::time(nullptr);
    const std::string suffix = kEntrySuffix;
    std::vector<std::tuple<std::int64_t, std::uint64_t, std::string>> entries;  // mtime, size
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      const std::string path = dir + "/" + name;
      struct stat st{};
      if (::lstat(path.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) continue;
      if (name.rfind(kTempPrefix, 0) == 0) {
        if (now - st.st_mtime > kStaleTemp) ::unlink(path.c_str());
        continue;
      }
      const bool entry = S_ISREG(st.st_mode) && name.size() > suffix.size() &&
                         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
      if (!entry) {
        // An older format's entry (named by a sha256 too) goes; anything else is not ours.
        if (name.size() >= 64 && name.find_first_not_of("0123456789abcdef") >= 64)
          ::unlink(path.c_str());
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
      if (i > 0 && (i >= max_entries || bytes > max_bytes))
        ::unlink(std::get<2>(entries[i]).c_str());
    }
  } catch (...) {  // std::bad_alloc: pruned next time
  }
}

}  // namespace disk_cache
}  // namespace edgeocr
