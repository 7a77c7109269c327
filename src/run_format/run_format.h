// The run directory as code: the contract between the lab (which writes run
// directories) and the report (which reads them), documented field by field
// in docs/run-format.md. Lab, matrix, report and CLI take file names, keys,
// phases, statuses and the schema version from here, so a rename is one edit
// (and a schema bump, per docs/run-format.md).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace cgmem::run_format {

// meta.json's "schema"; renaming or removing a key bumps it.
inline constexpr int kSchema = 2;  // 2: "simulated" removed (schema 1 is read the same)
// batch.json's "schema" (a matrix batch, and a kernels batch's record).
inline constexpr int kBatchSchema = 1;

// The files of a run directory.
inline constexpr char kMetaFile[] = "meta.json";
inline constexpr char kOpsFile[] = "ops.jsonl";
inline constexpr char kSamplesFile[] = "samples.jsonl";
inline constexpr char kOutcomeFile[] = "outcome.json";
inline constexpr char kKernelLogFile[] = "kernel.log";
inline constexpr char kWorkloadStderrFile[] = "workload.stderr";  // the workload's or --command's stderr
// --command runs (docs/own-program.md): the program's stdout, the load generator's output.
inline constexpr char kCommandStdoutFile[] = "command.stdout";
inline constexpr char kLoadStdoutFile[] = "load.stdout";
inline constexpr char kLoadStderrFile[] = "load.stderr";
inline constexpr char kLoadTimesFile[] = "load.times.jsonl";  // when load.stdout's bytes came (lab/load_pipe.h)
// `cgmem run --trace` (cgmem's kernel): the kernel's memcg and scheduler
// events, one JSON object a line.
inline constexpr char kTraceFile[] = "trace.jsonl";
// A matrix's batch directory: the batch record beside its run directories.
inline constexpr char kBatchFile[] = "batch.json";

// An op line's "phase". `other` is never written: it is what a reader makes
// of a phase it does not know.
enum class Phase : uint8_t { grow, churn, own_high, other };

std::string_view to_string(Phase phase);
Phase parse_phase(std::string_view text);  // `other` for an unknown name

// outcome.json's "status" (each one explained in docs/run-format.md).
// load_done: a --command run whose load generator finished, after which the
// driver stopped the program (a server does not end on its own).
enum class Status : uint8_t { oom_killed, exited, cap, interrupted, failed, load_done };

std::string_view to_string(Status status);
// nullopt for a name cgmem does not write; readers keep such a run and show
// the name as it is.
std::optional<Status> parse_status(std::string_view text);

// The keys of meta.json, and of its "limits" and "spec" objects.
namespace meta_key {
inline constexpr char kSchema[] = "schema";
inline constexpr char kName[] = "name";
inline constexpr char kStartedAt[] = "started_at";            // ISO 8601, UTC
inline constexpr char kStartedMonoNs[] = "started_mono_ns";   // CLOCK_MONOTONIC: t_ns 0 of ops and samples
inline constexpr char kCgroup[] = "cgroup";
inline constexpr char kLimits[] = "limits";      // what the kernel kept of each limit written
inline constexpr char kSpec[] = "spec";          // how the run was set up
inline constexpr char kWorkload[] = "workload";  // the workload's options, or {"kind": "command", "argv"}
inline constexpr char kHost[] = "host";          // `cgmem host --json` at the start
inline constexpr char kCode[] = "code";          // version, git_commit, binary_hash
inline constexpr char kClaimSha256[] = "claim_sha256";  // the matrix's claim file, or null
}  // namespace meta_key

// meta.json "limits": bytes, or "max"; absent when not written.
namespace limit_key {
inline constexpr char kMin[] = "min";
inline constexpr char kLow[] = "low";
inline constexpr char kHigh[] = "high";
inline constexpr char kMax[] = "max";
inline constexpr char kSwapMax[] = "swap_max";
inline constexpr char kSwapHigh[] = "swap_high";
inline constexpr char kHighThrottle[] = "high_throttle";  // the RFC's shift
inline constexpr char kIoDevice[] = "io_device";
inline constexpr char kIoRbps[] = "io_rbps";
inline constexpr char kIoWbps[] = "io_wbps";
}  // namespace limit_key

