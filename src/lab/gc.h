// `cgmem gc`: removes the cgroups that a driver killed with SIGKILL left.
// Only cgroups that carry cgmem's mark (marker.h) are touched, and only when
// the driver named in the mark is no longer running.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/error.h"

namespace cgmem::lab {

struct GcEntry {
  std::string cgroup;  // full path
  pid_t driver = 0;
  std::string run_dir;
  std::string action;  // "removed", "would remove", "in use", "failed: ..."
};

// Looks at the direct children of `parent`. With dry_run it only reports.
// `proc_root` is where driver_alive looks ("/proc").
Result<std::vector<GcEntry>> collect_garbage(const std::string& parent, bool dry_run,
                                             const std::string& proc_root = "/proc");

// The cgroup runs go under when --parent is not given: the VM's
// MOUNT/cgmem when it exists, else the cgroup this process runs in.
std::string default_parent(const std::string& cgroup2_mount, const std::string& own_cgroup);

}  // namespace cgmem::lab
