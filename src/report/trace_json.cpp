// report.json's `trace` (trace_view.h): every figure of the trace section,
// unrounded; times in ns, shares as 0..1, a value the run did not give null.
#include "report/trace_view.h"

namespace cgmem::report {

namespace {

using nlohmann::json;

template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json part_json(const SplitPart& p) {
  return {{"median", or_null(p.median_ns)}, {"mean", or_null(p.mean_ns)}, {"of_penalty", or_null(p.of_penalty)}};
}

json split_json(const SleepSplit& p) {
  return {{"sleeps", p.sleeps},
          {"ended_early", p.ended_early},
          {"without_sleep_line", p.without_sleep_line},
          {"without_wakeup", p.without_wakeup},
          {"reclaim_ns", part_json(p.reclaim)},
          {"penalty_ns", part_json(p.penalty)},
          {"timer_ns", part_json(p.timer)},
          {"wakeup_ns", part_json(p.wakeup)},
          {"rest_ns", part_json(p.rest)},
          {"median_ratio", or_null(p.median_ratio)},
          {"ratio_of_sums", or_null(p.ratio_of_sums)},
          {"timer_share_of_extra", or_null(p.timer_share_of_extra)},
          {"study_ratio", {{"min", kStudyRatioLo}, {"max", kStudyRatioHi}}},
          {"study_timer_share_of_extra", kStudyTimerShare},
          {"driver_wakeups", p.driver_wakeups},
          {"driver_wakeup_median_ns", or_null(p.driver_wakeup_median_ns)},
          {"emulator_share_of_wakeup", or_null(p.emulator_share_of_wakeup)}};
}

json attribution_json(const Attribution& a) {
  json rows = json::array();
  for (const auto& r : a.rows)
    rows.push_back({{"cause", r.cause},
                    {"cgroup", or_null(r.cgroup)},
                    {"comm", r.comm},
                    {"sleeps", r.sleeps},
                    {"share", r.share}});
  return rows;
}

json process_json(const std::vector<ProcessRow>& rows) {
  json out = json::array();
  for (const auto& r : rows)
    out.push_back({{"pid", r.pid},
                   {"comm", r.comm},
                   {"sleeps", r.sleeps},
                   {"ops", r.ops},
                   {"pages", r.pages},
                   {"pages_per_sleep", or_null(r.pages_per_sleep)},
                   {"asleep_s", r.asleep_s}});
  return out;
}

json one_trace_json(const TraceReport& t) {
  const Attribution* a = t.attribution ? &*t.attribution : nullptr;
  auto count = [&](uint64_t Attribution::*field) { return a ? json(a->*field) : json(nullptr); };
  return {{"name", t.name},
          {"dir", t.dir},
          {"config", t.config},
          {"workload", t.workload},
          {"events", or_null(t.events)},
          {"lost", or_null(t.lost)},
          {"lost_by_cpu", t.lost_by_cpu},
          {"errors", t.errors},
          {"lines", t.lines},
          {"bad_lines", t.bad_lines},
          {"truncated_lines", t.truncated_lines},
          {"unknown_events", t.unknown_events},
          {"problems", t.problems},
          {"own_cpu", t.own_cpu},
          {"emulated", t.emulated},
          {"sleeps", count(&Attribution::sleeps)},
          {"extra_sleeps", count(&Attribution::extra_sleeps)},
          {"batch_sleeps", count(&Attribution::batch_sleeps)},
          {"attribution", a ? attribution_json(*a) : json(nullptr)},
          {"split", t.split ? split_json(*t.split) : json(nullptr)},
          {"per_process", process_json(t.per_process)}};
}

}  // namespace

json trace_json(const std::vector<TraceReport>& traces) {
  json out = json::array();
  for (const auto& t : traces) out.push_back(one_trace_json(t));
  return out;
}

}  // namespace cgmem::report
