// The central directory of a stored (uncompressed) zip archive, read in place.
// Written for .eocr bundles (docs/bundle-format.md): no ZIP64, no encryption,
// no multi-disk archives. Every offset, size and count is checked against the
// buffer before it is used; members that overlap each other or the central
// directory, or run past the end, are refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace edgeocr {
namespace loader {

struct ZipMember {
  std::string name;
  std::uint16_t method = 0;  // 0 = stored
  std::uint16_t flags = 0;
  std::uint64_t header_offset = 0;  // local header
  std::uint64_t data_offset = 0;    // first byte of the member's data
  std::uint64_t size = 0;           // stored bytes (= uncompressed for a stored member)
};

// At most this many members (a bundle has four); a larger count is refused
// before anything is allocated for it.
constexpr std::size_t kMaxZipMembers = 256;

// Throws BundleError(kFormat) naming `name` for anything that is not a sound
// archive as described above. Compressed members are listed (method != 0) and
// refused by whoever uses them.
std::vector<ZipMember> read_zip_directory(const std::uint8_t* data, std::size_t size,
                                          const std::string& name);

}  // namespace loader
}  // namespace edgeocr
