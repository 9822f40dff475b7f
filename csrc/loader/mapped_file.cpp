#include "loader/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "edgeocr/status.h"

namespace edgeocr {
namespace loader {

MappedFile::MappedFile(const std::string& path) {
  // O_NONBLOCK: opening a pipe would wait for a writer; it is refused below as not a file.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    fail(err == ENOENT ? StatusCode::kNotFound : StatusCode::kInvalidModel,
         path + ": cannot open: " + std::strerror(err));
  }
  struct stat st{};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    fail(StatusCode::kInvalidModel, path + ": cannot stat: " + std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    fail(StatusCode::kInvalidModel, path + " is a directory, not a file");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    fail(StatusCode::kInvalidModel, path + " is not a regular file");
  }
  if (st.st_size <= 0) {
    ::close(fd);
    fail(StatusCode::kInvalidModel, path + ": the file is empty");
  }
  size_ = static_cast<std::size_t>(st.st_size);
  void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  const int err = errno;
  ::close(fd);  // the mapping keeps the file referenced
  if (p == MAP_FAILED)
    fail(StatusCode::kInvalidModel,
         path + ": cannot map " + std::to_string(size_) + " bytes: " + std::strerror(err));
  data_ = static_cast<const std::uint8_t*>(p);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<std::uint8_t*>(data_), size_);
}

}  // namespace loader
}  // namespace edgeocr
