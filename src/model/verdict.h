// What a cgroup's limits do to a program that needs `working_set` bytes,
// from the kernel's throttle arithmetic (penalty.h, predict.h). Managers
// (`cgmem translate --working-set`), the report and advise all ask here:
//
//   fits       the working set is at or below memory.high and memory.max (or
//              above memory.high by less than the kernel's no-sleep margin:
//              reclaim, but no sleep);
//   throttled  the kernel sleeps on every 256 KiB allocation: above
//              memory.high, at or below memory.max, or (with swap) past
//              memory.swap.high; the cost is given at one sleep per 64-page
//              batch (the kernel comment's case) and at one sleep per page
//              (what the study measured next to another cgroup allocating on
//              the same CPU). memory.high alone never kills;
//   swaps      (only on a host with swap) above memory.high or memory.max,
//              but what does not fit goes to swap and no sleep comes of it:
//              not killed, slowed by swap-in faults at the swap device's
//              speed, which cgmem does not model;
//   oom        above memory.max (plus the swap the cgroup may use): the OOM
//              kill comes once usage reaches memory.max with swap full. With
//              memory.high below memory.max the climb from memory.high is
//              slowed: the time is given at both bounds.
//
// Swap (mm/memcontrol.c and mm/vmscan.c, 6.1 and 6.12). The working set is
// taken as anonymous memory. With VerdictInput::host_swap > 0 and the
// cgroup's memory.swap.max above 0 (or not written: max), the cgroup may swap
//   allowed = min(memory.swap.max, host swap)
// (mem_cgroup_get_nr_swap_pages()). Reclaim at memory.high (reclaim_high())
// and at memory.max (try_charge_memcg()) runs with MEMCG_RECLAIM_MAY_SWAP,
// so it moves pages out instead of failing: memory.current stays at the
// lower of the two limits and the rest of the working set, up to `allowed`,
// is in swap. Only when that is full does memory.high throttle again and a
// charge at memory.max fail into the OOM killer: the kill comes at
// memory.max + allowed. memory.swap.high adds a second term to every sleep
// (mem_cgroup_handle_over_high(): calculate_high_delay() of the memory
// overage plus that of the swap overage, then the 2 x HZ clamp), and
// try_charge_memcg() sends a task there when swap.current > swap.high even
// with memory below memory.high. host_swap 0 (the default) gives the
// verdicts of a host without swap, the study's.
//
// Sleeps are the formula's length (no timer-wheel rounding, no reclaim time);
// only the time spent asleep is counted unless an allocation rate is given.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/size.h"

namespace cgmem::model {

// The four files the verdict reads; max where a file is not written (the
// kernel's default of each).
struct CgroupLimits {
  Limit high = Limit::max();       // memory.high
  Limit max = Limit::max();        // memory.max
  Limit swap_max = Limit::max();   // memory.swap.max
  Limit swap_high = Limit::max();  // memory.swap.high
};

struct VerdictInput {
  uint64_t working_set = 0;           // bytes the program holds
  std::optional<double> alloc_rate;   // bytes/s it allocates when nothing slows it
  uint32_t hz = 1000;                 // CONFIG_HZ (the study's kernel; cgmem model's default)
  uint64_t page_size = 4096;
  uint64_t op_bytes = 256 * 1024;     // one allocation, as in the study
  uint64_t host_swap = 0;             // swap the host can give (disk or zram); 0: none
};

struct BoundCost {
  double sleeps_per_batch = 1;  // 1 (per batch) or 64 (per page)
  double op_seconds = 0;        // one op_bytes allocation at the working set
  double slowdown = 0;          // against the unthrottled op, when a rate is known
  std::optional<double> seconds_to_kill;  // oom: memory.high -> memory.max, asleep
  // oom with memory.swap.high below the swap allowed: asleep while swap
  // fills from swap.high to the allowance (part of seconds_to_kill).
  std::optional<double> seconds_swap_fill;
  // seconds_to_kill is a lower bound: the swap.high term lengthens every
  // sleep of the climb to memory.max, and model::grow() sums the memory
  // term alone (at least the larger of the two sums is counted).
  bool seconds_to_kill_is_lower_bound = false;
};

// What swap does to one scope; present when the host has swap.
struct SwapVerdict {
  Limit swap_max = Limit::max();   // memory.swap.max (max when the manager leaves it)
  Limit swap_high = Limit::max();  // memory.swap.high
  uint64_t host_swap = 0;          // whole pages
  uint64_t allowed = 0;            // min(memory.swap.max, host swap)
  uint64_t swapped = 0;            // bytes of the working set in swap
  uint64_t resident = 0;           // bytes left in memory (memory.current; oom: memory.max)
  double swapped_share = 0;        // swapped / working set, 0..1
  double swap_sleep_ms = 0;        // the swap.high term alone, one batch at `swapped` (0: no sleep)
};

enum class VerdictKind { fits, throttled, swaps, oom };

// "fits", "throttled", "swaps", "oom": the JSON's and the summaries' words.
std::string_view kind_name(VerdictKind kind);

struct Verdict {
  VerdictKind kind = VerdictKind::fits;
  Limit high = Limit::max(), max = Limit::max();
  uint64_t working_set = 0;
  uint32_t hz = 1000;
  double sleep_ms = 0;  // one sleep at the working set (throttled)
  std::optional<uint64_t> sleep_start;   // the usage where a batch first sleeps
  std::optional<uint64_t> oom_at;        // the working set the OOM kill comes at: memory.max + swap allowed
  std::optional<double> seconds_to_high; // at the allocation rate, unthrottled
  std::optional<double> seconds_to_max_unthrottled;
  std::optional<double> seconds_to_oom_unthrottled;  // to oom_at at the rate (swap: swap-out time not counted)
  BoundCost per_batch{.sleeps_per_batch = 1}, per_page{.sleeps_per_batch = 64};
  std::optional<SwapVerdict> swap;
  std::string summary;  // one line for people
};

Verdict verdict(const CgroupLimits& limits, const VerdictInput& in);

}  // namespace cgmem::model
