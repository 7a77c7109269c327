// Which event emptied the charge stock before each extra throttle sleep.
//
// The kernel charges a cgroup's pages in batches of 64 and keeps what a
// batch did not need in the CPU's charge stock; a task pays a throttle
// sleep when it charges a batch over memory.high, and the stock serves its
// next pages without one. When the run's cgroup's stock is drained before
// the task charges again, it charges a new batch after one page and sleeps
// again. A return to user space over memory.high follows the fault that
// charged its batch and reclaims for reclaim_ns before its high_penalty
// line, so that charge was at t_ns - reclaim_ns. A sleep (a high_penalty
// that sleeps) is *extra* when a stock_drain of the run's cgroup happened,
// on any CPU, between the same task's previous batch charge (or the
// trace's start, for its first) and this one; otherwise it is the batch's
// own sleep. (Counted from the previous high_penalty line instead, a drain
// during the reclaim before a sleep would be missed: beside a neighbour at
// 10 ms on cgmem's kernel, 174 of 229 sleeps came out extra, against 227 of
// 229 by the charges, and an op there is 64 sleeps, 63 of them extra.)
// Each extra sleep is attributed to the last such drain before it, and the
// drain to its cause, in this order:
//   own_process    refill or over_batch by the run's own cgroup (its own processes)
//   neighbour      by_cgroup_id is one of the run's neighbours
//   reclaim, limit_write, cgroup_removal, drain_all
//                  cause drain_all: the last stock_drain_all before it, by
//                  its caller (try_charge_memcg: reclaim at memory.max in the
//                  cgroup it names; memory_high_write, memory_max_write; a
//                  removed cgroup; anything else)
//   hotplug        a CPU went offline
//   cgmem          the running task is cgmem's driver (pid, its cgroup, or a
//                  comm starting with "cgmem")
//   kernel_worker  the running task is a kernel thread (kworker/, ksoftirqd/,
//                  kswapd, rcu, migration/, kcompactd)
//   other          anything else, named by the cgroup that took the slot
// The causes the kernel records (a drain of every stock, a hotplug) come
// before the two that read the running task: a drain of every stock runs
// in each CPU's kworker or in the asking task, a hotplug's in the CPU's
// hotplug thread, and neither of those caused it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/trace_event.h"

namespace cgmem::report {

struct AttributionRow {
  std::string cause;                  // own_process, neighbour, ... (above)
  std::optional<std::string> cgroup;  // the path (or "id N" when not resolved); empty when none
  std::string comm;                   // the running task at the drain (the asking task for a drain of every stock)
  uint64_t sleeps = 0;                // extra sleeps attributed
  double share = 0;                   // of the run's extra sleeps
};

struct Attribution {
  uint64_t sleeps = 0;               // high_penalty lines that sleep
  uint64_t extra_sleeps = 0;         // after a drain of the run's stock
  uint64_t batch_sleeps = 0;         // the batch's own
  std::vector<AttributionRow> rows;  // most sleeps first
};

// `events` sorted by time (TraceLog::events); `facts` from outcome.json,
// whose run_cgroup_id the caller checked is set.
Attribution attribute_sleeps(const std::vector<TraceEvent>& events, const TraceFacts& facts);

// A cgroup id as the report names it: its path, or "id N" when the trace
// could not resolve it.
std::string cgroup_name(const TraceFacts& facts, uint64_t id);

}  // namespace cgmem::report
