// /proc/self/mountinfo: where cgroup file systems are mounted.
//
//   41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
//   35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
//
// Fields: id, parent, MAJ:MIN, root, mount point, options, optional fields
// ending at "-", then fs type, source, super options. Spaces in paths are
// written as \040 (and tab, newline, backslash as \011 \012 \134).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cgmem::cgroup {

struct Mount {
  std::string mount_point;
  std::string fs_type;
  std::string super_options;  // for cgroup v1: "rw,memory"
};

// The mounts, in file order; malformed lines are skipped. Never fails.
std::vector<Mount> parse_mountinfo(std::string_view text);

// The first cgroup2 mount point, if any.
std::optional<std::string> cgroup2_mount(const std::vector<Mount>& mounts);

// The cgroup v1 mount that holds controller ("memory"), if any.
std::optional<std::string> cgroup1_mount(const std::vector<Mount>& mounts,
                                         std::string_view controller);

}  // namespace cgmem::cgroup
