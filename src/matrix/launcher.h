// How the matrix starts one run: behind an interface, so tests can record
// the calls and write run directories themselves, and the CLI can start
// `cgmem run` as a child process.
//
// Why a child and not lab::run_experiment in this process: each run then
// starts from a fresh process (no state, allocator growth or signal
// disposition carried from one run to the next), a crash ends one run, not
// the batch, and the run is exactly what `cgmem run` does by hand.
#pragma once

#include <csignal>
#include <functional>
#include <string>
#include <vector>

#include "common/error.h"

namespace cgmem::matrix {

class Launcher {
 public:
  virtual ~Launcher() = default;
  // Runs `cgmem ARGS...` to the end; returns its exit code. `tick` is
  // called about every 200 ms while it runs (for the progress line).
  virtual Result<int> launch(const std::vector<std::string>& args, const std::function<void()>& tick) = 0;
};

// Starts `exe ARGS...` (the running cgmem) and waits for it. When *stop
// becomes set (the matrix got SIGINT/SIGTERM), the child gets SIGTERM once
// and is waited for, so it can write its outcome.json and remove its cgroup.
class ChildLauncher : public Launcher {
 public:
  ChildLauncher(std::string exe, const volatile std::sig_atomic_t* stop) : exe_(std::move(exe)), stop_(stop) {}
  Result<int> launch(const std::vector<std::string>& args, const std::function<void()>& tick) override;

 private:
  std::string exe_;
  const volatile std::sig_atomic_t* stop_;
};

}  // namespace cgmem::matrix
