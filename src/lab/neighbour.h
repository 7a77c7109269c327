// --neighbour INTERVAL: the study's accidental condition, on purpose. A
// process in a cgroup of its own (a sibling of the run's), pinned to the
// workload's CPU, that every INTERVAL maps 64 KiB, writes it and unmaps it.
// Its charges on that CPU drain the per-CPU charge stock the workload's
// cgroup holds there, so a throttled workload pays one sleep per 4 KiB page
// instead of one per 64-page batch (the study's "64 sleeps per op").
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "cgroup/cgroup.h"
#include "common/error.h"

namespace cgmem::lab {

inline constexpr uint64_t kNeighbourBytes = 64 * 1024;

// The neighbour's loop (runs until killed): pin to cpu, then every
// interval_ns map, write and unmap kNeighbourBytes.
[[noreturn]] void neighbour_loop(unsigned cpu, uint64_t interval_ns);

// Forks the neighbour, moves it into `into` before it allocates anything,
// and returns its pid (the caller kills and reaps it).
Result<pid_t> start_neighbour(const cgroup::Cgroup& into, unsigned cpu, uint64_t interval_ns);

}  // namespace cgmem::lab
