// /proc/self/cgroup (and /proc/PID/cgroup): one line per hierarchy,
// "ID:CONTROLLERS:PATH".
//
//   0::/lab/run1                      cgroup v2 (ID 0, no controller list)
//   4:memory:/process_api/3cd0...     cgroup v1, memory bound to v1
//   9:name=systemd:/                  v1 named hierarchy
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace cgmem::proc {

struct CgroupLine {
  unsigned hierarchy = 0;
  std::vector<std::string> controllers;  // empty for the v2 line
  std::string path;                      // relative to the hierarchy's mount
  bool operator==(const CgroupLine&) const = default;
};

struct ProcCgroups {
  std::vector<CgroupLine> lines;
  size_t malformed = 0;
  // The v2 path ("0::PATH"), if the process has one.
  std::optional<std::string> v2_path() const;
};

// Error when the text has no well-formed line.
Result<ProcCgroups> parse_proc_cgroup(std::string_view text, std::string_view source = "cgroup");

}  // namespace cgmem::proc
