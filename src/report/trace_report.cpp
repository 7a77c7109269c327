#include "report/trace_report.h"

namespace cgmem::report {

namespace {

bool had_cpu_to_itself(const Meta& m) {
  bool neighbour = (m.neighbour_ms && *m.neighbour_ms > 0) || m.neighbours > 0;
  return !neighbour && m.sampler_shares_cpu.has_value() && !*m.sampler_shares_cpu;
}

}  // namespace

bool is_traced(const Run& run) {
  return run.meta.traced || (run.outcome && run.outcome->trace) || run.trace || !run.trace_problem.empty();
}

TraceReport analyze_trace(const Run& run) {
  TraceReport t{.name = run.meta.name, .dir = run.dir, .config = run.config, .workload = run.workload};
  t.own_cpu = had_cpu_to_itself(run.meta);
  t.emulated = run.meta.virtualized == "tcg";
  const TraceFacts* facts = run.outcome && run.outcome->trace ? &*run.outcome->trace : nullptr;
  if (facts) {
    t.events = facts->events;
    t.lost = facts->lost;
    t.lost_by_cpu = facts->lost_by_cpu;
    t.errors = facts->errors;
  } else {
    t.problems.push_back(run.outcome ? "outcome.json has no trace facts (the cgroup ids, the lost events)"
                                     : "the run did not finish: no outcome.json, so no trace facts (the cgroup "
                                       "ids, the lost events)");
  }
  if (!run.trace_problem.empty()) t.problems.push_back(run.trace_problem);
  if (!run.trace) return t;
  const TraceLog& log = *run.trace;
  t.lines = log.lines;
  t.bad_lines = log.bad;
  t.truncated_lines = log.truncated_last;
  t.unknown_events = log.unknown_events;
  if (facts && facts->run_cgroup_id)
    t.attribution = attribute_sleeps(log.events, *facts);
  else if (facts)
    t.problems.push_back("outcome.json's trace facts have no run_cgroup_id: no attribution");
  t.split = split_sleeps(log.events, facts ? facts->driver_pid : std::nullopt, t.emulated);
  t.per_process = per_process(run);
  return t;
}

}  // namespace cgmem::report
