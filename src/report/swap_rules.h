// Why a study claim's verdict differs between swap settings, from the
// kernel's rules on swap (mm/memcontrol.c, 6.12), for "What differs by
// kernel" (claims_kernels.h):
//
//   memory.high  reclaim_high() reclaims with MEMCG_RECLAIM_MAY_SWAP, and
//                mem_cgroup_handle_over_high() retries while reclaim frees
//                pages, sleeping only after 17 passes that free nothing:
//                with swap a task over memory.high is reclaimed rather than
//                put to sleep. The claims that rest on its sleeps fail with
//                swap.
//   memory.max   try_charge_memcg() reclaims to swap and calls the OOM
//                killer only once reclaim frees nothing, when
//                memory.swap.max or the device is full: the kill comes
//                later, or not within the cap.
//
// A claim neither rule decides, or verdicts the rule does not predict (a
// claim reproduced with swap and not without, two kinds of swap apart), is
// said to be so, never guessed at; so are kernels that differ in more than
// swap (release, HZ, stock slots), where another rule may decide.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "report/claims_kernels.h"

namespace cgmem::report {

// The kernels that tested claim `id`, with their verdicts: the sentences on
// swap, or "" when fewer than two of them recorded different swap settings.
std::string swap_why(const std::string& id, const std::vector<std::pair<const KernelFacts*, ClaimVerdict>>& tested);

}  // namespace cgmem::report
