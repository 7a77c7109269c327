// What `cgmem workload` does, as parsed from its flags, and the checks that
// run before it touches memory.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/error.h"

namespace cgmem::lab {

inline constexpr uint64_t kDefaultChunk = 256 * 1024;  // 64 pages: the kernel's charge batch
inline constexpr unsigned kMaxProcs = 64;
inline constexpr uint64_t kMaxChurn = 1'000'000'000;  // a billion ops: days of churn, not 2^64

struct WorkloadOptions {
  uint64_t chunk_bytes = kDefaultChunk;
  uint64_t target_bytes = 0;            // --target: grow until this much is held
  uint64_t churn = 0;                   // --churn: free one, allocate one, this many times
  unsigned procs = 1;                   // --procs: the target split over this many processes
  uint32_t seed = 1;                    // --seed for mulberry32
  bool populate = false;                // --populate: MAP_POPULATE
  std::optional<std::string> file;      // --file: page cache instead of anonymous memory
  uint64_t file_size = 0;               // --file-size
  std::optional<uint64_t> set_own_high; // --set-own-high: write own memory.high after growing
  bool own_code = false;                // --own-code: exec a fresh, uncached copy of cgmem
  uint64_t own_code_bytes = 0;          // --own-code-size: pad the copy to this, walk it every op
  // --cgroup-dir: where to read memory.current/memory.events; default: the
  // process's own cgroup (/proc/self/cgroup under the cgroup2 mount).
  std::optional<std::string> cgroup_dir;
};

// Checks the combination of flags; the message names the flag to change.
Result<void> validate(const WorkloadOptions& options, uint64_t page_size, uint64_t ram_bytes = 0);

// This machine's page size and RAM, as validate() takes them.
uint64_t page_size_here();
uint64_t ram_here();

// The `workload` object of meta.json (docs/run-format.md).
nlohmann::json to_json(const WorkloadOptions& options);

}  // namespace cgmem::lab
