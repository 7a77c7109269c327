#include "lab/matrix/launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

namespace cgmem::lab {

Result<int> ChildLauncher::launch(const std::vector<std::string>& args, const std::function<void()>& tick) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(exe_.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // The run's summary block goes to /dev/null: its run directory holds it,
  // the matrix prints a progress line per run, and in the VM the guest's
  // stdout would print every block again after collecting. stderr (errors)
  // stays.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, exe_.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    errno = rc;
    return sys_error("start `cgmem run`", exe_, "check that the cgmem binary is still there");
  }
  bool signalled = false;
  for (;;) {
    if (stop_ && *stop_ && !signalled) kill(pid, SIGTERM), signalled = true;
    int status = 0;
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      if (WIFEXITED(status)) return WEXITSTATUS(status);
      return 128 + WTERMSIG(status);
    }
    if (done < 0 && errno != EINTR) return sys_error("wait for `cgmem run`", exe_);
    if (tick) tick();
    timespec pause{0, 200'000'000};
    nanosleep(&pause, nullptr);
  }
}

}  // namespace cgmem::lab
