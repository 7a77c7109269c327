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

#include "common/fd.h"

namespace cgmem::lab {

void neighbour_loop(unsigned cpu, uint64_t interval_ns) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  ::sched_setaffinity(0, sizeof set, &set);
  timespec next;
  ::clock_gettime(CLOCK_MONOTONIC, &next);
  for (;;) {
    void* p = ::mmap(nullptr, kNeighbourBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
      std::memset(p, 0x5a, kNeighbourBytes);
      ::munmap(p, kNeighbourBytes);
    }
    uint64_t ns = static_cast<uint64_t>(next.tv_nsec) + interval_ns;
    next.tv_sec += static_cast<time_t>(ns / 1'000'000'000ULL);
    next.tv_nsec = static_cast<long>(ns % 1'000'000'000ULL);
    ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr);
  }
}

Result<pid_t> start_neighbour(const cgroup::Cgroup& into, unsigned cpu, uint64_t interval_ns) {
  int go_fds[2];
  if (::pipe2(go_fds, O_CLOEXEC) != 0) return sys_error("create a pipe for the neighbour");
  Fd go_in(go_fds[0]), go_out(go_fds[1]);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) return sys_error("fork the neighbour");
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the driver
    if (::getppid() != parent) ::_exit(1);
    go_out.reset();
    char byte;
    if (::read(go_in.get(), &byte, 1) != 1) ::_exit(1);  // the driver failed to move it
    neighbour_loop(cpu, interval_ns);
  }
  go_in.reset();
  auto moved = into.move(pid);
  if (!moved) {
    go_out.reset();
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return std::unexpected(moved.error());
  }
  char byte = 1;
  ssize_t n = ::write(go_out.get(), &byte, 1);
  go_out.reset();
  if (n != 1) return sys_error("start the neighbour");
  return pid;
}

}  // namespace cgmem::lab
