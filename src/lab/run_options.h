// What `cgmem run` was asked to do, and the checks made before anything is
// created: the safety limits (memory.max between 1 MiB and RAM unless
// --force), CPUs that exist, a usable name.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/size.h"

namespace cgmem::lab {

inline constexpr uint64_t kMinLimit = 1 << 20;  // below 1 MiB a cgroup cannot start a process
// --neighbours: 8 crosses the 7 memcgs a CPU's charge stock caches since
// Linux 6.16; 64 leaves room above that.
inline constexpr unsigned kMaxNeighbours = 64;
// The neighbours' interval when --neighbours is given without --neighbour:
// the study's 100 ms, which keeps 64 of them to one charge per 1.6 ms.
inline constexpr uint64_t kDefaultNeighbourInterval = 100'000'000;
// The neighbours together charge the workload's CPU at most this often.
inline constexpr uint64_t kMinNeighbourGap = 1'000'000;

struct RunOptions {
  std::string name;
  std::optional<std::string> out;     // --out: the run directory
  std::optional<std::string> parent;  // --parent: where PARENT/NAME is created
  std::optional<Limit> max, high, low, min, swap_max, swap_high;
  std::optional<uint64_t> io_rbps, io_wbps;  // bytes per second on the run directory's disk
  std::optional<unsigned> high_throttle;     // memory.high.throttle (the RFC's shift, a patched kernel)
  std::optional<unsigned> cpu;               // --cpu: the workload's CPU
  std::optional<unsigned> sampler_cpu;       // --sampler-cpu
  uint64_t interval_ns = 100'000'000;        // --interval
  uint64_t cap_ns = 60'000'000'000;          // --cap
  std::optional<uint64_t> neighbour_ns;      // --neighbour INTERVAL; set when there are neighbours
  unsigned neighbours = 1;                   // --neighbours N: how many, when neighbour_ns is set
  bool quiet = false;
  bool force = false;
  bool trace = false;                        // --trace: trace.jsonl (a kernel with cgmem's memcg events)
  std::vector<std::string> workload_args;    // after `--`: `cgmem workload` options
  // --command: the user's program PROG ARGS (after `--`) instead of the
  // workload; it writes no op lines. docs/own-program.md.
  std::vector<std::string> command;
  std::vector<std::string> load;             // after `--load --`: a load generator, its own cgroup
  std::optional<uint16_t> ready_tcp;         // start the load once 127.0.0.1:PORT accepts
  std::optional<uint64_t> ready_delay_ns;    // or this long after the program started
};

// What validation needs to know about the machine the run runs on: this
// host for `cgmem run`, or the guest `cgmem matrix --plan` expects.
struct Machine {
  unsigned cpus = 1;
  uint64_t mem_total_bytes = 0;  // MemTotal; 0: unknown, not checked
  uint64_t page_size = 4096;
};

Result<void> validate(const RunOptions& options, const Machine& machine);

// Where the sampler runs when --sampler-cpu is not given: a CPU other than
// the workload's when there is one, else the workload's own (and the driver
// says so in meta.json).
unsigned default_sampler_cpu(unsigned workload_cpu, unsigned cpus);

// Splits the words after `--` of a --command run at the first `--load --`:
// the program's argv before, the load generator's after.
void split_command_words(const std::vector<std::string>& words, RunOptions& options);

// The `spec` object of meta.json.
nlohmann::json spec_json(const RunOptions& options, unsigned cpu, unsigned sampler_cpu);

}  // namespace cgmem::lab
