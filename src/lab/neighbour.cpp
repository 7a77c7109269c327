#include "lab/neighbour.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <fmt/format.h>

#include "common/clock.h"
#include "common/fd.h"

namespace cgmem::lab {
namespace {

void charge_once() {
  void* p = ::mmap(nullptr, kNeighbourBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return;
  std::memset(p, 0x5a, kNeighbourBytes);
  ::munmap(p, kNeighbourBytes);
}

timespec to_timespec(uint64_t ns) {
  return {.tv_sec = static_cast<time_t>(ns / 1'000'000'000ULL), .tv_nsec = static_cast<long>(ns % 1'000'000'000ULL)};
}

void kill_all(const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) ::kill(pid, SIGKILL);
  for (pid_t pid : pids) TEMP_FAILURE_RETRY(::waitpid(pid, nullptr, 0));
}

// In the child: waits for the driver to move it, pins itself, charges once,
// says so, and loops. Never returns.
[[noreturn]] void run_child(pid_t parent, Fd go_in, Fd ready_out, unsigned cpu, uint64_t first_ns,
                            uint64_t interval_ns) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the driver
  if (::getppid() != parent) ::_exit(1);
  char byte;
  if (TEMP_FAILURE_RETRY(::read(go_in.get(), &byte, 1)) != 1) ::_exit(1);  // the driver failed to move it
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  ::sched_setaffinity(0, sizeof set, &set);
  charge_once();
  if (::write(ready_out.get(), &byte, 1) != 1) ::_exit(1);
  go_in.reset(), ready_out.reset();
  neighbour_loop(first_ns, interval_ns);
}

// One neighbour into `into`; returns once it has charged once.
Result<pid_t> start_one(const cgroup::Cgroup& into, unsigned cpu, uint64_t first_ns, uint64_t interval_ns) {
  int go_fds[2], ready_fds[2];
  if (::pipe2(go_fds, O_CLOEXEC) != 0) return sys_error("create a pipe for the neighbour");
  Fd go_in(go_fds[0]), go_out(go_fds[1]);
  if (::pipe2(ready_fds, O_CLOEXEC) != 0) return sys_error("create a pipe for the neighbour");
  Fd ready_in(ready_fds[0]), ready_out(ready_fds[1]);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) return sys_error("fork the neighbour");
  if (pid == 0) {
    go_out.reset(), ready_in.reset();
    run_child(parent, std::move(go_in), std::move(ready_out), cpu, first_ns, interval_ns);
  }
  go_in.reset(), ready_out.reset();
  auto moved = into.move(pid);
  if (!moved) {
    kill_all({pid});
    return std::unexpected(moved.error());
  }
  char byte = 1;
  ssize_t n = ::write(go_out.get(), &byte, 1);
  go_out.reset();
  ssize_t ready = n == 1 ? TEMP_FAILURE_RETRY(::read(ready_in.get(), &byte, 1)) : -1;
  if (ready == 1) return pid;
  kill_all({pid});
  return fail(fmt::format("start the neighbour in {}: it ended before its first charge", into.path()), {},
              "a neighbour needs 64 KiB of memory in its cgroup; see the kernel log");
}

}  // namespace

uint64_t neighbour_offset_ns(unsigned k, unsigned n, uint64_t interval_ns) {
  if (n == 0) return 0;
  // interval_ns is at most a day (parse_duration): interval * k fits in 128 bits, not always in 64.
  return static_cast<uint64_t>(static_cast<unsigned __int128>(interval_ns) * k / n);
}

std::vector<std::string> neighbour_cgroup_names(const std::string& name, unsigned n) {
  if (n == 1) return {name + "-neighbour"};
  std::vector<std::string> names;
  for (unsigned k = 1; k <= n; ++k) names.push_back(fmt::format("{}-neighbour-{}", name, k));
  return names;
}

void neighbour_loop(uint64_t first_ns, uint64_t interval_ns) {
  uint64_t next = first_ns;
  for (;;) {
    timespec at = to_timespec(next);
    ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr);
    charge_once();
    next += interval_ns;
    // Late (a slow start, a busy CPU): skip whole intervals, keep the phase, never burst.
    if (uint64_t now = now_ns(); next <= now) next += (now - next) / interval_ns * interval_ns + interval_ns;
  }
}

Result<std::vector<pid_t>> start_neighbours(const std::vector<cgroup::Cgroup>& into, unsigned cpu,
                                            uint64_t interval_ns) {
  // The phases count from one origin, a whole interval ahead, so every
  // neighbour has started and made its first charge before its phase comes.
  uint64_t origin = now_ns() + interval_ns;
  unsigned n = static_cast<unsigned>(into.size());
  std::vector<pid_t> pids;
  for (unsigned k = 0; k < n; ++k) {
    auto pid = start_one(into[k], cpu, origin + neighbour_offset_ns(k, n, interval_ns), interval_ns);
    if (!pid) {
      kill_all(pids);
      return std::unexpected(pid.error());
    }
    pids.push_back(*pid);
  }
  return pids;
}

}  // namespace cgmem::lab
