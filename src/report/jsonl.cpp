#include "report/jsonl.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"

namespace cgmem::report {

Result<MappedFile> MappedFile::open(const std::string& path) {
  // A FIFO or a directory in a run file's place is refused, not waited on.
  auto fd = open_regular(path, "run file");
  if (!fd) return std::unexpected(fd.error());
  struct stat st {};
  if (fstat(fd->get(), &st) != 0) return sys_error("stat run file", path);
  size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) return MappedFile(nullptr, 0);
  // Not MAP_POPULATE: the pages are faulted in by the threads that scan
  // them (read_ops.h), which shares that work out.
  void* data = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd->get(), 0);
  if (data == MAP_FAILED) return sys_error("map run file", path);
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
