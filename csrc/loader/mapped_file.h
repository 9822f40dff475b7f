// A read-only memory map of a whole file (POSIX mmap), so bundle members are
// used in place: nothing is copied into the process before ONNX Runtime parses it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace edgeocr {
namespace loader {

class MappedFile {
 public:
  // Throws NotFound (no such file), InvalidModel (a directory, empty, unreadable).
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace loader
}  // namespace edgeocr
