// The side effects the Cgroup handle has on the system, behind a small
// interface: tests substitute a double that records the calls (and, on a
// fixture tree, must not signal the pids a fixture's cgroup.procs lists).
// Each call returns 0 or the errno; the handle turns that into an Error
// with its context and hint.
#pragma once

#include <sys/types.h>

#include <cerrno>

#include <string>
#include <string_view>

namespace cgmem::cgroup {

class Effects {
 public:
  virtual ~Effects() = default;
  // mkdirat(parent_fd, name, 0755).
  virtual int make_dir(int parent_fd, const std::string& name) = 0;
  // rmdir(path): a cgroup directory is removed with its control files.
  virtual int remove_dir(const std::string& path) = 0;
  // One write of text to an existing file (no O_CREAT, no O_TRUNC).
  virtual int write_file(int dir_fd, const char* name, std::string_view text) = 0;
  // The same write through a file opened with O_NONBLOCK: from 6.16 the
  // kernel then sets memory.high / memory.max without reclaiming down to
  // them in the writer's context. A double that does not care writes plainly.
  virtual int write_file_nonblocking(int dir_fd, const char* name, std::string_view text) {
    return write_file(dir_fd, name, text);
  }
  // kill(pid, signal).
  virtual int send_signal(pid_t pid, int signal) = 0;
  // setxattr(path, name, value): the mark on every cgroup cgmem creates
  // (lab/marker.h), which `cgmem gc` looks for.
  // A double that marks nothing refuses.
  virtual int set_xattr(const std::string& /*path*/, const char* /*name*/, std::string_view /*value*/) {
    return ENOTSUP;
  }
  // True when dir_fd is a directory of a cgroup2 file system. Every call
  // above is refused on anything else: a plain directory's cgroup.procs is
  // just a file, and its pids are not the cgroup's.
  virtual bool on_cgroupfs(int dir_fd) = 0;
};

// The real system calls.
Effects& system_effects();

}  // namespace cgmem::cgroup
