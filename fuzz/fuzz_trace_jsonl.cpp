// trace.jsonl (src/report/trace_read.h): any bytes as the file, parsed and
// analysed as a traced run's with fixed trace facts. Nothing may crash or
// throw, and the figures keep their invariants: every sleep is extra or the
// batch's own, the attribution rows share out the extra sleeps, the events
// stay sorted, no per-process row has more sleeps than the run.
#include <algorithm>
#include <cmath>

#include "fuzz.h"
#include "report/jsonl.h"
#include "report/trace_read.h"
#include "report/trace_report.h"
#include "report/trace_view.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  using namespace cgmem::report;
  auto text = fuzz::text(data, size);
  report::for_each_line(text, [](std::string_view line) {
    TraceEvent a, b;
    TraceLine first = parse_trace_line(line, a);
    fuzz::check(first == parse_trace_line(line, b));
    if (first == TraceLine::event) fuzz::check(a.t_ns == b.t_ns && a.pid == b.pid && a.what.index() == b.what.index());
    return first != TraceLine::bad;
  });
  Run run;
  run.meta.name = "fuzz";
  run.meta.virtualized = size % 2 ? "tcg" : "";
  run.meta.procs = 4;
  TraceFacts facts = {.lost = size % 3,
                      .run_cgroup_id = 4242,
                      .neighbour_cgroup_ids = {4250},
                      .driver_pid = 201,
                      .driver_cgroup_id = 1,
                      .cgroups = {{4242, "/claims-x"}}};
  run.outcome = OutcomeRecord{.status = "cap", .trace = facts};
  run.trace = parse_trace(text, size % 5 ? std::optional<uint64_t>(4242) : std::nullopt);
  const auto& events = run.trace->events;
  fuzz::check(std::is_sorted(events.begin(), events.end(),
                             [](const TraceEvent& x, const TraceEvent& y) { return x.t_ns < y.t_ns; }));
  fuzz::check(run.trace->bad + events.size() + run.trace->unknown_events + run.trace->not_kept == run.trace->lines);
  TraceReport t = analyze_trace(run);
  fuzz::check(t.attribution.has_value());
  const Attribution& at = *t.attribution;
  fuzz::check(at.extra_sleeps + at.batch_sleeps == at.sleeps);
  uint64_t attributed = 0;
  for (const auto& r : at.rows) attributed += r.sleeps;
  fuzz::check(attributed == at.extra_sleeps);
  uint64_t process_sleeps = 0;
  for (const auto& p : t.per_process) process_sleeps += p.sleeps;
  fuzz::check(process_sleeps == at.sleeps);
  fuzz::check(t.split && t.split->sleeps <= at.sleeps);
  (void)trace_sections({t});
  (void)trace_json({t}).dump();
  (void)parse_trace_facts(nlohmann::json::parse(text, nullptr, false));
  return 0;
}
