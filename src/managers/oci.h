// runc (and the OCI runtime spec): linux.resources.memory to cgroup v2.
//
// The rules (opencontainers/runc libcontainer/cgroups/fs2/memory.go
// setMemory(), and ConvertMemorySwapToCgroupV2Value() in
// libcontainer/cgroups/utils.go, now opencontainers/cgroups utils.go):
//   - limit -> memory.max ("max" for -1; not written for 0/unset);
//   - reservation -> memory.low (not memory.high);
//   - swap is memory+swap in the spec (a cgroup v1 idea): memory.swap.max =
//     swap - limit; -1 -> max; swap == limit -> 0; unset -> not written
//     (unlimited memory with unset swap -> max);
//   - the unified map (linux.resources.unified) is written last, so its
//     keys (memory.high, memory.max...) win (fs2.go Set(), setUnified()).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.h"
#include "managers/assignment.h"

namespace cgmem::managers {

struct OciMemory {
  std::optional<int64_t> limit;        // bytes, -1 = unlimited
  std::optional<int64_t> reservation;  // bytes
  std::optional<int64_t> swap;         // memory+swap bytes, -1 = unlimited
  std::vector<std::pair<std::string, std::string>> unified;  // file -> value
  bool disable_oom_killer = false;     // linux.resources.memory.disableOOMKiller
};

// Appends what runc writes for `memory` to `out`, under `scope`.
Result<void> runc_assignments(const OciMemory& memory, const std::string& scope,
                              uint64_t page_size, Translation& out);

// A runtime's release, "1.8.1", where its rules changed between releases.
struct RuntimeVersion {
  unsigned major = 0, minor = 0, patch = 0;
  auto operator<=>(const RuntimeVersion&) const = default;
};
// "1.8.1", "1.8" (patch 0), or what `crun --version` prints ("crun version 1.8.1").
Result<RuntimeVersion> parse_runtime_version(std::string_view text);
// crun 1.8.6 (commit b160e2c1, 2023-07-05) took swap 0 as "no swap";
// before, it refused it like any memory+swap below the limit.
inline constexpr RuntimeVersion kCrunSwapZeroAllowed{1, 8, 6};

// What crun writes (containers/crun src/libcrun/cgroup-resources.c
// write_memory_resources(), write_memory_swap()): memory.max and memory.low
// as runc, but swap 0 is written as memory.swap.max 0 (from 1.8.6; before,
// an error) and -1 as max, only a positive memory+swap is converted (swap -
// limit); disableOOMKiller is an error on cgroup v2 ("cannot disable OOM
// killer with cgroupv2"). `version` unset: the newest rules.
Result<void> crun_assignments(const OciMemory& memory, const std::string& scope, uint64_t page_size,
                              Translation& out, std::optional<RuntimeVersion> version = {});

Result<Translation> translate_runc(const OciMemory& memory, uint64_t page_size);
Result<Translation> translate_crun(const OciMemory& memory, uint64_t page_size,
                                   std::optional<RuntimeVersion> version = {});

// runc's --limit/--reservation/--swap: the spec's int64 byte count, or -1
// (unlimited); nullopt for an empty text. `flag` names the option in the error.
Result<std::optional<int64_t>> oci_number(std::string_view text, const char* flag);

// An OCI config.json's linux.resources.memory and linux.resources.unified.
Result<OciMemory> parse_oci_spec(std::string_view json_text);

}  // namespace cgmem::managers
