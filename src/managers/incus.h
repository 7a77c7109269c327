// Incus (lxc/incus internal/server/instance/drivers/driver_lxc.go, the
// memory block of initLXC(); internal/server/cgroup/abstraction.go
// SetMemoryLimit() -> memory.max, SetMemorySoftLimit() -> memory.high):
//   limits.memory (bytes with kB/MB/GB/TB/PB/EB base 1000 or KiB/MiB/...
//   base 1024, or N% of the host's RAM as (RAM / 100) x N);
//   limits.memory.enforce=hard (default) -> memory.max;
//   limits.memory.enforce=soft -> memory.high, and no memory.max;
//   in hard mode memory.swap.max = 0, or limits.memory.swap if it is a size.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.h"
#include "managers/assignment.h"
#include "managers/names.h"

namespace cgmem::managers {

// limits.memory.enforce.
enum class IncusEnforce { Hard, Soft };
inline constexpr NameTable<IncusEnforce, 2> kIncusEnforceNames = {
    {{"hard", IncusEnforce::Hard}, {"soft", IncusEnforce::Soft}}};

struct IncusInput {
  std::string limits_memory;       // "2GiB", "512MB", "25%"
  IncusEnforce enforce = IncusEnforce::Hard;
  std::string limits_memory_swap;  // limits.memory.swap: "", true/false, or a size
  std::optional<uint64_t> ram;     // the host's RAM, for percentages
};

Result<int64_t> parse_incus_size(std::string_view text);
Result<Translation> translate_incus(const IncusInput& input, uint64_t page_size);

}  // namespace cgmem::managers
