// One run directory in memory, as the report reads it (docs/run-format.md,
// schema 1). Only the fields the report uses are kept; numbers the run did
// not write stay empty (std::optional), never 0 or -1.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/size.h"
#include "report/op.h"
#include "report/op_list.h"
#include "report/trace_event.h"
#include "run_format/run_format.h"

namespace cgmem::report {

struct PsiTotals {
  double some_total_us = 0, full_total_us = 0;
  double some_avg10 = 0, full_avg10 = 0;
};

// One process in one sampler tick.
struct ProcSample {
  int32_t pid = 0;
  char state = '?';
  std::string wchan;
  uint64_t cpu_ticks = 0;  // utime + stime
};

// One line of samples.jsonl; a file that was not read in that tick is empty.
struct SampleLine {
  int64_t t_ns = 0;
  std::optional<uint64_t> memory_current;
  std::map<std::string, uint64_t> memory_events;
  std::optional<PsiTotals> memory_pressure, io_pressure;
  std::map<std::string, uint64_t> memory_stat;
  std::optional<uint64_t> cpu_usage_usec;
  std::optional<uint64_t> io_rbytes;  // summed over devices
  std::vector<ProcSample> procs;
  // Where the files exist (CONFIG_SWAP, CONFIG_ZSWAP): memory.swap.current,
  // memory.swap.events (high, max, fail) and memory.zswap.current.
  std::optional<uint64_t> swap_current;
  std::map<std::string, uint64_t> swap_events;
  std::optional<uint64_t> zswap_current;
};

// zswap's module parameters as the host read them (meta.json
// host.zswap_settings); a number or flag the file did not have stays empty.
struct ZswapSettings {
  bool enabled = false;
  std::string compressor, zpool;
  std::optional<int> max_pool_percent, accept_threshold_percent;
  std::optional<bool> shrinker_enabled;
};

// The host's swap (meta.json host). `setting` and `kind` are empty in a run
// recorded before cgmem wrote them; the report then knows the size only.
struct HostSwap {
  std::optional<std::string> setting;  // swap_setting: none, disk, zram, zswap, zram+disk
  std::optional<std::string> kind;     // swap_kind: none, disk, zram, zram+disk (/proc/swaps)
  std::optional<uint64_t> total_bytes;  // swap_total_bytes
  std::optional<ZswapSettings> zswap;   // zswap_settings; empty when null or not written
  std::optional<int> swappiness;        // vm.swappiness
};

struct Meta {
  int schema = 0;
  std::string name;
  std::string started_at;
  int64_t started_mono_ns = 0;
  std::optional<Limit> max, high;  // absent when not set
  std::optional<Limit> swap_max;   // memory.swap.max, absent when not set
  std::optional<Limit> swap_high;  // memory.swap.high, absent when not set
  std::optional<uint32_t> high_throttle;  // memory.high.throttle (the RFC's shift), absent when not set
  std::optional<int> cpu, sampler_cpu;
  // spec.sampler_shares_cpu: the sampler and the workload could run on one
  // CPU; empty in a run recorded before it was written.
  std::optional<bool> sampler_shares_cpu;
  bool traced = false;  // spec.trace: `cgmem run --trace`
  double interval_ms = 0, cap_s = 0;
  std::optional<double> neighbour_ms;  // --neighbour: another cgroup allocating on the workload's CPU
  unsigned neighbours = 0;  // --neighbours: how many; 1 with neighbour_ms in a run recorded before the count was
  uint64_t chunk_bytes = 256 * 1024, target_bytes = 0;
  int procs = 1;
  bool populate = false, own_code = false, file = false;
  uint64_t own_code_bytes = 0;  // --own-code-size: the copy walked every op; 0 when not walked
  std::optional<uint64_t> set_own_high;
  std::string kernel;
  int hz = 0;
  std::string hz_source;
  std::string virtualized;  // "kvm", "tcg", "hypervisor"; "" when none was seen
  HostSwap swap;
  uint64_t page_size = 4096;
  std::string code_version, git_commit, binary_hash;
  std::optional<std::string> claim_sha256;
  // A `cgmem run --command` run (docs/own-program.md): no ops.jsonl; the
  // program's and the load generator's argv.
  bool command = false;
  std::vector<std::string> command_argv, load_argv;
  // spec.workload_args (the workload's flags after --), ready_tcp and
  // ready_delay_ms: what `cgmem advise --verify` runs again.
  std::vector<std::string> workload_args;
  std::optional<uint16_t> ready_tcp;
  std::optional<double> ready_delay_ms;
};

struct OutcomeRecord {
  // As written: a status this cgmem does not know (from an older or newer
  // run directory) is kept and shown as it is.
  std::string status;
  bool is(run_format::Status s) const { return status == run_format::to_string(s); }
  std::optional<int> exit_code, signal;
  double duration_s = 0;
  std::optional<double> time_to_kill_s;
  std::map<std::string, uint64_t> events;
  std::optional<uint64_t> peak_bytes;
  std::vector<std::string> errors;
  std::optional<TraceFacts> trace;  // a traced run's "trace" object
};

// Lines a reader could not use, per file: a truncated last line, or a line
// that is not a JSON object of the expected shape.
struct LineCounts {
  uint64_t read = 0;
  uint64_t truncated_last = 0;  // 0 or 1
  uint64_t bad = 0;
};

struct Run {
  std::string dir;
  std::string config;    // none, max, high, both, or the matrix's label
  std::string workload;  // the matrix's label, or the name without -rN
  int rep = 0;           // repetition from the matrix or the -rN suffix, else 0
  // The kernel's label in a batch of several kernels (batch.json's
  // runs[].kernel, docs/matrix.md); empty in a batch of one kernel or none.
  std::string kernel;
  std::optional<int> stock_slots;  // batch.json's kernel.stock_slots: set at boot, else empty
  Meta meta;
  std::optional<OutcomeRecord> outcome;  // absent: the run did not finish
  std::string outcome_problem;     // why an outcome.json there could not be read (read as unfinished)
  OpList ops;
  std::vector<SampleLine> samples;
  LineCounts ops_lines, samples_lines;
  // trace.jsonl (a traced run); trace_problem says why it could not be read.
  std::optional<TraceLog> trace;
  std::string trace_problem;
};

}  // namespace cgmem::report
