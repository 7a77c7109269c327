#include "watch/tasks.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <fmt/format.h>

#include "cgroup/files.h"
#include "common/text.h"
#include "common/fd.h"
#include "common/file.h"
#include "proc/stat.h"
#include "proc/wchan.h"

namespace cgmem::watch {
namespace {

// Reads a whole small file into buffer; "" on any failure. Opened as every
// file of a tree is (non-blocking, no symlink, regular only). A file that
// fills the buffer is cut at its last whole line: cgroup.procs of more tasks
// than the buffer holds lists the first of them (Tasks::total says "of").
std::string_view read_at(int dir_fd, const char* name, std::span<char> buffer) {
  Fd fd = open_tree_file(dir_fd, name);
  if (!fd.valid()) return {};
  ssize_t n = ::pread(fd.get(), buffer.data(), buffer.size(), 0);
  if (n <= 0) return {};
  std::string_view text(buffer.data(), size_t(n));
  if (size_t(n) == buffer.size()) text = text.substr(0, text.rfind('\n') + 1);
  return text;
}

template <size_t N>
void copy_into(std::array<char, N>& to, std::string_view from) {
  size_t n = std::min(from.size(), N - 1);
  std::copy_n(from.data(), n, to.data());
  to[n] = '\0';
}

// Reads one task's stat and wchan; false when it is gone or unreadable.
bool read_task(std::string_view proc_root, pid_t pid, Task& out) {
  char path[256];
  std::array<char, 1024> buffer;
  auto end = fmt::format_to_n(path, sizeof path - 1, "{}/{}/stat", proc_root, pid);
  *end.out = '\0';
  auto stat = proc::parse_proc_stat(read_at(AT_FDCWD, path, buffer));
  if (!stat) return false;
  out.pid = pid;
  out.state = stat->state;
  copy_into(out.comm, stat->comm);
  if (out.state != 'D') return true;
  end = fmt::format_to_n(path, sizeof path - 1, "{}/{}/wchan", proc_root, pid);
  *end.out = '\0';
  copy_into(out.wchan, proc::parse_wchan(read_at(AT_FDCWD, path, buffer)));
  return true;
}

}  // namespace

Tasks read_tasks(int dir_fd, std::string_view proc_root, std::span<char> scratch) noexcept {
  Tasks tasks;
  tasks.read = true;
  std::string_view pids = read_at(dir_fd, cgroup::files::kCgroupProcs, scratch);
  while (!pids.empty()) {
    auto pid = to_u64(trim_end(next_line(pids)));
    Task task;
    if (!pid || *pid == 0 || *pid > (uint64_t{1} << 22) || !read_task(proc_root, pid_t(*pid), task)) continue;
    ++tasks.total;
    if (task.state != 'D') continue;
    ++tasks.in_d;
    if (task.wchan_view() == kOverHighWchan) ++tasks.over_high;
    if (tasks.listed < Tasks::kListed) tasks.d[tasks.listed++] = task;
  }
  return tasks;
}

}  // namespace cgmem::watch
