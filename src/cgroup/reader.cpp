#include "cgroup/reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/file.h"

namespace cgmem::cgroup {

namespace {

// A regular file opened non-blocking (common/file.h); below a directory fd
// never through a symlink, a path given whole may end in one (/boot/config).
Result<Fd> open_text(int dir_fd, const std::string& name, const std::string& display) {
  unsigned mode = 0;
  Fd fd = dir_fd == AT_FDCWD ? Fd(::open(name.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY))
                             : open_tree_file(dir_fd, name.c_str(), &mode);
  if (fd.valid() && dir_fd == AT_FDCWD) {
    struct stat st{};
    if (::fstat(fd.get(), &st) != 0) return sys_error("stat", display);
    if (!S_ISREG(st.st_mode)) mode = st.st_mode, fd.reset(), errno = EINVAL;
  }
  if (fd.valid()) return fd;
  if (mode) return fail("read " + display + ": it is " + file_kind(mode) + ", not a regular file");
  return sys_error("open", display);
}

}  // namespace

Result<std::string> read_text_at(int dir_fd, const std::string& name, const std::string& display,
                                 uint64_t max_bytes) {
  auto fd = open_text(dir_fd, name, display);
  if (!fd) return std::unexpected(fd.error());
  std::string out;
  int err = read_to_end(fd->get(), out, max_bytes);
  if (err == E2BIG)
    return fail("read " + display + ": it is larger than " + std::to_string(max_bytes) + " bytes, more than a " +
                "control file holds");
  if (err != 0) return std::unexpected(Error{.what = "read", .err = err, .path = display});
  return out;
}

Result<std::string> read_text(const std::string& path, uint64_t max_bytes) {
  return read_text_at(AT_FDCWD, path, path, max_bytes);
}

int write_text_at(int dir_fd, const char* name, std::string_view text, int open_flags) noexcept {
  int fd = ::openat(dir_fd, name, O_WRONLY | O_CLOEXEC | open_flags);
  if (fd < 0) return errno;
  ssize_t n;
  do {
    n = ::write(fd, text.data(), text.size());
  } while (n < 0 && errno == EINTR);
  int err = n < 0 ? errno : (static_cast<size_t>(n) != text.size() ? EIO : 0);
  if (::close(fd) != 0 && err == 0) err = errno;  // some cgroupfs errors surface here
  return err;
}

Result<FileReader> FileReader::open(int dir_fd, const std::string& name, const std::string& display) {
  auto fd = open_text(dir_fd, name, display);
  if (!fd) return std::unexpected(fd.error());
  return FileReader(std::move(*fd), display);
}

Result<FileReader> FileReader::open(const std::string& path) { return open(AT_FDCWD, path, path); }

std::optional<std::string_view> FileReader::read_raw(std::span<char> buffer) const noexcept {
  size_t used = 0;
  while (used < buffer.size()) {
    ssize_t n = ::pread(fd_.get(), buffer.data() + used, buffer.size() - used, static_cast<off_t>(used));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return std::string_view(buffer.data(), used);
    used += static_cast<size_t>(n);
  }
  errno = E2BIG;
  return std::nullopt;
}

Result<std::string_view> FileReader::read(std::span<char> buffer) const {
  if (auto text = read_raw(buffer)) return *text;
  if (errno == E2BIG) {
    return fail("read " + path_ + ": the file fills the whole " + std::to_string(buffer.size()) +
                "-byte buffer and may be longer; use a larger buffer");
  }
  return sys_error("read", path_);
}

}  // namespace cgmem::cgroup
