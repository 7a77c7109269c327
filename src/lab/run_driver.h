// `cgmem run`: one experiment, run faithfully, recorded completely.
//
//   1. create the run directory and PARENT/NAME (marked, marker.h), set the
//      limits, read them back as the kernel kept them, write meta.json;
//   2. start `cgmem workload ...` inside, pinned to --cpu, its stdout
//      appended to ops.jsonl; start the --neighbours if asked (all of
//      them charging on --cpu before the workload starts, neighbour.h);
//   3. every --interval, on the sampler CPU, one sampler tick (sampler.h);
//      once a second a progress line on stderr;
//   4. at the workload's end, the --cap, or SIGINT/SIGTERM: a last tick,
//      kill what is left, collect the kernel's OOM lines, classify the
//      outcome (outcome.h), write outcome.json, remove the cgroups.
//
// Placement. The driver pins the workload to --cpu (default 0) and itself,
// the sampler, to --sampler-cpu (default: another CPU when there is one), so
// its own kernel charges (page cache for samples.jsonl, new /proc files)
// land on a CPU whose charge stock the workload does not use.
//
// What it touches besides the run directory (cgroupfs, /proc, /dev/kmsg, the
// clock, the spawner) comes in DriverSetup::system (driver_system.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "common/error.h"
#include "lab/driver_system.h"
#include "lab/outcome.h"
#include "lab/run_options.h"
#include "lab/workload_options.h"
#include "common/sink.h"

namespace cgmem::lab {

struct DriverSetup {
  RunOptions options;
  WorkloadOptions workload;  // parsed from options.workload_args, for meta.json
  std::string self_exe;      // the cgmem binary the workload is started from
  std::string parent;        // the cgroup under which NAME is created
  std::string run_dir;       // absolute
  Machine machine;
  nlohmann::json host;       // meta.json "host"
  nlohmann::json code;       // meta.json "code"
  LineSink progress;         // the once-a-second line (lab/progress.h); empty: none
  DriverSystem system;       // the real one unless a test gives another
};

struct RunResult {
  std::string run_dir;
  Outcome outcome;
  nlohmann::json outcome_json;  // as written to outcome.json
};

// Runs the experiment. An Error means nothing was started (bad parent,
// limits refused, ...) and nothing is left behind; everything after the
// workload started ends in outcome.json, even a failure.
Result<RunResult> run_experiment(const DriverSetup& setup);

}  // namespace cgmem::lab
