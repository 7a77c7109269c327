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
  kUnavailable = 3,   // the host cannot do this (no cgroup v2 memory controller, no qemu)
  kInterrupted = 130, // SIGINT: the command cleaned up and stopped
};

}  // namespace cgmem
