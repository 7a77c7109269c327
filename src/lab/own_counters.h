// The workload's view of its own cgroup: memory.current and the memory.events
// `high` and `max` counters, read before and after every operation through
// file descriptors opened once (cgroup::FileReader), into a fixed buffer.
// No allocation per read. On a host with swap (a device in /proc/swaps) also
// memory.swap.current and memory.swap.events `high`, the counter
// memory.swap.high's throttle raises; without swap they are not read, so a
// run without swap costs what it did before.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cgroup/reader.h"
#include "common/error.h"
#include "lab/op_line.h"

namespace cgmem::lab {

// The cgroup directory of this process: its v2 path in /proc/self/cgroup
// under the cgroup2 mount. `proc_cgroup_text` is /proc/self/cgroup's text.
Result<std::string> own_cgroup_dir(const std::string& cgroup2_mount,
                                   std::string_view proc_cgroup_text);

// Where cgroup2 is mounted, from /proc/self/mountinfo.
Result<std::string> cgroup2_mount();

class OwnCounters {
 public:
  // Opens memory.current, memory.events and (when `writable_high`)
  // memory.high of the cgroup directory `dir`.
  static Result<OwnCounters> open(const std::string& dir, bool writable_high);

  // One pread of each file. Errors name the file.
  Result<Counters> read();

  // Writes `bytes` to memory.high (only when opened writable).
  Result<void> set_high(uint64_t bytes);

  const std::string& dir() const { return dir_; }

 private:
  OwnCounters() = default;
  std::string dir_;
  std::optional<cgroup::FileReader> current_, events_;
  std::optional<cgroup::FileReader> swap_current_, swap_events_;  // on a host with swap
  int high_fd_ = -1;  // closed by the process's exit; one per process
  char buffer_[512];  // memory.events is about 100 bytes
};

}  // namespace cgmem::lab
