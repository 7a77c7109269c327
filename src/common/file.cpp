#include "common/file.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace cgmem {

std::string file_kind(unsigned mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

namespace {

std::atomic<bool> openat2_works{true};

// The file's descriptor if it is regular (or any_kind), else invalid with
// EINVAL and its mode in *mode.
Fd only_regular(Fd fd, bool any_kind, unsigned* mode) noexcept {
  if (!fd.valid() || any_kind) return fd;
  struct stat st{};
  if (::fstat(fd.get(), &st) != 0) return Fd();
  if (S_ISREG(st.st_mode)) return fd;
  if (mode) *mode = st.st_mode;
  errno = EINVAL;
  return Fd();
}

}  // namespace

Fd open_tree_file(int dir_fd, const char* name, unsigned* mode) noexcept {
  return only_regular(Fd(::openat(dir_fd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)), false, mode);
}

Fd open_tree_file_beneath(int dir_fd, std::string_view rel, bool any_kind, unsigned* mode) noexcept {
  while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
  char path[PATH_MAX];
  if (rel.size() < sizeof path && openat2_works.load(std::memory_order_relaxed)) {
    rel.copy(path, rel.size());
    path[rel.size()] = '\0';
    open_how how{};
    how.flags = O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
    Fd fd(int(::syscall(SYS_openat2, dir_fd, path, &how, sizeof how)));
    if (fd.valid() || (errno != ENOSYS && errno != EPERM)) return only_regular(std::move(fd), any_kind, mode);
    openat2_works.store(false, std::memory_order_relaxed);
  }
  size_t slash = rel.rfind('/');
  std::string_view name = slash == std::string_view::npos ? rel : rel.substr(slash + 1);
  if (name.empty() || name.size() > NAME_MAX) {
    errno = name.empty() ? EINVAL : ENAMETOOLONG;
    return Fd();
  }
  Fd dir = open_dir_beneath(dir_fd, slash == std::string_view::npos ? "" : rel.substr(0, slash));
  if (!dir.valid()) return dir;
  name.copy(path, name.size());
  path[name.size()] = '\0';
  return open_tree_file(dir.get(), path, mode);
}

Fd open_dir_beneath(int dir_fd, std::string_view rel, bool create) noexcept {
  Fd dir(::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0));
  char name[NAME_MAX + 1];
  while (dir.valid()) {
    size_t start = rel.find_first_not_of('/');
    if (start == std::string_view::npos) break;
    rel.remove_prefix(start);
    std::string_view part = rel.substr(0, rel.find('/'));
    rel.remove_prefix(part.size());
    if (part.size() > NAME_MAX || part == "." || part == "..") {
      errno = part.size() > NAME_MAX ? ENAMETOOLONG : EINVAL;
      return Fd();
    }
    part.copy(name, part.size());
    name[part.size()] = '\0';
    if (create && ::mkdirat(dir.get(), name, 0755) != 0 && errno != EEXIST) return Fd();
    dir.reset(::openat(dir.get(), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  }
  return dir;
}

Result<Fd> open_regular(const std::string& path, std::string_view what) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) return sys_error(fmt::format("open {}", what), path);
  struct stat st{};
  if (::fstat(fd.get(), &st) != 0) return sys_error(fmt::format("stat {}", what), path);
  if (!S_ISREG(st.st_mode))
    return fail(fmt::format("{} is {}", what, file_kind(st.st_mode)), path, "give the path of a regular file");
  // Back to blocking reads: O_NONBLOCK was only there so open() cannot hang.
  ::fcntl(fd.get(), F_SETFL, 0);
  return fd;
}

int read_to_end(int fd, std::string& out, uint64_t max_bytes) {
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return 0;
    if (out.size() + static_cast<size_t>(n) > max_bytes) return E2BIG;
    out.append(buffer, static_cast<size_t>(n));
  }
}

Result<std::string> read_file(const std::string& path, std::string_view what, uint64_t max_bytes) {
  auto fd = open_regular(path, what);
  if (!fd) return std::unexpected(fd.error());
  std::string text;
  int err = read_to_end(fd->get(), text, max_bytes);
  if (err == E2BIG)
    return fail(fmt::format("{} is larger than {} bytes", what, max_bytes), path, "is this the right file?");
  if (err != 0) return std::unexpected(Error{.what = fmt::format("read {}", what), .err = err, .path = path});
  return text;
}

std::string read_file_or_empty(const std::string& path) { return read_file(path, path).value_or(""); }

Result<std::string> read_prefix(const std::string& path, std::string_view what, size_t max_bytes) {
  auto fd = open_regular(path, what);
  if (!fd) return std::unexpected(fd.error());
  std::string bytes(max_bytes, '\0');
  size_t got = 0;
  while (got < max_bytes) {
    ssize_t n = ::read(fd->get(), bytes.data() + got, max_bytes - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sys_error(fmt::format("read {}", what), path);
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  bytes.resize(got);
  return bytes;
}

Result<void> write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sys_error("write");
    data.remove_prefix(static_cast<size_t>(n));
  }
  return {};
}

Result<void> write_file(const std::string& path, std::string_view data, unsigned mode) {
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode));
  if (!fd.valid()) return sys_error("create", path, "check that the directory is writable");
  if (!write_all(fd.get(), data)) return sys_error("write", path, "is there room on the disk?");
  return {};
}

Result<void> write_file_atomic(const std::string& path, std::string_view data, unsigned mode) {
  // The pid keeps two writers of one file from sharing a temporary.
  std::string tmp = fmt::format("{}.tmp-{}", path, ::getpid());
  Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode));
  if (!fd.valid()) return sys_error("create", tmp, "check that the directory is writable");
  auto written = write_all(fd.get(), data);
  if (!written || ::fsync(fd.get()) != 0) {
    auto error = sys_error("write", tmp, "is there room on the disk?");
    ::unlink(tmp.c_str());
    return error;
  }
  fd.reset();
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    auto error = sys_error("rename into place", path);
    ::unlink(tmp.c_str());
    return error;
  }
  return {};
}

}  // namespace cgmem
