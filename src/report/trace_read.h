// Reading a traced run's trace.jsonl and outcome.json's "trace" object
// (trace_event.h). trace.jsonl is input someone hands cgmem: it is read
// through the one file reader (regular files only, at most kMaxTraceBytes),
// one line at a time. A line counts as not valid when it is not a JSON
// object, lacks a key its event has, holds a value of another type, or a
// number out of its range:
//   t_ns            any 64-bit integer (negative: before the run's start)
//   cpu, stock_cpu, target_cpu      0 to 8191 (CONFIG_NR_CPUS is at most 8192)
//   pid, target_pid, prev_pid, next_pid   0 to 4194304 (PID_MAX_LIMIT)
//   cgroup_id       1 or more; by_cgroup_id 0 or more (0: none)
//   page counts     0 to 2^52 (nr_pages of a stock_drain 1 or more)
//   *_ns            0 to 2^63 - 1 (t_ns aside)
//   passes          0 to 2^32 - 1; shift 0 to 32
//   penalty_jiffies, left_jiffies   0 to 20000 (the 2 s clamp at HZ=10000)
//   cause           refill, over_batch, drain_all, hotplug or unknown
//   prev_state      a string or a number of 0 or more
// A valid line of an event this reader does not know is counted and
// skipped. Unknown keys are ignored. Never throws, never crashes.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.h"
#include "report/trace_event.h"

namespace cgmem::report {

// The largest trace.jsonl read (a 150 s traced run in cgmem's VM writes a
// few MB; a host's every stock drain for hours would be more than a report
// should hold in memory).
inline constexpr uint64_t kMaxTraceBytes = uint64_t{256} << 20;

enum class TraceLine : uint8_t { event, unknown_event, bad };

// One line (without its newline) into `out`; `out` is unspecified unless
// the result is TraceLine::event.
TraceLine parse_trace_line(std::string_view line, TraceEvent& out);

// A whole trace.jsonl. With `keep_drains_of`, stock_drain lines of other
// memcgs are counted in not_kept and not kept (no figure reads them).
TraceLog parse_trace(std::string_view text, std::optional<uint64_t> keep_drains_of = std::nullopt);

// PATH (a run's trace.jsonl) read and parsed; fails when it is not a
// regular file, cannot be read, or is larger than kMaxTraceBytes.
Result<TraceLog> read_trace(const std::string& path, std::optional<uint64_t> keep_drains_of = std::nullopt);

// outcome.json's "trace" object; values missing or of another type stay empty.
TraceFacts parse_trace_facts(const nlohmann::json& trace);

}  // namespace cgmem::report
