// On-disk cache of translations (common/disk_cache.h: the folder "nb"), keyed by the sha256 of
// the .nb content and the translator version. A cache that cannot be used is never an error.
#include <cstdint>
#include <string>

#include "common/disk_cache.h"
#include "loader/nb/nb.h"
#include "loader/nb/program.h"

namespace edgeocr {
namespace nb {
namespace {

// A translation is about the size of its .nb file; the folder keeps the most recently used.
constexpr std::size_t kMaxEntryBytes = std::size_t(1) << 30;
constexpr std::size_t kMaxEntries = 64;
constexpr std::uint64_t kMaxFolderBytes = std::uint64_t(2) << 30;

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

std::string default_cache_dir() {
  const std::string root = disk_cache::root();
  return root.empty() ? std::string() : root + "/nb";
}

std::string cached_translate_to_onnx(const void* data, std::size_t size, const std::string& name,
                                     const std::string& cache_dir, bool use_disk_cache) {
  std::string digest = sha256_hex(data, size);
  const std::string dir = !use_disk_cache     ? std::string()
                          : cache_dir.empty() ? disk_cache::folder("nb")
                                              : disk_cache::checked_folder(cache_dir);
  if (dir.empty()) return translate_with_digest(data, size, name, true, digest);
  const std::string id =
      std::string("edgeocr-nb-onnx\nnb ") + digest + "\ntranslator " + kTranslatorVersion + "\n";
  const std::string entry =
      dir + "/" + digest + ".v" + kTranslatorVersion + disk_cache::kEntrySuffix;
  std::string cached;
  if (disk_cache::read_entry(entry, id, kMaxEntryBytes, &cached) == disk_cache::Lookup::kHit &&
      valid_entry(cached, digest)) {
    disk_cache::touch(entry);
    return cached;
  }
  std::string out = translate_with_digest(data, size, name, true, digest);
  if (disk_cache::write_entry(dir, entry, id, out.data(), out.size()))
    disk_cache::prune(dir, kMaxEntries, kMaxFolderBytes);
  return out;
}

}  // namespace nb
}  // namespace edgeocr
