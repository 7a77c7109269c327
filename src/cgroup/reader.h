// Reading control files: whole-file reads for occasional use, and a
// preopened reader for hot loops (the sampler tick, the workload's op).
//
// The preopened reader opens its file once and then preads from offset 0
// into a buffer the caller owns, so a read allocates nothing and charges no
// memory to the cgroup: seq_file keeps its buffer for the life of the open
// file (measured in the VM: a reader preading 7 files every 100 ms did not
// change a throttled task's 17 sleeps per op).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common/error.h"
#include "common/fd.h"

namespace cgmem::cgroup {

// The most a control file read whole may hold: cgroup.procs listing every
// pid there can be (pid_max at most 2^22, 8 bytes a line). A longer file is
// an error that says so, never a silent cut.
inline constexpr uint64_t kMaxText = uint64_t{32} << 20;

// Reads a whole file relative to dir_fd (AT_FDCWD for an absolute path),
// opened non-blocking and only when it is a regular file (common/file.h:
// a FIFO or /dev/zero in a control file's place is an error, never a hang
// or an endless read); below a dir_fd, never through a symlink. `display`
// is the path errors name. ENOENT/ENODEV mean the file or its cgroup
// vanished: see Error::vanished().
Result<std::string> read_text_at(int dir_fd, const std::string& name, const std::string& display,
                                 uint64_t max_bytes = kMaxText);
Result<std::string> read_text(const std::string& path, uint64_t max_bytes = kMaxText);

// Writes text to an existing file (no O_CREAT, no O_TRUNC: cgroupfs files
// take one write each), opened with O_WRONLY | O_CLOEXEC | open_flags
// (O_NONBLOCK: memory.high / memory.max skip their reclaim, 6.16+).
// Returns 0 or the errno.
int write_text_at(int dir_fd, const char* name, std::string_view text, int open_flags = 0) noexcept;

class FileReader {
 public:
  // Opens name relative to dir_fd (O_RDONLY|O_CLOEXEC, non-blocking, a
  // regular file only); display names it in errors.
  static Result<FileReader> open(int dir_fd, const std::string& name, const std::string& display);
  static Result<FileReader> open(const std::string& path);

  FileReader(FileReader&&) noexcept = default;
  FileReader& operator=(FileReader&&) noexcept = default;

  // Preads the whole file into buffer; the view points into buffer. No heap
  // allocation unless it fails. A file that fills the buffer is an error
  // (it may be longer): size buffers for the file (memory.stat: 8 KiB).
  Result<std::string_view> read(std::span<char> buffer) const;

  // Like read, for the hottest loops: nullopt on any failure, errno set
  // (E2BIG when the buffer was full), never allocates.
  std::optional<std::string_view> read_raw(std::span<char> buffer) const noexcept;

  int fd() const { return fd_.get(); }
  const std::string& path() const { return path_; }

 private:
  FileReader(Fd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  Fd fd_;
  std::string path_;
};

}  // namespace cgmem::cgroup
