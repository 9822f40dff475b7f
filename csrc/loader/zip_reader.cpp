#include "loader/zip_reader.h"

#include <algorithm>
#include <unordered_set>

#include "loader/bundle_error.h"

namespace edgeocr {
namespace loader {
namespace {

constexpr std::uint32_t kEocdSig = 0x06054b50;
constexpr std::uint32_t kCentralSig = 0x02014b50;
constexpr std::uint32_t kLocalSig = 0x04034b50;
constexpr std::size_t kEocdSize = 22;
constexpr std::size_t kCentralSize = 46;
constexpr std::size_t kLocalSize = 30;

std::uint16_t u16(const std::uint8_t* p) {
  return std::uint16_t(p[0] | (p[1] << 8));
}
std::uint32_t u32(const std::uint8_t* p) {
  return std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16) |
         (std::uint32_t(p[3]) << 24);
}

[[noreturn]] void bad(const std::string& name, const std::string& what) {
  bundle_fail(BundleErrorKind::kFormat,
              name + ": not a readable .eocr bundle (" + what +
                  "); a stored zip archive is expected: the file is truncated, corrupt or of "
                  "another kind");
}

}  // namespace

std::vector<ZipMember> read_zip_directory(const std::uint8_t* data, std::size_t size,
                                          const std::string& name) {
  if (size < kEocdSize) bad(name, std::to_string(size) + " bytes is too small for a zip archive");
  // The end-of-central-directory record: the last 22 bytes plus a comment of at most 64 KiB.
  // The comment length must reach exactly to the end of the file.
  std::size_t eocd = SIZE_MAX;
  const std::size_t lowest = size > kEocdSize + 0xFFFF ? size - kEocdSize - 0xFFFF : 0;
  for (std::size_t i = size - kEocdSize + 1; i-- > lowest;) {
    if (u32(data + i) == kEocdSig && i + kEocdSize + u16(data + i + 20) == size) {
      eocd = i;
      break;
    }
  }
  if (eocd == SIZE_MAX) bad(name, "no end-of-central-directory record");
  const std::uint8_t* e = data + eocd;
  const std::uint16_t disk = u16(e + 4), cd_disk = u16(e + 6);
  const std::uint16_t n_disk = u16(e + 8), n_total = u16(e + 10);
  const std::uint32_t cd_size = u32(e + 12), cd_offset = u32(e + 16);
  if (disk != 0 || cd_disk != 0 || n_disk != n_total) bad(name, "a multi-disk archive");
  if (n_total == 0xFFFF || cd_size == 0xFFFFFFFFu || cd_offset == 0xFFFFFFFFu)
    bad(name, "a ZIP64 archive, which bundles never are");
  if (n_total == 0) bad(name, "the archive has no members");
  if (n_total > kMaxZipMembers)
    bad(name, "the archive declares " + std::to_string(n_total) + " members; at most " +
                  std::to_string(kMaxZipMembers) + " are read");
  if (std::uint64_t(cd_offset) + cd_size > eocd)
    bad(name, "the central directory (" + std::to_string(cd_size) + " bytes at offset " +
                  std::to_string(cd_offset) + ") runs past its end record at " +
                  std::to_string(eocd));
  if (std::uint64_t(n_total) * kCentralSize > cd_size)
    bad(name, std::to_string(n_total) + " members cannot fit in a " + std::to_string(cd_size) +
                  "-byte central directory");

  std::vector<ZipMember> members;
  members.reserve(n_total);
  std::unordered_set<std::string> names;
  std::uint64_t pos = cd_offset;
  const std::uint64_t cd_end = std::uint64_t(cd_offset) + cd_size;
  for (std::size_t k = 0; k < n_total; ++k) {
    if (pos + kCentralSize > cd_end)
      bad(name, "central directory entry " + std::to_string(k) + " is truncated");
    const std::uint8_t* c = data + pos;
    if (u32(c) != kCentralSig)
      bad(name, "central directory entry " + std::to_string(k) + " has a bad signature");
    ZipMember m;
    m.flags = u16(c + 8);
    m.method = u16(c + 10);
    const std::uint32_t csize = u32(c + 20), usize = u32(c + 24);
    const std::uint16_t nlen = u16(c + 28), xlen = u16(c + 30), clen = u16(c + 32);
    m.header_offset = u32(c + 42);
    const std::uint64_t next = pos + kCentralSize + nlen + xlen + clen;
    if (next > cd_end)
      bad(name, "central directory entry " + std::to_string(k) + " runs past the directory");
    m.name.assign(reinterpret_cast<const char*>(c + kCentralSize), nlen);
    pos = next;
    if (csize == 0xFFFFFFFFu || usize == 0xFFFFFFFFu || m.header_offset == 0xFFFFFFFFu)
      bad(name, "member '" + m.name + "' uses ZIP64 sizes");
    if (m.flags & 0x1) bad(name, "member '" + m.name + "' is encrypted");
    if (!names.insert(m.name).second) bad(name, "member '" + m.name + "' appears twice");
    m.size = csize;
    if (m.method == 0 && csize != usize)
      bad(name, "stored member '" + m.name + "' declares " + std::to_string(usize) +
                    " bytes but stores " + std::to_string(csize));
    // The local header and the data: inside the file, before the central directory.
    if (m.header_offset + kLocalSize > cd_offset)
      bad(name, "member '" + m.name + "': local header at offset " +
                    std::to_string(m.header_offset) + " is outside the member area (" +
                    std::to_string(cd_offset) + " bytes)");
    const std::uint8_t* l = data + m.header_offset;
    if (u32(l) != kLocalSig)
      bad(name,
          "member '" + m.name + "': no local header at offset " + std::to_string(m.header_offset));
    const std::uint16_t lflags = u16(l + 6), lmethod = u16(l + 8);
    const std::uint16_t lnlen = u16(l + 26), lxlen = u16(l + 28);
    if (lmethod != m.method || (lflags & 0x1) != (m.flags & 0x1))
      bad(name, "member '" + m.name + "': local header disagrees with the central directory");
    m.data_offset = m.header_offset + kLocalSize + lnlen + lxlen;
    if (m.data_offset > cd_offset || m.size > cd_offset - m.data_offset)
      bad(name, "member '" + m.name + "' (" + std::to_string(m.size) + " bytes at offset " +
                    std::to_string(m.data_offset) + ") runs past the member area (" +
                    std::to_string(cd_offset) + " bytes): truncated or hostile archive");
    if (lnlen != nlen ||
        std::char_traits<char>::compare(reinterpret_cast<const char*>(l + kLocalSize),
                                        m.name.data(), nlen) != 0)
      bad(name, "member '" + m.name + "': local header names another file");
    if (!(lflags & 0x8) && (u32(l + 18) != csize || u32(l + 22) != usize))
      bad(name, "member '" + m.name + "': local header sizes disagree with the central directory");
    members.push_back(std::move(m));
  }
  // No two members may share bytes (each spans its local header and data).
  std::vector<const ZipMember*> order;
  order.reserve(members.size());
  for (const auto& m : members) order.push_back(&m);
  std::sort(order.begin(), order.end(), [](const ZipMember* a, const ZipMember* b) {
    return a->header_offset < b->header_offset;
  });
  for (std::size_t i = 1; i < order.size(); ++i) {
    const ZipMember& prev = *order[i - 1];
    if (order[i]->header_offset < prev.data_offset + prev.size)
      bad(name, "members '" + prev.name + "' and '" + order[i]->name + "' overlap");
  }
  return members;
}

}  // namespace loader
}  // namespace edgeocr
