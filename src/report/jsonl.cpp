#include "report/jsonl.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cgmem::report {

Result<MappedFile> MappedFile::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return sys_error("open run file", path);
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    auto error = sys_error("stat run file", path);
    close(fd);
    return error;
  }
  size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    close(fd);
    return MappedFile(nullptr, 0);
  }
  // Not MAP_POPULATE: the pages are faulted in by the threads that scan
  // them (read_ops.h), which shares that work out.
  void* data = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  auto error = data == MAP_FAILED ? sys_error("map run file", path) : std::unexpected<Error>(Error{});
  close(fd);
  if (data == MAP_FAILED) return error;
  madvise(data, size, MADV_SEQUENTIAL);
  return MappedFile(static_cast<const char*>(data), size);
}

MappedFile::MappedFile(MappedFile&& other) noexcept : data_(other.data_), size_(other.size_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

MappedFile::~MappedFile() {
  if (data_) munmap(const_cast<char*>(data_), size_);
}

}  // namespace cgmem::report
