// What the run driver acts on besides its run directory, passed in so that
// unit tests can run the driver's cap, interrupt and cleanup paths on a
// fixture tree (tests/lab/driver_test.cpp). Production uses the defaults:
// the real cgroupfs, /proc, /dev/kmsg, CLOCK_MONOTONIC and Cgroup::spawn.
#pragma once

#include <sys/types.h>

#include <string>

#include "cgroup/cgroup.h"
#include "common/clock.h"
#include "common/error.h"

namespace cgmem::lab {

// Starts a process inside a cgroup (the workload, the --load generator);
// the pid is the driver's child.
class Spawner {
 public:
  virtual ~Spawner() = default;
  virtual Result<pid_t> spawn(const cgroup::Cgroup& into, const cgroup::SpawnOptions& options) = 0;
};

// Cgroup::spawn: clone3 into the cgroup, or fork and join it.
Spawner& system_spawner();

struct DriverSystem {
  // The cgroup2 mount: the run's cgroup is named relative to it, as the
  // kernel log names it.
  std::string cgroup2_mount;
  // How cgroups are created, written, signalled and removed. Only a test's
  // Effects may treat a plain directory as a cgroup: the real one refuses.
  cgroup::Effects* cgroupfs = &cgroup::system_effects();
  std::string proc_root = "/proc";  // the sampler's per-process files
  std::string kmsg = "/dev/kmsg";   // the kernel's OOM lines
  Clock* clock = &monotonic_clock();
  Spawner* spawner = &system_spawner();
};

}  // namespace cgmem::lab
