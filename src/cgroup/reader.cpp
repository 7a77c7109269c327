#include "cgroup/reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace cgmem::cgroup {

Result<std::string> read_text_at(int dir_fd, const std::string& name, const std::string& display) {
  Fd fd(::openat(dir_fd, name.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return sys_error("open", display);
  std::string out;
  char chunk[4096];
  for (;;) {
    ssize_t n = ::read(fd.get(), chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sys_error("read", display);
    if (n == 0) break;
    out.append(chunk, static_cast<size_t>(n));
  }
  return out;
}

Result<std::string> read_text(const std::string& path) { return read_text_at(AT_FDCWD, path, path); }

int write_text_at(int dir_fd, const char* name, std::string_view text) noexcept {
  int fd = ::openat(dir_fd, name, O_WRONLY | O_CLOEXEC);
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
  Fd fd(::openat(dir_fd, name.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return sys_error("open", display);
  return FileReader(std::move(fd), display);
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
