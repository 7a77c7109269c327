// The end of a cgroup's life: kill everything in it, wait until the kernel
// says it is empty, remove it.
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>

#include "cgroup/cgroup.h"
#include "cgroup/files.h"

namespace cgmem::cgroup {

namespace {

// SIGKILL each pid not killed yet; returns false when none was new.
bool kill_new(Effects& effects, const std::vector<pid_t>& pids, std::vector<pid_t>& killed) {
  bool any = false;
  for (pid_t pid : pids) {
    if (std::find(killed.begin(), killed.end(), pid) != killed.end()) continue;
    effects.send_signal(pid, SIGKILL);  // ESRCH: it exited on its own
    killed.push_back(pid);
    any = true;
  }
  return any;
}

}  // namespace

Result<void> Cgroup::kill_all() const {
  if (auto ok = require_cgroupfs("kill every process"); !ok) return ok;
  int err = effects_->write_file(fd_.get(), files::kCgroupKill, "1");
  if (err == 0) return {};
  if (err != ENOENT) return std::unexpected(write_error(files::kCgroupKill, "1", err));
  // No cgroup.kill before 5.14: signal each pid, and again for pids that
  // were forked meanwhile, until a pass finds no new one.
  std::vector<pid_t> killed;
  for (int pass = 0; pass < 100; ++pass) {
    auto pids = procs();
    if (!pids) return std::unexpected(pids.error());
    if (!kill_new(*effects_, *pids, killed)) return {};
  }
  return fail("kill every process", file_path(files::kCgroupProcs),
              "new processes kept appearing after 100 passes of SIGKILL");
}

Result<void> Cgroup::wait_empty(std::chrono::milliseconds timeout) const {
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + timeout;
  // The kernel signals a change of cgroup.events to inotify (IN_MODIFY).
  // Without inotify the 100 ms re-read below still gets there.
  Fd watch(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
  int watch_fd = watch.get();
  if (watch_fd >= 0) ::inotify_add_watch(watch_fd, file_path(files::kCgroupEvents).c_str(), IN_MODIFY);
  Result<void> result;
  for (;;) {
    auto populated_now = populated();
    if (!populated_now) {
      result = std::unexpected(populated_now.error());
      break;
    }
    if (!*populated_now) break;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      result = std::unexpected(Error{"wait for the cgroup to empty", ETIMEDOUT,
                                     file_path(files::kCgroupEvents),
                                     "still populated after " + std::to_string(timeout.count()) +
                                         " ms: something in it survived SIGKILL (D state?)"});
      break;
    }
    if (watch_fd >= 0) {
      pollfd p{watch_fd, POLLIN, 0};
      ::poll(&p, 1, static_cast<int>(std::min<long>(left.count(), 100)));
      char drain[4096];
      while (::read(watch_fd, drain, sizeof drain) > 0) {
      }
    } else {
      ::usleep(static_cast<useconds_t>(std::min<long>(left.count(), 100)) * 1000);
    }
  }
  return result;
}

Result<void> Cgroup::remove() const {
  if (auto ok = require_cgroupfs("remove cgroup"); !ok) return ok;
  if (int err = effects_->remove_dir(path_); err != 0) {
    std::string hint = err == EBUSY ? "it still has processes or child cgroups: kill_all and "
                                      "wait_empty first, and remove the children"
                       : err == ENOTEMPTY ? "it is not a cgroup directory (a plain directory "
                                            "with files in it)"
                                          : "";
    return std::unexpected(Error{"remove cgroup", err, path_, hint});
  }
  return {};
}

}  // namespace cgmem::cgroup
