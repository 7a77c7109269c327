// A cgroupfs stand-in on a plain temp directory, for running the run driver
// without a kernel's cgroups: the test-only Effects that lets a Cgroup act on
// a directory that is not cgroup2 (the real Effects refuses), and a Spawner
// that starts real processes in it. The pids in its cgroup.procs are this
// test's own children, so signals here are real. What it does in the
// kernel's place, and nothing more:
//   mkdir        a new cgroup gets the template's control files, no pids;
//   spawn        the child joins through cgroup.procs (clone3 refuses a
//                plain directory, so Process::start forks and the child
//                writes its pid), then cgroup.events says populated 1;
//   cgroup.kill  SIGKILL to every pid listed, then no pids, populated 0;
//   rmdir        EBUSY while pids are listed, else the directory goes.
#pragma once

#include <signal.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "../cgroup/recording_effects.h"
#include "cgroup/files.h"
#include "cgroup/lists.h"
#include "common/fd.h"
#include "lab/driver_system.h"

namespace cgmem::testing {

class FixtureCgroupfs final : public cgroup::Effects, public lab::Spawner {
 public:
  explicit FixtureCgroupfs(std::string child_template) : template_(std::move(child_template)) {}

  int make_dir(int parent_fd, const std::string& name) override {
    return make_fixture_cgroup(parent_fd, name, template_);
  }
  int remove_dir(const std::string& path) override {
    auto pids = cgroup::read_text(path + "/" + cgroup::files::kCgroupProcs);
    if (pids && !pids->empty()) return EBUSY;
    removed.push_back(path);
    std::filesystem::remove_all(path);  // cgroupfs removes the control files with the directory
    return 0;
  }
  int write_file(int dir_fd, const char* name, std::string_view text) override {
    if (std::string_view(name) == cgroup::files::kCgroupKill) return kill_all(dir_fd);
    return replace_at(dir_fd, name, text);
  }
  int send_signal(pid_t pid, int signal) override { return ::kill(pid, signal) == 0 ? 0 : errno; }
  int set_xattr(const std::string& path, const char* name, std::string_view value) override {
    xattrs[path][name] = std::string(value);
    return 0;
  }
  bool on_cgroupfs(int) override { return true; }

  Result<pid_t> spawn(const cgroup::Cgroup& into, const cgroup::SpawnOptions& options) override {
    argvs.push_back(options.argv);
    auto pid = into.spawn(options);
    if (!pid) return pid;
    pids.push_back(*pid);
    replace_at(into.fd(), cgroup::files::kCgroupEvents, "populated 1\nfrozen 0\n");
    return pid;
  }

  std::vector<std::string> removed;              // cgroup paths, in order
  std::vector<std::vector<std::string>> argvs;   // what was spawned
  std::vector<pid_t> pids;                       // and their pids
  std::map<std::string, std::map<std::string, std::string>> xattrs;  // path -> name -> value

 private:
  // The kernel's value replaces the old one; a missing file is ENOENT.
  static int replace_at(int dir_fd, const char* name, std::string_view text) {
    Fd fd(::openat(dir_fd, name, O_WRONLY | O_TRUNC | O_CLOEXEC));
    if (!fd.valid()) return errno;
    return ::write(fd.get(), text.data(), text.size()) == static_cast<ssize_t>(text.size()) ? 0 : errno;
  }
  int kill_all(int dir_fd) {
    auto text = cgroup::read_text_at(dir_fd, cgroup::files::kCgroupProcs, cgroup::files::kCgroupProcs);
    std::vector<pid_t> listed;
    if (text) listed = cgroup::parse_procs(*text, cgroup::files::kCgroupProcs).value_or(listed);
    for (pid_t pid : listed) ::kill(pid, SIGKILL);
    replace_at(dir_fd, cgroup::files::kCgroupProcs, "");
    return replace_at(dir_fd, cgroup::files::kCgroupEvents, "populated 0\nfrozen 0\n");
  }

  std::string template_;
};

}  // namespace cgmem::testing
