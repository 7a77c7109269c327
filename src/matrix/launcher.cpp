#include "matrix/launcher.h"

#include <signal.h>

#include <chrono>

#include "common/process.h"

namespace cgmem::matrix {

Result<int> ChildLauncher::launch(const std::vector<std::string>& args, const std::function<void()>& tick) {
  std::vector<std::string> argv{exe_};
  argv.insert(argv.end(), args.begin(), args.end());
  // The run's summary block goes to /dev/null: its run directory holds it,
  // the matrix prints a progress line per run, and in the VM the guest's
  // stdout would print every block again after collecting. stdin and stderr
  // (errors) stay.
  auto run = Process::start({.argv = std::move(argv),
                             .stdin_fd = kInherit,
                             .stdout_fd = kDevNull,
                             .what = "start `cgmem run`",
                             .error_path = exe_,
                             .hint = "check that the cgmem binary is still there"});
  if (!run) return std::unexpected(run.error());
  bool signalled = false;
  for (;;) {
    if (stop_ && *stop_ && !signalled) run->signal(SIGTERM), signalled = true;
    if (auto code = run->wait_for(std::chrono::milliseconds(200))) return *code;
    if (tick) tick();
  }
}

}  // namespace cgmem::matrix
