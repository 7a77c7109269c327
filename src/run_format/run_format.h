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
inline constexpr int kSchema = 1;

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
}  // namespace outcome_key

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