// meta.json "spec".
namespace spec_key {
inline constexpr char kCpu[] = "cpu";
inline constexpr char kSamplerCpu[] = "sampler_cpu";
inline constexpr char kSamplerSharesCpu[] = "sampler_shares_cpu";
inline constexpr char kSamplerSharesCpuMeasured[] = "sampler_shares_cpu_measured";
inline constexpr char kKernelLog[] = "kernel_log";
inline constexpr char kIntervalMs[] = "interval_ms";
inline constexpr char kCapS[] = "cap_s";
inline constexpr char kNeighbourIntervalMs[] = "neighbour_interval_ms";
inline constexpr char kNeighbours[] = "neighbours";
inline constexpr char kTrace[] = "trace";
inline constexpr char kWorkloadArgs[] = "workload_args";
inline constexpr char kCommand[] = "command";
inline constexpr char kLoad[] = "load";
inline constexpr char kReadyTcp[] = "ready_tcp";
inline constexpr char kReadyDelayMs[] = "ready_delay_ms";
inline constexpr char kOpLines[] = "op_lines";  // false for a command: no ops.jsonl
}  // namespace spec_key

// The keys of outcome.json.
namespace outcome_key {
inline constexpr char kStatus[] = "status";
inline constexpr char kExitCode[] = "exit_code";
inline constexpr char kSignal[] = "signal";
inline constexpr char kDurationS[] = "duration_s";
inline constexpr char kTimeToKillS[] = "time_to_kill_s";
inline constexpr char kErrors[] = "errors";
inline constexpr char kEvents[] = "events";        // memory.events at the end
inline constexpr char kPeakBytes[] = "peak_bytes";  // memory.peak; null where the kernel has none
inline constexpr char kTrace[] = "trace";           // a traced run's trace facts (trace_key below); absent otherwise
inline constexpr char kOps[] = "ops";          // op lines written; null for a command
inline constexpr char kSamples[] = "samples";  // sample lines written
inline constexpr char kLoad[] = "load";        // a command's load generator (load_key below); absent without one
}  // namespace outcome_key

// outcome.json "load".
namespace load_key {
inline constexpr char kStarted[] = "started";
inline constexpr char kStartedS[] = "started_s";  // since the run started; null when it never started
inline constexpr char kEndedS[] = "ended_s";
inline constexpr char kExitCode[] = "exit_code";
inline constexpr char kSignal[] = "signal";
}  // namespace load_key

// A traced run: the keys of outcome.json's "trace" object and of trace.jsonl's lines.
namespace trace_key {
// outcome.json "trace"
inline constexpr char kEvents[] = "events";
inline constexpr char kLost[] = "lost";
inline constexpr char kLostByCpu[] = "lost_by_cpu";
inline constexpr char kLostUnknown[] = "lost_unknown";          // a page said events were missed, not how many
inline constexpr char kUnreadablePages[] = "unreadable_pages";  // pages the reader refused
inline constexpr char kErrors[] = "errors";
inline constexpr char kRunCgroupId[] = "run_cgroup_id";
inline constexpr char kNeighbourCgroupIds[] = "neighbour_cgroup_ids";
inline constexpr char kDriverPid[] = "driver_pid";
inline constexpr char kDriverCgroupId[] = "driver_cgroup_id";
inline constexpr char kCgroups[] = "cgroups";  // cgroup id (decimal text) -> path under the cgroup2 mount
inline constexpr char kHz[] = "hz";
// Every trace.jsonl line
inline constexpr char kTNs[] = "t_ns";  // since meta.json started_mono_ns; negative before it
inline constexpr char kCpu[] = "cpu";
inline constexpr char kPid[] = "pid";
inline constexpr char kEvent[] = "event";
// The events ("event") and their keys
inline constexpr char kStockDrain[] = "stock_drain";
inline constexpr char kStockDrainAll[] = "stock_drain_all";
inline constexpr char kHighPenalty[] = "high_penalty";
inline constexpr char kHighSleep[] = "high_sleep";
inline constexpr char kSchedWaking[] = "sched_waking";
inline constexpr char kSchedSwitch[] = "sched_switch";
inline constexpr char kStockCpu[] = "stock_cpu";
inline constexpr char kCgroupId[] = "cgroup_id";
inline constexpr char kNrPages[] = "nr_pages";
inline constexpr char kCause[] = "cause";  // refill, over_batch, drain_all, hotplug, unknown
inline constexpr char kByCgroupId[] = "by_cgroup_id";
inline constexpr char kComm[] = "comm";
inline constexpr char kCaller[] = "caller";
inline constexpr char kUsagePages[] = "usage_pages";
inline constexpr char kHighPages[] = "high_pages";
// memcg_high_penalty's swap term inputs: swap usage and memory.swap.high in
// pages (absent in traces of a kernel built before the patch recorded them)
inline constexpr char kSwapUsagePages[] = "swap_usage_pages";
inline constexpr char kSwapHighPages[] = "swap_high_pages";
inline constexpr char kPasses[] = "passes";
inline constexpr char kReclaimedPages[] = "reclaimed_pages";
inline constexpr char kReclaimNs[] = "reclaim_ns";
inline constexpr char kSummedJiffies[] = "summed_jiffies";
inline constexpr char kShift[] = "shift";
inline constexpr char kShiftedJiffies[] = "shifted_jiffies";
inline constexpr char kPenaltyJiffies[] = "penalty_jiffies";
inline constexpr char kSleeps[] = "sleeps";
inline constexpr char kPlannedNs[] = "planned_ns";
inline constexpr char kSleptNs[] = "slept_ns";
inline constexpr char kLeftJiffies[] = "left_jiffies";
inline constexpr char kTargetPid[] = "target_pid";
inline constexpr char kTargetComm[] = "target_comm";
inline constexpr char kTargetCpu[] = "target_cpu";
inline constexpr char kPrevPid[] = "prev_pid";
inline constexpr char kPrevState[] = "prev_state";
inline constexpr char kNextPid[] = "next_pid";
}  // namespace trace_key

