// How the matrix starts one run: behind an interface, so tests can record
// the calls and write run directories themselves, and the CLI can start
// `cgmem run` as a child process.
//
// Why a child and not lab::run_experiment in this process: each run then
// starts from a fresh process (no state, allocator growth or signal
// disposition carried from one run to the next), a crash ends one run, not
// the batch, and the run is exactly what `cgmem run` does by hand.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/error.h"

namespace cgmem::lab {

class Launcher {
 public:
  virtual ~Launcher() = default;
  // Runs `cgmem ARGS...` to the end; returns its exit code. `tick` is
  // called about every 200 ms while it runs (for the progress line).
  virtual Result<int> launch(const std::vector<std::string>& args, const std::function<void()>& tick) = 0;
};

// Starts `exe ARGS...` (the running cgmem) and waits for it.
class ChildLauncher : public Launcher {
 public:
  explicit ChildLauncher(std::string exe) : exe_(std::move(exe)) {}
  Result<int> launch(const std::vector<std::string>& args, const std::function<void()>& tick) override;

 private:
  std::string exe_;
};

}  // namespace cgmem::lab
