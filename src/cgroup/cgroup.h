// A handle on one cgroup v2 directory: one directory fd, control files
// opened with openat, the inode recorded at open so a cgroup removed and
// recreated under the same name is told apart (is_same()).
//
// The root is whatever path the caller opens: the cgroup2 mount, a cgroup
// delegated to the user, or in tests a fixture tree copied to a temp dir.
// Side effects (mkdir, rmdir, writes, signals) go through Effects.
//
// Typical use (the lab's run driver):
//   auto root = Cgroup::open("/sys/fs/cgroup");
//   root->enable_controllers({"memory", "io"});
//   auto run = root->create_child("cgmem-run1");
//   run->set_limit(files::kMemoryHigh, Limit::of(30 << 20));  // -> 31457280, page-rounded
//   auto pid = run->spawn({.argv = {"cgmem", "workload", ...}});
//   ... run->kill_all(); run->wait_empty(5s); run->remove();
#pragma once

#include <sys/types.h>

#include <chrono>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cgroup/effects.h"
#include "cgroup/flat_keyed.h"
#include "cgroup/nested_keyed.h"
#include "cgroup/pressure.h"
#include "cgroup/reader.h"
#include "common/error.h"
#include "common/fd.h"
#include "common/size.h"

namespace cgmem::cgroup {

struct SpawnOptions {
  std::vector<std::string> argv;              // argv[0] is looked up in PATH
  int stdin_fd = -1, stdout_fd = -1, stderr_fd = -1;  // -1: inherit
};

// How spawn() put the child into the cgroup.
enum class SpawnMethod { clone_into_cgroup, fork_and_move };

class Cgroup {
 public:
  // Opens an existing cgroup directory.
  static Result<Cgroup> open(const std::string& path, Effects& effects = system_effects());

  // A child name is one path component: not empty, not "." or "..", no '/'
  // or NUL. The error quotes the name.
  static Result<void> check_name(std::string_view name);

  // mkdir PATH/name and open it. An existing child is an error (EEXIST).
  Result<Cgroup> create_child(std::string_view name) const;

  // An error unless this directory is on a cgroup2 file system. Reading
  // works anywhere (a saved copy of a tree); every method that creates,
  // writes, signals or removes checks this first.
  Result<void> require_cgroupfs(std::string_view action) const;

  // cgroup.controllers / cgroup.subtree_control as words.
  Result<std::vector<std::string>> controllers() const;
  Result<std::vector<std::string>> subtree_control() const;
  // Writes "+memory +io" to this cgroup's cgroup.subtree_control, so its
  // children get memory.* and io.* files. Names already enabled are skipped.
  Result<void> enable_controllers(std::initializer_list<std::string_view> names) const;

  // A limit file (files::kMemoryMax, kMemoryHigh, kMemoryLow, kMemoryMin,
  // kMemorySwapMax, kMemorySwapHigh): bytes or "max".
  Result<Limit> read_limit(const char* file) const;
  // Writes value and returns what the kernel kept (page-rounded down).
  // nonblocking: through O_NONBLOCK, so a lowered memory.high or memory.max
  // is not reclaimed down to in this call (6.16+; older kernels ignore it).
  Result<Limit> set_limit(const char* file, Limit value, bool nonblocking = false) const;

  // io.max entries, and one device's entry after writing it (the fields
  // left empty in `entry` keep their value).
  Result<std::vector<IoMax>> read_io_max() const;
  Result<IoMax> set_io_max(const IoMax& entry) const;

  // Counters and flat-keyed files.
  Result<uint64_t> read_counter(const char* file) const;  // memory.current, memory.peak
  Result<MemoryEvents> memory_events() const;
  Result<MemoryStat> memory_stat() const;
  Result<CgroupEvents> cgroup_events() const;
  Result<Pressure> pressure(const char* file) const;      // files::kMemoryPressure, ...
  Result<std::vector<pid_t>> procs() const;
  // populated from cgroup.events (error when the key is missing).
  Result<bool> populated() const;

  // Starts argv in this cgroup: clone3(CLONE_INTO_CGROUP) where the kernel
  // has it, else fork and write the child's pid to cgroup.procs before exec.
  // The pid is the caller's child (waitpid it). `method` reports which way.
  Result<pid_t> spawn(const SpawnOptions& options, SpawnMethod* method = nullptr) const;
  // Moves an existing process in (writes its pid to cgroup.procs).
  Result<void> move(pid_t pid) const;

  // Kills every process: writes 1 to cgroup.kill (5.14+), else sends
  // SIGKILL to each pid in cgroup.procs until no new pid shows up.
  Result<void> kill_all() const;
  // Waits until cgroup.events says "populated 0" (inotify on cgroup.events,
  // re-read at least every 100 ms); ETIMEDOUT error after timeout.
  Result<void> wait_empty(std::chrono::milliseconds timeout) const;
  // rmdir. The cgroup must be empty (no processes, no children).
  Result<void> remove() const;

  // Whole-file reads and writes of any control file, and a preopened reader.
  Result<std::string> read(const char* file) const;
  Result<void> write(const char* file, std::string_view text, bool nonblocking = false) const;
  Result<FileReader> reader(const char* file) const;

  // True when PATH is still the directory opened (same inode and device).
  bool is_same() const;

  int fd() const { return fd_.get(); }
  const std::string& path() const { return path_; }
  ino_t inode() const { return inode_; }

  Cgroup(Cgroup&&) noexcept = default;
  Cgroup& operator=(Cgroup&&) noexcept = default;

 private:
  Cgroup(Fd fd, std::string path, ino_t inode, dev_t dev, Effects& effects)
      : fd_(std::move(fd)), path_(std::move(path)), inode_(inode), dev_(dev), effects_(&effects) {}
  std::string file_path(const char* file) const { return path_ + "/" + file; }
  Error write_error(const char* file, std::string_view text, int err) const;

  Fd fd_;  // the cgroup's directory
  std::string path_;
  ino_t inode_ = 0;
  dev_t dev_ = 0;
  Effects* effects_ = nullptr;
};

}  // namespace cgmem::cgroup
