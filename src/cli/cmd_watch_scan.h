// What `cgmem watch` and `cgmem top` share: the tree flags, opening a
// scanner on the live tree or on a snapshot, the clock, and SIGINT/SIGTERM.
#pragma once

#include "common/clock.h"

#include <CLI/CLI.hpp>
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
};

// --root, --depth, --match, --interval, --hz.
void add_tree_flags(CLI::App& app, TreeFlags& flags);

// The options for the live tree: the root (the cgroup2 mount by default),
// HZ and page size of this host. Errors say what to do (kUnavailable when
// there is no cgroup2 mount). Sets *interval_ns.
struct TreeSetup {
  watch::ScanOptions options;
  uint64_t interval_ns = 0;
  int exit_code = 0;  // when options could not be made: the code to return (message printed)
};
TreeSetup live_setup(const TreeFlags& flags);

// A snapshot replayed with the tree flags (depth, match, hz).
Result<watch::Replay> replay_snapshot(const std::string& dir, const TreeFlags& flags);

// The wall clock, in seconds (CLOCK_MONOTONIC is common/clock.h's now_ns).
double unix_time_s();

}  // namespace cgmem::cli
