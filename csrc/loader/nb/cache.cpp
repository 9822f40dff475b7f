// On-disk cache of translations, keyed by the sha256 of the .nb content and
// the translator version. A cache that cannot be used is never an error.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "loader/nb/nb.h"
#include "loader/nb/program.h"

namespace edgeocr {
namespace nb {
namespace {

bool read_varint(const std::string& s, std::size_t& pos, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= s.size()) return false;
    uint8_t b = static_cast<uint8_t>(s[pos++]);
    *v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

// A cached entry is used only when its top-level protobuf fields end exactly
// at the end of the file (a truncated write fails this) and its metadata
// names the .nb content it was made from.
bool valid_entry(const std::string& s, const std::string& digest) {
  std::size_t pos = 0;
  bool graph = false, match = false;
  while (pos < s.size()) {
    uint64_t key, len;
    if (!read_varint(s, pos, &key)) return false;
    int wire = static_cast<int>(key & 7);
    uint64_t field = key >> 3;
    if (wire == 0) {
      if (!read_varint(s, pos, &len)) return false;
      continue;
    }
    if (wire != 2 || !read_varint(s, pos, &len) || len > s.size() - pos) return false;
    if (field == 7) graph = len > 0;
    if (field == 14) {  // StringStringEntryProto {key = 1, value = 2}
      std::string e = s.substr(pos, static_cast<std::size_t>(len)), k, v;
      std::size_t p = 0;
      while (p < e.size()) {
        uint64_t kk, ll;
        if (!read_varint(e, p, &kk) || (kk & 7) != 2 || !read_varint(e, p, &ll) ||
            ll > e.size() - p)
          return false;
        ((kk >> 3) == 1 ? k : v) = e.substr(p, static_cast<std::size_t>(ll));
        p += static_cast<std::size_t>(ll);
      }
      if (k == "edgeocr.nb_sha256" && v == digest) match = true;
    }
    pos += static_cast<std::size_t>(len);
  }
  return graph && match;
}

}  // namespace

bool read_file(const std::string& path, std::string* out) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  std::string data;
  char buf[1 << 16];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) data.append(buf, n);
  bool ok = !std::ferror(f);
  std::fclose(f);
  if (ok) *out = std::move(data);
  return ok;
}

bool make_dirs(const std::string& path) {
  if (path.empty()) return false;
  std::string cur;
  std::size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    cur = path.substr(0, pos);
    if (cur.empty()) continue;
    if (mkdir(cur.c_str(), 0777) != 0 && errno != EEXIST) return false;
  }
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

void write_atomic(const std::string& dir, const std::string& path, const std::string& data) {
  if (!make_dirs(dir)) return;
  std::string tmpl = dir + "/.tmp-XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0) return;
  std::size_t off = 0;
  bool ok = true;
  while (off < data.size()) {
    ssize_t w = ::write(fd, data.data() + off, data.size() - off);
    if (w < 0) {
      if (errno == EINTR) continue;
      ok = false;
      break;
    }
    off += static_cast<std::size_t>(w);
  }
  ok = (::close(fd) == 0) && ok;
  if (!ok || std::rename(name.data(), path.c_str()) != 0) ::unlink(name.data());
}

std::string cache_subdir(const char* name) {
  const char* env = std::getenv("EDGEOCR_CACHE_DIR");
  if (env && *env) return std::string(env) + "/" + name;
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/edgeocr/" + name;
}

std::string default_cache_dir() {
  const char* env = std::getenv("EDGEOCR_CACHE_DIR");
  if (env && *env) {
    std::string e = env;
    if (e[0] == '~') {
      const char* home = std::getenv("HOME");
      if (home) e = home + e.substr(1);
    }
    return e;
  }
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/edgeocr/nb";
}

std::string cached_translate_to_onnx(const void* data, std::size_t size, const std::string& name,
                                     const std::string& cache_dir) {
  std::string digest = sha256_hex(data, size);
  std::string dir = cache_dir.empty() ? default_cache_dir() : cache_dir;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  std::string entry = dir + "/" + digest + ".v" + kTranslatorVersion + ".onnx";
  std::string cached;
  if (read_file(entry, &cached) && valid_entry(cached, digest)) return cached;
  std::string out = translate_with_digest(data, size, name, true, digest);
  write_atomic(dir, entry, out);
  return out;
}

}  // namespace nb
}  // namespace edgeocr
