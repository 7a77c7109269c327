#include "report/in_flight.h"

namespace cgmem::report {

namespace {

bool stopped_from_outside(const Run& run) {
  if (!run.outcome) return true;  // the driver died: the op it was in is lost too
  using run_format::Status;
  return run.outcome->is(Status::cap) || run.outcome->is(Status::oom_killed) || run.outcome->is(Status::interrupted);
}

std::optional<uint64_t> high_of(const std::map<std::string, uint64_t>& events) {
  auto it = events.find("high");
  if (it == events.end()) return std::nullopt;
  return it->second;
}

}  // namespace

std::optional<InFlight> in_flight(const Run& run) {
  if (run.meta.procs > 1 || run.ops.empty() || !stopped_from_outside(run)) return std::nullopt;
  const Op* last = nullptr;
  for (const auto& op : run.ops)
    if (!last || op.end_ns() >= last->end_ns()) last = &op;
  InFlight f{.start_ns = last->end_ns(), .current = last->current_after};
  // The last tick that still saw the workload (at the cap the driver's last
  // line is taken just before the kill).
  std::optional<uint64_t> high;
  for (const auto& s : run.samples) {
    if (s.procs.empty() || s.t_ns < f.start_ns) continue;
    if (auto h = high_of(s.memory_events)) f.end_ns = s.t_ns, high = h;
  }
  // Killed: the op ended at the kill, with the counters of the outcome.
  // (a time no run takes, from a damaged outcome.json, is not converted)
  auto ttk = run.outcome ? run.outcome->time_to_kill_s : std::nullopt;
  if (ttk && run.outcome->is(run_format::Status::oom_killed) && *ttk >= 0 && *ttk < 1e8) {
    f.end_ns = run.meta.started_mono_ns + static_cast<int64_t>(*ttk * 1e9);
    if (auto h = high_of(run.outcome->events)) high = h;
  }
  if (f.end_ns <= f.start_ns || !high || *high < last->high_after) return std::nullopt;
  f.high_rise = *high - last->high_after;
  return f;
}

}  // namespace cgmem::report
