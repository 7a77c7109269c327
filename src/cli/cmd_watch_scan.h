// What `cgmem watch` and `cgmem top` share: the tree flags, opening a
// scanner on the live tree or on a snapshot, the clock, and SIGINT/SIGTERM.
#pragma once

#include "common/clock.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <csignal>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "watch/scanner.h"
#include "watch/snapshot.h"

namespace cgmem::cli {

struct TreeFlags {
  std::string root;          // "" = the cgroup2 mount
  int depth = -1;
  std::string match;
  std::string interval = "1s";
  unsigned hz = 0;           // 0 = the host's
  // A quiet cgroup's full read at least this often (watch/scanner.h); "0":
  // every file at every scan. A command sets its default before add_tree_flags.
  std::string full_read_every = "30s";
  // About a page of kernel memory each once read (docs/watch.md): 128 MiB
  // at most, every sentinel of 16,000 cgroups, everything of 2,500.
  size_t max_open_files = 32768;
};

// --root, --depth, --match, --interval, --hz, --full-read-every, --max-open-files.
void add_tree_flags(CLI::App& app, TreeFlags& flags);

// The options for the live tree: the root (the cgroup2 mount by default),
// HZ and page size of this host. Errors say what to do (kUnavailable when
// there is no cgroup2 mount). Sets *interval_ns.
struct TreeSetup {
  watch::ScanOptions options;
  uint64_t interval_ns = 0;
  int exit_code = 0;  // when options could not be made: the code to return (message printed)
  std::optional<std::string> memory_v1_mount;  // the host's, for nothing_to_watch()
};
TreeSetup live_setup(const TreeFlags& flags);

// After a scan that gave no row: why the tree cannot be watched (no cgroup
// v2 memory controller under it: host/watchable.h), or nullopt when there
// were rows or --match or --depth left every cgroup out.
std::optional<std::string> nothing_to_watch(const TreeSetup& setup, size_t rows);

// Says so on stderr: an error (`cgmem: error: ...`) for the one-shot forms,
// which then exit kNoMemoryController, a warning for those that go on
// scanning (the controller may be enabled later).
void say_nothing_to_watch(std::string_view command, const std::string& reason, bool error);

// The JSON line `watch --json` and `top --once --json` print for it.
nlohmann::json nothing_to_watch_json(const std::string& root, const std::string& reason, double unix_time_s);

// A snapshot replayed with the tree flags (depth, match, hz).
Result<watch::Replay> replay_snapshot(const std::string& dir, const TreeFlags& flags);

}  // namespace cgmem::cli
