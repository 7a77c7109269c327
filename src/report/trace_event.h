// A traced run's events in memory (`cgmem run --trace`, trace.jsonl), and
// the trace facts outcome.json records beside them. One line of
// trace.jsonl looks like:
//   {"t_ns":1520331,"cpu":0,"pid":311,"event":"high_penalty","cgroup_id":4242,
//    "comm":"cgmem-workload","nr_pages":64,"usage_pages":61000,"high_pages":58982,
//    "passes":17,"reclaimed_pages":0,"reclaim_ns":210000,"summed_jiffies":78,
//    "shift":0,"shifted_jiffies":78,"penalty_jiffies":78,"sleeps":true}
// Every line has t_ns (ns since meta.json's started_mono_ns, negative
// before it), cpu (whose buffer held it), pid (the task running when it
// fired) and event; the other keys depend on the event (trace_read.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace cgmem::report {

// Why a CPU's charge stock gave a memcg's pages back.
enum class DrainCause : uint8_t {
  refill,      // another memcg's refill took the slot (by_cgroup_id: that memcg)
  over_batch,  // the memcg's own refill went over 64 pages (by_cgroup_id: itself)
  drain_all,   // the drain of every CPU's stock a stock_drain_all started
  hotplug,     // the CPU went offline
  unknown,
};

// stock_drain: a CPU's charge stock gave cgroup_id's pages back.
struct StockDrain {
  int32_t stock_cpu = 0;
  uint64_t cgroup_id = 0, by_cgroup_id = 0;  // by: 0 when none
  uint64_t nr_pages = 0;
  DrainCause cause = DrainCause::unknown;
  std::string comm;  // the running task's
};

// stock_drain_all: a drain of every CPU's stock on cgroup_id's subtree;
// its stock_drain lines (cause drain_all) follow.
struct StockDrainAll {
  uint64_t cgroup_id = 0;
  std::string caller;  // try_charge_memcg, memory_high_write, memory_max_write, mem_cgroup_css_offline, or 0x...
  std::string comm;
};

// high_penalty: one return to user space over memory.high decided its penalty.
struct HighPenalty {
  uint64_t cgroup_id = 0;
  uint64_t nr_pages = 0;  // charged over memory.high since the last one
  uint64_t usage_pages = 0, high_pages = 0;
  uint64_t passes = 0, reclaimed_pages = 0;           // reclaim calls and what they freed
  int64_t reclaim_ns = 0;                             // time in reclaim before the decision
  uint64_t summed_jiffies = 0;                        // the formula's, from memory and swap overage
  uint32_t shift = 0;                                 // memory.high.throttle
  uint64_t shifted_jiffies = 0, penalty_jiffies = 0;  // after the shift; after the 2 s clamp
  bool sleeps = false;                                // false at HZ/100 jiffies or less
  std::string comm;
};

// high_sleep: the task's throttle sleep ended; it began at t_ns - slept_ns.
struct HighSleep {
  uint64_t cgroup_id = 0;
  uint64_t penalty_jiffies = 0;
  int64_t planned_ns = 0;     // the penalty in ns
  int64_t slept_ns = 0;       // ktime around the sleep
  uint64_t left_jiffies = 0;  // > 0: a fatal signal ended it early
};

// sched_waking: a task is woken (a throttle sleep's: at its timer's expiry).
struct SchedWaking {
  int32_t target_pid = 0, target_cpu = 0;
  std::string target_comm;
};

// sched_switch: next_pid got the CPU.
struct SchedSwitch {
  int32_t prev_pid = 0, next_pid = 0;
  std::string prev_state;  // as the writer gave it: "D", "S", "R+", or the kernel's number as text
};

using TracePayload = std::variant<StockDrain, StockDrainAll, HighPenalty, HighSleep, SchedWaking, SchedSwitch>;

struct TraceEvent {
  int64_t t_ns = 0;
  int32_t cpu = 0, pid = 0;
  TracePayload what;
};

// trace.jsonl as read: its events sorted by t_ns (stably: lines of one
// time keep their order) and what could not be used.
struct TraceLog {
  std::vector<TraceEvent> events;
  uint64_t lines = 0;           // complete lines read
  uint64_t bad = 0;             // not a valid object of the schema
  uint64_t truncated_last = 0;  // 0 or 1
  uint64_t unknown_events = 0;  // valid lines of an event this cgmem does not know: skipped
  uint64_t not_kept = 0;        // stock_drain lines of other memcgs than the run's: counted, not kept
};

// outcome.json's "trace" object. A value that is missing or not of its
// type stays empty.
struct TraceFacts {
  std::optional<uint64_t> events, lost;
  std::vector<uint64_t> lost_by_cpu;
  std::vector<std::string> errors;
  std::optional<uint64_t> run_cgroup_id;
  std::vector<uint64_t> neighbour_cgroup_ids;
  std::optional<int32_t> driver_pid;
  std::optional<uint64_t> driver_cgroup_id;
  std::map<uint64_t, std::string> cgroups;  // id -> path under the cgroup2 mount
  std::optional<int> hz;
};

}  // namespace cgmem::report
