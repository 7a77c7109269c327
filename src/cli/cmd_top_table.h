// The table `cgmem top` shows, as plain lines: the same text on a terminal
// (ncurses, cmd_top.cpp) and in `--once` (stdout). 80 columns at least; a
// wider terminal gives the cgroup column the extra room.
//
//   CGROUP            STATE      CURRENT   HIGH    MAX SLP/S SLEEP >MAX   PSI RFLT/
//   /cgmem/thr        throttled    29.1M  28.8M    32M  20.0  54ms 3.2m 98/98     0
//     D 158 w: mem_cgroup_handle_over_high
#pragma once

#include <span>
#include <string>
#include <vector>

#include "watch/scanner.h"

namespace cgmem::cli {

enum class TopSort { severity, current, path };

struct TopLine {
  std::string text;
  watch::State state = watch::State::ok;
  bool header = false;  // the column titles
  bool detail = false;  // a row's tasks in D, under it
  size_t state_column = 0, state_width = 0;  // where the state word is (for colour)
};

// Rows sorted (by severity, then how far over memory.high, then path; or as
// chosen) and filtered (substring of the path; "" keeps all).
std::vector<const watch::Row*> sorted_rows(std::span<const watch::Row> rows, TopSort sort,
                                           const std::string& filter);

std::vector<TopLine> top_lines(std::span<const watch::Row* const> rows, size_t width);

// "29.1M", "512K", "32M", "1.5G", "max": at most 6 characters.
std::string compact_bytes(uint64_t bytes);

}  // namespace cgmem::cli
