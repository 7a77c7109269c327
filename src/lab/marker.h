// The mark on every cgroup cgmem creates, so that `cgmem gc` removes what a
// killed driver left and never touches anything else. The mark is an
// extended attribute on the cgroup directory (cgroupfs keeps trusted.*
// xattrs, as systemd's trusted.invocation_id shows):
//   trusted.cgmem = "pid=4242 dir=/srv/batches/over-20261129T224027Z"
// naming the driver that created it. A cgroup without it is not cgmem's.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "cgroup/effects.h"
#include "common/error.h"

namespace cgmem::lab {

inline constexpr char kMarkAttr[] = "trusted.cgmem";

struct Mark {
  pid_t driver = 0;
  std::string run_dir;
};

// Through `effects` (the system's, or a test's double).
Result<void> set_mark(cgroup::Effects& effects, const std::string& cgroup_path, const Mark& mark);

// The mark, or nullopt when the directory has none (not cgmem's).
std::optional<Mark> read_mark(const std::string& cgroup_path);

// "pid=4242 dir=/x" <-> Mark.
std::string format_mark(const Mark& mark);
std::optional<Mark> parse_mark(std::string_view text);

// True while the driver `pid` still runs cgmem (its /proc/PID/exe is a
// file named cgmem or a cgmem own-code copy).
bool driver_alive(pid_t pid, const std::string& proc_root = "/proc");

}  // namespace cgmem::lab
