// The tasks of a cgroup that are asleep in state D, with the kernel function
// each waits in (/proc/PID/wchan): a throttled task waits in
// mem_cgroup_handle_over_high, a thrashing one in folio_wait_bit_common (the
// study). Read only for cgroups that show pressure, never allocates: the pid
// list is read into a caller's buffer and each /proc file is opened with a
// path on the stack, read once and closed.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace cgmem::watch {

inline constexpr std::string_view kOverHighWchan = "mem_cgroup_handle_over_high";

struct Task {
  pid_t pid = 0;
  char state = '?';
  std::array<char, 16> comm{};   // TASK_COMM_LEN, NUL-terminated
  std::array<char, 48> wchan{};  // NUL-terminated; "" when not waiting

  std::string_view comm_view() const { return comm.data(); }
  std::string_view wchan_view() const { return wchan.data(); }
};

struct Tasks {
  static constexpr size_t kListed = 4;
  bool read = false;            // the scan looked (only for cgroups under pressure)
  uint32_t total = 0;           // processes in cgroup.procs (of its first 16 KiB, the scan's buffer)
  uint32_t in_d = 0;            // of them in state D
  uint32_t over_high = 0;       // of them in D in mem_cgroup_handle_over_high
  uint32_t listed = 0;          // entries of `d` filled, the first kListed in D
  std::array<Task, kListed> d{};
};

// Reads cgroup.procs through dir_fd (the cgroup's directory) into scratch,
// then PROC_ROOT/PID/stat and wchan for each pid. A vanished process or
// cgroup reads as fewer tasks, never an error.
Tasks read_tasks(int dir_fd, std::string_view proc_root, std::span<char> scratch) noexcept;

}  // namespace cgmem::watch