// The keys of one ops.jsonl line, in the order the lab writes them.
namespace op_key {
inline constexpr char kOp[] = "op";
inline constexpr char kPhase[] = "phase";
inline constexpr char kPid[] = "pid";
inline constexpr char kCpu[] = "cpu";
inline constexpr char kTNs[] = "t_ns";
inline constexpr char kLatNs[] = "lat_ns";
inline constexpr char kHeldBytes[] = "held_bytes";
inline constexpr char kCurrentBefore[] = "current_before";
inline constexpr char kCurrentAfter[] = "current_after";
inline constexpr char kHighBefore[] = "high_before";
inline constexpr char kHighAfter[] = "high_after";
inline constexpr char kMaxBefore[] = "max_before";
inline constexpr char kMaxAfter[] = "max_after";
// memory.swap.current and memory.swap.events `high` before and after the op:
// only on a host with swap (a device in /proc/swaps)
inline constexpr char kSwapBefore[] = "swap_before";
inline constexpr char kSwapAfter[] = "swap_after";
inline constexpr char kSwapHighBefore[] = "swap_high_before";
inline constexpr char kSwapHighAfter[] = "swap_high_after";
}  // namespace op_key

// The keys of one samples.jsonl line, and of each process in its "procs".
namespace sample_key {
inline constexpr char kTNs[] = "t_ns";
inline constexpr char kMemoryCurrent[] = "memory_current";
inline constexpr char kMemoryPeak[] = "memory_peak";
inline constexpr char kMemoryEvents[] = "memory_events";
inline constexpr char kMemoryEventsLocal[] = "memory_events_local";
inline constexpr char kMemoryPressure[] = "memory_pressure";
inline constexpr char kIoPressure[] = "io_pressure";
inline constexpr char kMemoryStat[] = "memory_stat";
// Each only where the file exists: memory.swap.current, memory.swap.events
// (flat-keyed: high, max, fail), memory.zswap.current (CONFIG_ZSWAP).
inline constexpr char kMemorySwapCurrent[] = "memory_swap_current";
inline constexpr char kMemorySwapEvents[] = "memory_swap_events";
inline constexpr char kMemoryZswapCurrent[] = "memory_zswap_current";
inline constexpr char kCpuStat[] = "cpu_stat";
inline constexpr char kIoStat[] = "io_stat";
inline constexpr char kProcs[] = "procs";
inline constexpr char kReadErrors[] = "read_errors";
inline constexpr char kPid[] = "pid";
inline constexpr char kState[] = "state";
inline constexpr char kUtimeTicks[] = "utime_ticks";
inline constexpr char kStimeTicks[] = "stime_ticks";
inline constexpr char kCpu[] = "cpu";
inline constexpr char kWchan[] = "wchan";
}  // namespace sample_key

// `"key":` as the bytes of a compact JSON line (no NUL at the end), built
// when compiled, for scanners that find or match a key by its bytes.
template <size_t N>
constexpr std::array<char, N + 2> json_key(const char (&key)[N]) {
  std::array<char, N + 2> out{};
  out[0] = '"';
  for (size_t i = 0; i + 1 < N; ++i) out[1 + i] = key[i];
  out[N] = '"';
  out[N + 1] = ':';
  return out;
}

// The same after a separator (`{` or `,`), so one compare covers both.
template <size_t N>
constexpr std::array<char, N + 3> json_key_after(char separator, const char (&key)[N]) {
  std::array<char, N + 3> out{separator};
  auto bare = json_key(key);
  for (size_t i = 0; i < bare.size(); ++i) out[1 + i] = bare[i];
  return out;
}

}  // namespace cgmem::run_format
