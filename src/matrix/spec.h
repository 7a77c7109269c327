// A matrix spec (TOML; docs/matrix.md): which limit sets ("configs") to run
// which workloads under, how many times, with which `cgmem run` options.
//
//   name = "quick"
//   claim = "CLAIM.md"        # optional: pre-registered claim, hashed into every run
//   kernel = "hz1000"         # optional: the VM boots this kernel (cgmem kernel build)
//   [[kernels]]               # or several: each config x workload on each, one VM session per kernel
//   name = "debian-6.12"      # `cgmem vm --kernel NAME`, passed as it is
//   label = "k612"            # optional; default NAME, plus "-slotsN" with stock_slots
//   stock_slots = 7           # optional: `cgmem vm --stock-slots N` (memcontrol.stock_slots=N)
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
//   kernels = ["k612"]        # optional: only on these kernels (labels)
//   [[workloads]]             # or the user's own program (docs/own-program.md)
//   name = "redis"
//   command = ["redis-server", "--port", "6379"]
//   load = ["redis-benchmark", "-t", "set", "--csv"]
//   ready_tcp = 6379
//   programs = ["redis-server", "redis-benchmark"]   # for --vm, when load is a shell loop
//   trees = ["/usr/lib/jvm/java-17-openjdk-amd64"]    # for --vm: host directories at the same path
//   build = ["javac", "-d", "{build}", "jvm/Cache.java"]  # on the host, in the spec's directory, first
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

namespace cgmem::matrix {

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
  // Host programs `matrix --vm` brings in; unset: command[0] and load[0]
  // (`programs = []`: none, when the trees have them).
  std::optional<std::vector<std::string>> programs;
  std::vector<std::string> trees;    // host directories `matrix --vm` brings in at the same path
  std::vector<std::string> build;    // run on the host in the spec's directory before the runs; {build} is its output dir
  RunFlags flags;
  std::vector<std::string> configs;  // empty: every config
  std::optional<int> reps;           // empty: the spec's
  std::vector<std::string> kernels;  // kernel labels; empty: every kernel
};

// One kernel of a batch: its runs are one VM session, in BATCH/LABEL when
// the spec lists more than one kernel (docs/matrix.md).
struct KernelSpec {
  std::string name;                // `cgmem vm --kernel NAME`: a cache name, "debian-6.1", or a bzImage
  std::string label;               // the report's column and the runs' directory
  std::optional<int> stock_slots;  // `cgmem vm --stock-slots N`: memcg stock slots per CPU at boot (1..7)
  // The guest's swap for this session (`cgmem vm --swap SIZE --swap-kind
  // KIND --zswap`, vm/swap.h); empty swap: the matrix's --vm-swap.
  std::string swap;                // "256M"
  std::string swap_kind;           // "disk", "zram", or "" (zram where the kernel has it)
  bool zswap = false;
};

struct MatrixSpec {
  std::string name;
  std::string path;                  // the spec file
  std::optional<std::string> claim;  // absolute path of the claim file
  std::optional<std::string> kernel; // `kernel = "..."`: the VM's kernel, a cached name (hz1000-throttle) or a bzImage
  std::vector<KernelSpec> kernels;   // [[kernels]], or the one `kernel` names; empty: the VM's default kernel
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

// The kernel labelled `label`, or nullptr.
const KernelSpec* find_kernel(const MatrixSpec& spec, const std::string& label);

// Whether workload `w` runs on the kernel labelled `label` ("" : any).
bool runs_on(const WorkloadSpec& w, const std::string& label);

// The spec as `--kernel NAME` makes it: that one kernel, every workload on it.
void override_kernel(MatrixSpec& spec, const std::string& name);

// The `cgmem run` flag for a spec key ("swap_max" -> "--swap-max"), or empty
// when the key is not a run option.
std::string run_flag(const std::string& key);
// False for a flag without a value (trace = true is --trace).
bool run_flag_takes_value(const std::string& key);

// A limit given as "N%" of the same run's max ("90%" with max 256M), in
// bytes rounded down to a 4 KiB page as the kubelet does; nullopt when there
// is no max in bytes or the text is not a share.
std::optional<std::string> resolve_percent(const RunFlags& flags, const std::string& key);

}  // namespace cgmem::matrix
