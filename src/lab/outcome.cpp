#include "lab/outcome.h"

#include <sys/wait.h>

#include <csignal>
#include <fmt/format.h>

namespace cgmem::lab {

namespace {

// Fills exit_code/signal from a wait status.
void take_wait_status(int status, Outcome& out) {
  if (WIFEXITED(status)) out.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) out.signal = WTERMSIG(status);
}

Status classify_reaped(const EndFacts& f, Outcome& out) {
  bool oom_rose = f.oom_kill_after && *f.oom_kill_after > f.oom_kill_before;
  bool sigkill = out.signal == SIGKILL;
  if (oom_rose && sigkill) return Status::oom_killed;
  if (oom_rose)
    out.errors.push_back(fmt::format(
        "memory.events oom_kill rose from {} to {} but the workload {}", f.oom_kill_before,
        *f.oom_kill_after,
        out.signal ? fmt::format("died of signal {}", *out.signal)
                   : fmt::format("exited with code {}", out.exit_code.value_or(-1))));
  else if (sigkill)
    out.errors.push_back("the workload died of SIGKILL but memory.events oom_kill did not rise");
  return Status::exited;
}

}  // namespace

Outcome classify(const EndFacts& f) {
  Outcome out;
  out.errors = f.errors;
  if (f.ended_ns >= f.started_ns && f.started)
    out.duration_s = static_cast<double>(f.ended_ns - f.started_ns) / 1e9;
  if (f.wait_status) take_wait_status(*f.wait_status, out);
  if (!f.started) {
    out.status = Status::failed;
  } else if (f.interrupted) {
    out.status = Status::interrupted;
  } else if (f.load_failed) {
    out.status = Status::failed;
  } else if (f.stopped_at_cap) {
    out.status = Status::cap;
  } else if (f.load_finished) {
    out.status = Status::load_done;
  } else if (f.wait_status) {
    out.status = classify_reaped(f, out);
  } else {
    out.status = Status::failed;
    out.errors.push_back("the workload was neither reaped nor stopped");
  }
  if (out.status == Status::oom_killed) out.time_to_kill_s = out.duration_s;
  return out;
}

nlohmann::json to_json(const Outcome& o) {
  auto opt = [](const auto& v) -> nlohmann::json {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  namespace key = run_format::outcome_key;
  return {{key::kStatus, run_format::to_string(o.status)},
          {key::kExitCode, opt(o.exit_code)},
          {key::kSignal, opt(o.signal)},
          {key::kDurationS, o.duration_s},
          {key::kTimeToKillS, opt(o.time_to_kill_s)},
          {key::kErrors, o.errors}};
}

}  // namespace cgmem::lab
