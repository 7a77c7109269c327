// A matrix spec (TOML; docs/matrix.md): which limit sets ("configs") to run
// which workloads under, how many times, with which `cgmem run` options.
//
//   name = "quick"
//   claim = "CLAIM.md"        # optional: pre-registered claim, hashed into every run
//   kernel = "hz1000"         # optional: the VM boots this kernel (cgmem kernel build)
//   reps = 3
//   order = "fixed"           # or "shuffle" (with seed)
//   [defaults]                # `cgmem run` options for every run
//   cap = "5s"
//   [[configs]]
//   name = "max"
//   max = "32M"
//   [[workloads]]
//   name = "anon-over"
//   args = ["--target", "40M"]
//   [[workloads]]             # or the user's own program (docs/own-program.md)
//   name = "redis"
//   command = ["redis-server", "--port", "6379"]
//   load = ["redis-benchmark", "-t", "set", "--csv"]
//   ready_tcp = 6379
//   programs = ["redis-server", "redis-benchmark"]   # for --vm, when load is a shell loop
//
// Options merge defaults, then the config, then the workload (the last wins;
// "" removes an option set before).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"

namespace cgmem::lab {

// `cgmem run` options by spec key (max, high, cap, cpu, ...), as text.
using RunFlags = std::map<std::string, std::string>;

struct ConfigSpec {
  std::string name;
  RunFlags flags;
};

struct WorkloadSpec {
  std::string name;
  std::vector<std::string> args;     // `cgmem workload` options; {batch} is the batch directory
  std::vector<std::string> command;  // instead of args: `cgmem run --command -- COMMAND`
  std::vector<std::string> load;     // with command: `--load -- LOAD`
  std::vector<std::string> programs; // host programs `matrix --vm` brings in (default: command[0], load[0])
  RunFlags flags;
  std::vector<std::string> configs;  // empty: every config
  std::optional<int> reps;           // empty: the spec's
};

struct MatrixSpec {
  std::string name;
  std::string path;                  // the spec file
  std::optional<std::string> claim;  // absolute path of the claim file
  std::optional<std::string> kernel; // the VM's kernel: a cached name (hz1000-throttle) or a bzImage
  int reps = 3;
  bool shuffle = false;
  uint64_t seed = 1;
  RunFlags defaults;
  std::vector<ConfigSpec> configs;
  std::vector<WorkloadSpec> workloads;
};

// Parses and checks a spec; `path` names it in messages and anchors a
// relative claim path. Unknown keys are errors (a typo would silently drop a
// limit otherwise).
Result<MatrixSpec> parse_spec(std::string_view text, const std::string& path);
Result<MatrixSpec> load_spec(const std::string& path);

// The `cgmem run` flag for a spec key ("swap_max" -> "--swap-max"), or empty
// when the key is not a run option.
std::string run_flag(const std::string& key);

// A limit given as "N%" of the same run's max ("90%" with max 256M), in
// bytes rounded down to a 4 KiB page as the kubelet does; nullopt when there
// is no max in bytes or the text is not a share.
std::optional<std::string> resolve_percent(const RunFlags& flags, const std::string& key);

// A duration as `cgmem run` takes it ("150s", "100ms", "45m", "2h", or a bare
// number in `bare_unit_s` seconds) in seconds; nullopt when malformed.
std::optional<double> parse_seconds(const std::string& text, double bare_unit_s);

}  // namespace cgmem::lab
