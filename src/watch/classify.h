// What a cgroup is doing, from two samples: the rates over the interval and
// one state with the evidence behind it.
//
// The states and the counters that define them follow the study's section
// "What PSI and the counters show" (memory.high vs memory.max, measured);
// docs/watch.md gives each with the study's measured signature. In order of
// precedence (the first that holds wins):
//
//   gone        the directory vanished (or was replaced: a new inode is a new cgroup)
//   unknown     memory.current could not be read or is not a byte count, or
//               memory.high or memory.max is there but neither a byte count
//               nor "max": no state is claimed on values that are no facts
//   oom_killed  oom_kill or oom_group_kill in memory.events.local rose
//   thrashing   file refaults, pgsteal and major faults rising, with the
//               tasks stalled on I/O or on memory (PSI): reclaim takes mapped
//               file pages (its own code, say) that the tasks fault straight
//               back in, whatever memory.high says (the study: memory.max, io
//               85% and memory 8%; memory.high, memory about 60%). A program
//               that read()s a file bigger than its limit refaults too, with
//               no major fault: that is a capped cache (at_max, reclaiming),
//               not thrashing. Not for a cgroup with children: its
//               memory.stat and PSI add up its descendants', and the one that
//               thrashes gets the state.
//   throttled   the high counter rising (memory.events.local, or
//               memory.swap.events for a cgroup over memory.swap.high) and
//               the tasks asleep for it (a task in D in
//               mem_cgroup_handle_over_high, or memory PSI while nothing
//               refaults and pages do not move through swap at the swap-in
//               rate: PSI counts the reclaim that swaps out and the waits
//               for swap-ins too), or rising with nothing reclaimed: 17 per
//               sleep. memory.swap.events has no .local: its high counts
//               only while memory.swap.current is over the cgroup's own
//               memory.swap.high (else it is a descendant's).
//   swapping    at memory.high or memory.max (memory.current at 95% of
//               either or more, or the high or max counter rising) while
//               anonymous pages go out (memory.swap.current, pswpout or
//               zswpout rising, or reclaim freeing pages while the cgroup
//               holds swap: a swap-in that frees its slot and an eviction
//               that takes one leave memory.swap.current flat) and come back
//               in (pswpin + zswpin where memory.stat has pswpin, 6.13+;
//               before that workingset_refault_anon with major faults): the
//               limit holds the cgroup by swap instead of slowing or killing
//               it. Below thrashing (file pages) and throttled (asleep), above
//               at_max and reclaiming, which it tells apart. Not for a cgroup
//               with children, as thrashing.
//   at_max      the max counter rising, no kill in this interval
//   reclaiming  the high counter rising while reclaim frees pages and the
//               tasks barely sleep (page cache held at memory.high)
//   near_high   memory.current within 5% under memory.high (or above it
//               with no high event in the interval)
//   ok          none of the above
//
// Counters that go backwards (never on a live cgroup) count as no rise.
#pragma once

#include <cstdint>
#include <string_view>

#include "watch/sample.h"

