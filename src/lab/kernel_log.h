// The kernel's OOM lines for one cgroup, from /dev/kmsg. Opened (and moved
// to the end) before the workload starts, read without blocking after it
// ends. An OOM kill in a memory cgroup logs, among the memory dump:
//   oom-kill:constraint=CONSTRAINT_MEMCG,...,oom_memcg=/cgmem/over,task_memcg=/cgmem/over,task=cgmem,pid=311,uid=0
//   Memory cgroup out of memory: Killed process 311 (cgmem) total-vm:...
//   oom_reaper: reaped process 311 (cgmem), now anon-rss:0kB, ...
// Kept: every record that names the cgroup, and the "Killed process" and
// "oom_reaper" records that follow an oom-kill record that named it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/fd.h"

namespace cgmem::lab {

class KernelLog {
 public:
  // Opens /dev/kmsg (or `path`) at its end. Without permission the log is
  // simply empty (the run records that).
  explicit KernelLog(const std::string& path = "/dev/kmsg");

  bool is_open() const { return fd_.valid(); }
  // Reads everything logged since the open and keeps the lines about the
  // cgroup whose path relative to the cgroup2 mount is `cgroup` ("/cgmem/over").
  std::vector<std::string> collect(std::string_view cgroup);

 private:
  Fd fd_;
};

// The filter on its own: `messages` are the text of kmsg records in order.
std::vector<std::string> oom_lines_for(const std::vector<std::string>& messages,
                                       std::string_view cgroup);

}  // namespace cgmem::lab
