// cgmem's exit codes, in one place: the CLI returns them, and the matrix
// reads them back from the `cgmem run` it starts. `cgmem vm` passes the
// inner command's code through unchanged, so these are also what a guest
// run returns.
#pragma once

namespace cgmem {

enum ExitCode : int {
  kOk = 0,
  kFailure = 1,       // the command ran and failed (an Error was printed)
  kUsage = 2,         // bad flags or arguments
  kUnavailable = 3,   // the host cannot do this (no cgroup v2 memory controller to create cgroups in, no qemu)
  // Nothing to watch: the tree `cgmem watch --count`, `top --once` or
  // `exporter --once` was given has no cgroup v2 memory controller (a
  // cgroup v1 or hybrid host, no cgroup2 mount, a --root without
  // memory.current). The reason is on stderr and in the output.
  kNoMemoryController = 4,
  kInterrupted = 130, // SIGINT: the command cleaned up and stopped
};

}  // namespace cgmem