namespace cgmem::watch {

enum class State : uint8_t { ok, near_high, reclaiming, at_max, swapping, thrashing, throttled, oom_killed, gone, unknown };
inline constexpr size_t kStateCount = 10;

// "ok", "near_high", ... as in the JSON and the table.
std::string_view state_name(State s);

// Higher is worse: top sorts by it. oom_killed first; then throttled, above
// thrashing: a throttled task sleeps through nearly all of its time and
// nothing else shows it, while a thrashing one still runs between reads and
// shows in io.pressure; swapping below thrashing (its tasks wait for their
// own anonymous pages too, but from swap, often zram or zswap in memory,
// not from the file system) and above at_max (a capped cache costs
// nothing); unknown just above ok (something is wrong with the files,
// nothing is known of the memory); gone last (nothing left to do).
int severity(State s);

// Evidence: which observations held. A row's text is built from these bits
// and the numbers in Rates (describe() in watch/render.h).
enum Reason : uint32_t {
  kFirstSample = 1u << 0,     // no previous sample: no rates yet
  kHighRising = 1u << 1,      // memory.events.local high rose
  kMaxRising = 1u << 2,       // memory.events.local max rose
  kOomKill = 1u << 3,         // oom_kill or oom_group_kill rose
  kReclaimFrees = 1u << 4,    // pgsteal rose
  kRefaulting = 1u << 5,      // file refaults (workingset_refault_file) at or above the thrash rate
  kIoStalled = 1u << 6,       // io.pressure some share at or above the thrash share
  kMemoryStalled = 1u << 7,   // memory.pressure some share at or above the sleep share
  kTasksOverHigh = 1u << 8,   // a task in D in mem_cgroup_handle_over_high
  kNearHigh = 1u << 9,        // memory.current >= 95% of memory.high
  kOverHigh = 1u << 10,       // memory.current > memory.high
  kDescendantKill = 1u << 11, // oom_kill rose in memory.events but not in .local
  kVanished = 1u << 12,       // the directory is gone or a file read said ENODEV/ENOENT
  kMajorFaults = 1u << 13,    // pgmajfault at or above the thrash rate
  // The state is unknown because of (Sample::unreadable, Sample::malformed):
  kCurrentUnreadable = 1u << 14,
  kCurrentMalformed = 1u << 15,
  kHighUnreadable = 1u << 16,
  kHighMalformed = 1u << 17,
  kMaxUnreadable = 1u << 18,
  kMaxMalformed = 1u << 19,
  // Swap:
  kSwapOut = 1u << 20,        // memory.swap.current, pswpout or zswpout rose
  kSwapIn = 1u << 21,         // swap-ins (Rates::swapin_per_s) at or above the swap-in rate
  kNearMax = 1u << 22,        // memory.current >= 95% of memory.max
  kSwapHighRising = 1u << 23, // memory.swap.events high rose
  kSwapMaxRising = 1u << 24,  // memory.swap.events max rose: swap-outs refused at memory.swap.max
  kSwapFail = 1u << 25,       // memory.swap.events fail rose
  kOverSwapHigh = 1u << 26,   // memory.swap.current > memory.swap.high
};
inline constexpr uint32_t kUnknownValues =
    kCurrentUnreadable | kCurrentMalformed | kHighUnreadable | kHighMalformed | kMaxUnreadable | kMaxMalformed;
inline constexpr size_t kReasonCount = 27;

// Rises and rates over the interval between two samples of one cgroup.
struct Rates {
  double dt_s = 0;  // seconds between the samples; 0 on a first sample (all else 0)
  Events rise;      // rises of memory.events.local
  SwapEvents swap_rise;  // rises of memory.swap.events (hierarchical)
  uint64_t descendant_oom_kill = 0;  // memory.events oom_kill rise beyond the local one
  double high_per_s = 0, max_per_s = 0;
  double swap_high_per_s = 0;  // memory.swap.events high rise / dt
  // The larger of the high rise and the memory.swap.events high rise (only
  // while over its own memory.swap.high), / 17 / dt: sleeps when nothing is
  // reclaimable (a pass over memory.high and memory.swap.high counts once
  // in each).
  double sleeps_per_s = 0;
  double pgsteal_per_s = 0;    // pages reclaimed
  double refaults_per_s = 0;   // workingset_refault_anon + _file, pages
  double refault_file_per_s = 0, refault_anon_per_s = 0;
  double pgfault_per_s = 0;    // page faults (new anonymous pages are one each)
  double pgmajfault_per_s = 0; // faults that waited for I/O (code read back, swap-in)
  double growth_bytes_per_s = 0;  // memory.current change, may be negative
  // Pages read back from swap: pswpin + zswpin where memory.stat has pswpin
  // in both samples (6.13+; `pswpin` true), else workingset_refault_anon
  // (anonymous pages evicted to swap or zswap and faulted back in).
  double swapin_per_s = 0;
  bool pswpin = false;
  double swapout_per_s = 0;  // pswpout + zswpout, pages (0 where the kernel has neither)
  double swap_growth_bytes_per_s = 0;  // memory.swap.current change, may be negative
  // Share of the interval stalled, 0..1, from the PSI totals.
  double memory_some = 0, memory_full = 0, io_some = 0, io_full = 0;
};

Rates rates_between(const Sample& before, const Sample& after);

// The thresholds, in one place (docs/watch.md explains each).
struct Thresholds {
  double near_high = 0.95;             // memory.current / memory.high
  double sleep_share = 0.10;           // memory some share that counts as "asleep"
  double thrash_io_share = 0.20;       // io some share for thrashing
  double thrash_refaults_per_s = 256;  // pages/s (1 MiB/s of 4 KiB pages)
  double thrash_majfaults_per_s = 10;  // major faults/s
  // Pages/s swapped in for swapping: a 64-page charge batch a second (256
  // KiB/s; the VM's swapping cgroups on zram under TCG read back 133 to 734
  // pages/s). Without pswpin the major faults must reach the thrash rate too.
  double swapin_per_s = 64;
};

// What the classifier needs beyond the two samples.
struct Observed {
  bool first = false;          // no previous sample
  bool inner = false;          // has child cgroups with rows: its stat and PSI include theirs
  uint32_t tasks_over_high = 0;  // tasks in D in mem_cgroup_handle_over_high
};

struct Classification {
  State state = State::ok;
  uint32_t reasons = 0;  // Reason bits
};

Classification classify(const Sample& now, const Rates& rates, const Observed& observed,
                 const Thresholds& t = {});

}  // namespace cgmem::watch
