// edgeocr's on-disk caches, found and trusted one way: the loader's file digests
// ($root/sha256), ONNX Runtime's optimised graphs ($root/ort) and the .nb translations ($root/nb),
// and the Python package's int8 bundles ($root/int8).
//
// The root: $EDGEOCR_CACHE_DIR ("~" or "~/..." against HOME), else $HOME/.cache/edgeocr.
// EDGEOCR_CACHE_DIR=off, or no HOME and no EDGEOCR_CACHE_DIR: no disk cache (never a shared
// fallback such as /tmp). A load can also turn them off (LoadOptions::disk_cache).
//
// A folder is used only when it is a folder owned by this user and not writable by group or
// others (the root, which may be reached through a symbolic link, and each subfolder, which may
// not); folders edgeocr makes are 0700. A folder that fails this is not used (that cache is off)
// and named once per process in a one-line warning on stderr.
//
// Entries are written atomically (a 0600 temporary file renamed) and end with a record of what
// they were built from (the sha256 of an id, the key's full text) and of their content (size and
// sha256). An entry is returned only when it is a regular file (not a symbolic link) owned by
// this user, not writable by group or others, within the caller's size cap, and its record
// names this id and matches its content; any other file there is removed (a miss: the caller
// rebuilds it from its source).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace edgeocr {
namespace disk_cache {

// The root folder ("" when disk caches are off). Not checked or created.
std::string root();

// The folder `name` under the root, created if missing (0700) and checked as above; "" when disk
// caches are off or the folder cannot be used (warned once). Thread-safe.
std::string folder(const std::string& name);

// The same for a folder the caller names (e.g. a cache_dir argument): created if missing,
// checked as a subfolder is. "" when it cannot be used (warned once). Thread-safe.
std::string checked_folder(const std::string& path);

// What read_entry found.
enum class Lookup {
  kHit,      // `content` holds the verified content
  kMiss,     // no entry
  kRefused,  // a file that is no valid entry for `id` (damaged, foreign, a link): removed
};

// The content of the entry at `path` for `id`, if it verifies (see above) and holds at most
// `max_bytes` bytes. Thread-safe; never throws.
Lookup read_entry(const std::string& path, const std::string& id, std::size_t max_bytes,
                  std::string* content) noexcept;

// Writes `size` bytes at `data` as the entry for `id` at `path` (in `dir`, a folder() or
// checked_folder()). False when any step fails: then nothing is left behind. Thread-safe.
bool write_entry(const std::string& dir, const std::string& path, const std::string& id,
                 const void* data, std::size_t size) noexcept;

// Keeps `dir` within `max_entries` entries and `max_bytes` bytes, the most recently used (by
// mtime: a hit touches its entry) kept first and the newest always; removes temporary files a
// dead writer left (an hour old) and an older format's entries (a name that starts with 64 hex
// digits); other files are left alone.
void prune(const std::string& dir, std::size_t max_entries, std::uint64_t max_bytes) noexcept;

// Marks the entry at `path` as just used (for prune).
void touch(const std::string& path) noexcept;

// A whole regular file we own (O_NOFOLLOW; at most `max_bytes`): false if it cannot be read.
bool read_own_file(const std::string& path, std::size_t max_bytes, std::string* out) noexcept;

// The prefix of edgeocr's temporary files in a cache folder (a dead writer's are removed by
// whoever prunes the folder).
constexpr const char* kTempPrefix = ".tmp-";
// How every entry's file name ends.
constexpr const char* kEntrySuffix = ".entry";

}  // namespace disk_cache
}  // namespace edgeocr
