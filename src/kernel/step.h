// One step of a kernel build: a program whose output (stdout and stderr)
// goes to the build log, waited for with a poll so a long step (make) can
// show progress and be stopped. The program runs in its own process group,
// so stopping it ends make's compilers too.
#pragma once

#include <csignal>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "common/error.h"

namespace cgmem::kernel {

struct StepRun {
  std::vector<std::string> argv;
  std::string cwd;
  std::string log;  // appended to
  // Called about once a second while the program runs.
  std::function<void()> tick;
  const volatile std::sig_atomic_t* stop = nullptr;
};

// The program's exit code (128 + signal when killed); an error only when it
// cannot be started. When `stop` is set the process group gets SIGTERM, then
// SIGKILL, and the result is 128 + SIGINT.
Result<int> run_step(const StepRun& step);

// The last lines of a log that look like an error ("error:", "Error ",
// "*** ", "No such file"), else its last line: what a failure message quotes.
std::string error_lines(const std::string& log_text, size_t max_lines = 3);

}  // namespace cgmem::kernel
