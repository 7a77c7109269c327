// Whole-file input and atomic output, the one way cgmem reads an input file
// and writes a result file.
//
// Reading refuses what is not a regular file (a FIFO would block open() and
// read(), /dev/zero never ends) and anything larger than a bound, and opens
// with O_NONBLOCK so a FIFO put in a file's place cannot hang us.
// Writing goes to a temporary file in the same directory, is fsynced and
// renamed over the target: a reader sees the old file or the new one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.h"
#include "common/fd.h"

namespace cgmem {

inline constexpr uint64_t kDefaultMaxInput = uint64_t{64} << 20;  // specs, claims, YAML, JSON records

// Opens `path` for reading if it is a regular file. `what` names the file in
// errors ("the matrix spec", "the claim file").
Result<Fd> open_regular(const std::string& path, std::string_view what);

// Opens NAME below DIR_FD (AT_FDCWD: NAME is a path) for reading, as every
// reader of a tree someone else hands cgmem (a cgroup tree given with
// --root, a saved snapshot, /proc) opens a file: O_NONBLOCK so a FIFO cannot
// hang the open, O_NOFOLLOW so a symlink in the file's place is never
// followed (ELOOP), and only a regular file (cgroupfs and /proc files are;
// a FIFO, a device or a directory fails with EINVAL and its st_mode in
// *mode). Reads stay non-blocking: a regular file never blocks. Never
// allocates.
Fd open_tree_file(int dir_fd, const char* name, unsigned* mode = nullptr) noexcept;

// REL ("a/b/memory.stat") below DIR_FD, as open_tree_file opens a name, in
// one openat2 (Linux 5.6+) that never goes through a symlink, a ".." out of
// DIR_FD or onto another mount. Where openat2 is missing or refused (ENOSYS;
// EPERM under some seccomp filters) or REL is too long for it, the
// directories are opened one name at a time. `any_kind` skips the
// regular-file check, for a cgroup2 mount: it holds only directories and
// regular files, and no other mount can be reached. Never allocates.
Fd open_tree_file_beneath(int dir_fd, std::string_view rel, bool any_kind = false, unsigned* mode = nullptr) noexcept;

// REL ("a/b", "/a/b"; "" or "/": DIR_FD itself) below DIR_FD, opened one
// name at a time with O_NOFOLLOW|O_DIRECTORY, so neither a symlink nor ".."
// on the way leads out of the tree; with `create`, each missing directory is
// made (mode 0755). An invalid Fd with errno set (EINVAL: a "." or ".." name).
Fd open_dir_beneath(int dir_fd, std::string_view rel, bool create = false) noexcept;

// "a FIFO", "a directory", ...: what a file that is not regular is, for errors.
std::string file_kind(unsigned mode);

// Reads fd to its end into out: 0, E2BIG once out would pass max_bytes, or
// the errno of a failed read (EINTR is retried).
int read_to_end(int fd, std::string& out, uint64_t max_bytes);

// The whole of a regular file of at most `max_bytes`.
Result<std::string> read_file(const std::string& path, std::string_view what, uint64_t max_bytes = kDefaultMaxInput);

// The whole file, or "" when it cannot be read: for files cgmem wrote itself
// and only searches (a build log, a console log, a guest's result), where a
// missing file simply means nothing there yet.
std::string read_file_or_empty(const std::string& path);

// The first `max_bytes` of a regular file (fewer when it is shorter): the
// header of an image or an executable.
Result<std::string> read_prefix(const std::string& path, std::string_view what, size_t max_bytes);

// write(2) of a whole buffer, retried on EINTR and short writes.
Result<void> write_all(int fd, std::string_view data);

// Creates or truncates `path` and writes `data`: for files inside a
// directory that is itself put in place whole (staged_dir.h).
Result<void> write_file(const std::string& path, std::string_view data, unsigned mode = 0644);

// Replaces `path` with `data` atomically (temporary file, fsync, rename).
Result<void> write_file_atomic(const std::string& path, std::string_view data, unsigned mode = 0644);

}  // namespace cgmem
