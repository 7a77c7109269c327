// How a run ended (outcome.json in docs/run-format.md), decided from facts
// the driver collected: the workload's wait status, memory.events oom_kill
// before and after, whether the cap or a signal to the driver stopped it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "run_format/run_format.h"

namespace cgmem::lab {

using run_format::Status;  // outcome.json's "status", as the contract names it

struct EndFacts {
  bool started = false;                // the workload process was started
  std::optional<int> wait_status;      // from waitpid, when the workload was reaped on its own
  bool stopped_at_cap = false;         // the driver killed it at --cap
  bool interrupted = false;            // SIGINT/SIGTERM to the driver
  bool load_finished = false;          // --load ended and the driver stopped the program
  bool load_failed = false;            // --load could not be started: the run failed
  uint64_t oom_kill_before = 0;        // memory.events oom_kill when the workload started
  std::optional<uint64_t> oom_kill_after;  // at the end (absent when unreadable)
  uint64_t started_ns = 0;
  uint64_t ended_ns = 0;               // when the run ended (reaped, or stopped)
  std::vector<std::string> errors;
};

struct Outcome {
  Status status = Status::failed;
  std::optional<int> exit_code;
  std::optional<int> signal;
  double duration_s = 0;
  std::optional<double> time_to_kill_s;
  std::vector<std::string> errors;  // facts' errors plus disagreements found here
};

// An OOM kill needs both witnesses: the workload died of SIGKILL and
// memory.events oom_kill rose. When they disagree the run is classified by
// the wait status and the disagreement is added to the errors.
Outcome classify(const EndFacts& facts);

// outcome.json; `events` (memory.events at the end), `peak_bytes`, `ops`
// and `samples` are added by the caller.
nlohmann::json to_json(const Outcome& outcome);

}  // namespace cgmem::lab
