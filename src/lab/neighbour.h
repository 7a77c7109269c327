// --neighbour INTERVAL, --neighbours N: the study's accidental condition, on
// purpose. Each neighbour is a process in a cgroup of its own (a sibling of
// the run's), pinned to the workload's CPU, that every INTERVAL maps 64 KiB,
// writes it and unmaps it. A charge from another memcg on that CPU can evict
// the workload's cgroup from the CPU's charge stock, so a throttled workload
// pays one sleep per 4 KiB page instead of one per 64-page batch (the
// study's "64 sleeps per op").
//
// How many it takes depends on the kernel: up to 6.15 a CPU's stock caches
// one memcg, so one neighbour drains it; from 6.16 (NR_MEMCG_STOCK) it caches
// 7, and a memcg not in the stock evicts one only when all 7 are taken. So
// --neighbours 8 next to the workload makes 9 memcgs compete for 7 slots.
//
// Phases. The neighbours are staggered: neighbour k of N charges
// k * INTERVAL / N after neighbour 0, so the CPU sees a charge from one
// neighbour or another every INTERVAL / N instead of N at once (where each
// charge after the first would find its own memcg's slot and evict nothing
// more). Each one also charges once as soon as it is in its cgroup, and the
// driver waits for that, so all of them have charged on the CPU before the
// workload starts.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cgroup/cgroup.h"
#include "common/error.h"

namespace cgmem::lab {

inline constexpr uint64_t kNeighbourBytes = 64 * 1024;

// Neighbour k's (0-based) phase among n: k * interval / n, in ns.
uint64_t neighbour_offset_ns(unsigned k, unsigned n, uint64_t interval_ns);

// The neighbours' cgroup names beside the run's NAME: NAME-neighbour for
// one (its name before there could be more), NAME-neighbour-1 ... -N.
std::vector<std::string> neighbour_cgroup_names(const std::string& name, unsigned n);

// The neighbour's loop (runs until killed), pinned to `cpu` by its caller:
// a charge at first_ns (CLOCK_MONOTONIC), then every interval_ns.
[[noreturn]] void neighbour_loop(uint64_t first_ns, uint64_t interval_ns);

// Forks one neighbour per cgroup of `into`, each moved into its cgroup
// before it allocates anything, pinned to `cpu`, staggered as above; returns
// once each has charged once. On an error the ones started are killed and
// reaped; on success the caller kills and reaps them.
Result<std::vector<pid_t>> start_neighbours(const std::vector<cgroup::Cgroup>& into, unsigned cpu,
                                            uint64_t interval_ns);

}  // namespace cgmem::lab
