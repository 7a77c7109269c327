// predict.md's section 7: memory.swap.high against the kernel's formula.
//
// mem_cgroup_handle_over_high() (mm/memcontrol.c, 6.1 and 6.12) runs when
// a task that charged memory returns to user space with memory.current
// over memory.high or memory.swap.current over memory.swap.high
// (try_charge_memcg). Each pass reclaims (only when memory is over
// memory.high), then calls calculate_high_delay() once with the memory
// overage and once with swap_find_max_overage(), which raises
// memory.swap.events high for each level over swap.high; it sleeps the sum,
// shifted by memory.high.throttle and clamped to 2 x HZ, after 17 passes
// that freed nothing (a pass that frees pages retries instead). So an op's
// rise of the swap high counter is 17 per sleep when nothing was reclaimed.
#pragma once

#include <optional>

#include "report/predict.h"

namespace cgmem::report {

// Section 7 of one run; nullopt unless it set memory.swap.high, has HZ,
// one process (the counter is the cgroup's) and op lines with swap counters.
std::optional<SwapHighCheck> swap_high_check(const Run& run);

}  // namespace cgmem::report
