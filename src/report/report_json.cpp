#include "report/report_json.h"

#include "report/summary_view.h"

namespace cgmem::report {

std::string dump_json(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}


using nlohmann::json;

namespace {

json opt(std::optional<double> v) { return v ? json(*v) : json(nullptr); }

json range_json(const Range& r) { return {{"min", opt(r.lo)}, {"max", opt(r.hi)}}; }

json bins_json(const std::vector<SleepBin>& bins) {
  json out = json::array();
  for (const auto& b : bins) {
    const auto& v = b.sleeps_per_batch;
    double many = 0;
    for (double x : v) many += x >= 64;
    out.push_back({{"lo_ms", b.lo_ms}, {"hi_ms", b.hi_ms}, {"ops", v.size()},
                   {"median_sleeps_per_64_pages", opt(median(v))},
                   {"share_64_or_more", v.empty() ? json(nullptr) : json(many / static_cast<double>(v.size()))}});
  }
  return out;
}

json sleeps_json(const SleepCheck& c) {
  return {{"ops", c.ops},
          {"ops_with_rise", c.ops_with_rise},
          {"skipped_not_multiple_of_17", c.skipped_not_multiple},
          {"skipped_17k_plus_1", c.skipped_one_over},
          {"formula_no_sleep", c.formula_no_sleep},
          {"compared", c.compared},
          {"median_ratio", opt(c.median_ratio)},
          {"share_within_30pct", opt(c.within_30)},
          {"median_ratio_half_step", opt(c.median_ratio_wheel)},
          {"median_ratio_half_step_level0", opt(c.median_ratio_wheel_level0)},
          {"median_ratio_half_step_upper", opt(c.median_ratio_wheel_upper)},
          {"median_late_ms", opt(c.median_late_ms)},
          {"median_sleeps_per_op_formula_50ms", opt(c.median_sleeps_50ms)},
          {"slow_phase_share", opt(c.slow_phase_share)},
          {"capped_ops", c.capped_ops},
          {"median_capped_sleep_ms", opt(c.median_capped_sleep_ms)},
          {"in_flight", c.in_flight},
          {"in_flight_sleeps", c.in_flight_sleeps ? json(*c.in_flight_sleeps) : json(nullptr)}};
}

}  // namespace

json to_json(const RunSummary& r) {
  return {{"name", r.name}, {"dir", r.dir}, {"config", r.config}, {"workload", r.workload},
          {"rep", r.rep}, {"finished", r.finished}, {"status", r.status}, {"killed", r.killed},
          {"time_to_kill_s", opt(r.time_to_kill_s)}, {"duration_s", r.duration_s},
          {"peak_bytes", opt(r.peak_bytes)}, {"final_bytes", opt(r.final_bytes)},
          {"ops", r.ops}, {"median_op_ms", opt(r.median_op_ms)}, {"median_churn_ms", opt(r.median_churn_ms)},
          {"p99_last10_ms", opt(r.p99_last10_ms)}, {"median_last10_ms", opt(r.median_last10_ms)},
          {"events", {{"high", r.events_high}, {"max", r.events_max}, {"oom_kill", r.events_oom_kill}}},
          {"psi_memory_some_s", opt(r.psi_memory_some_s)}, {"psi_memory_full_s", opt(r.psi_memory_full_s)},
          {"psi_io_some_s", opt(r.psi_io_some_s)}, {"pgsteal", opt(r.pgsteal)}, {"rbytes", opt(r.rbytes)},
          {"cpu_s", opt(r.cpu_s)}, {"state_d_share", opt(r.state_d_share)},
          {"top_wchan", r.top_wchan.empty() ? json(nullptr) : json(r.top_wchan)},
          {"truncated_lines", r.truncated_lines}, {"bad_lines", r.bad_lines}};
}

json to_json(const GroupSummary& g) {
  return {{"config", g.config}, {"workload", g.workload}, {"runs", g.runs}, {"finished", g.finished},
          {"killed", g.killed}, {"outcome", outcome_text(g)},
          {"time_to_kill_s", range_json(g.time_to_kill_s)}, {"duration_s", range_json(g.duration_s)},
          {"peak_bytes", range_json(g.peak_bytes)}, {"final_bytes", range_json(g.final_bytes)},
          {"median_op_ms", range_json(g.median_op_ms)}, {"p99_last10_ms", range_json(g.p99_last10_ms)},
          {"events_high", range_json(g.events_high)}, {"events_max", range_json(g.events_max)},
          {"events_oom_kill", range_json(g.events_oom_kill)},
          {"psi_memory_some_s", range_json(g.psi_memory_some_s)},
          {"psi_memory_full_s", range_json(g.psi_memory_full_s)},
          {"psi_io_some_s", range_json(g.psi_io_some_s)}, {"pgsteal", range_json(g.pgsteal)},
          {"rbytes", range_json(g.rbytes)}, {"cpu_s", range_json(g.cpu_s)},
          {"state_d_share", range_json(g.state_d_share)}, {"wchans", g.wchans}};
}

json to_json(const RunPrediction& p) {
  json out = {{"name", p.name}, {"config", p.config}, {"workload", p.workload}, {"hz", p.hz},
              {"skipped", p.skipped.empty() ? json(nullptr) : json(p.skipped)}};
  out["sleeps"] = p.sleeps ? sleeps_json(*p.sleeps) : json(nullptr);
  out["sleeps_17k_plus_1_as_k"] = p.sleeps_one_over ? sleeps_json(*p.sleeps_one_over) : json(nullptr);
  out["bins"] = p.sleeps ? bins_json(p.bins) : json::array();
  if (p.kill) {
    const auto& k = *p.kill;
    out["kill"] = {{"sleep_start_s", k.sleep_start_s}, {"sleep_start_bytes", k.sleep_start_bytes},
                   {"max_bytes", k.max_bytes}, {"predicted_per_page_s", k.predicted_page_s},
                   {"predicted_per_batch_s", k.predicted_batch_s}, {"measured_s", opt(k.measured_s)},
                   {"duration_s", k.duration_s}, {"start_in_flight", k.start_in_flight},
                   {"per_page", k.per_page ? json(*k.per_page) : json(nullptr)}, {"own_time_s", opt(k.own_time_s)}};
  } else {
    out["kill"] = nullptr;
  }
  if (p.psi) {
    out["psi"] = {{"normal_ms", p.psi->normal_ms}, {"excess_s", p.psi->excess_s},
                  {"psi_some_s", opt(p.psi->psi_some_s)}, {"ratio", opt(p.psi->ratio)},
                  {"in_flight_s", opt(p.psi->in_flight_s)}};
  } else {
    out["psi"] = nullptr;
  }
  if (p.growth) {
    const auto& g = *p.growth;
    out["growth"] = {{"procs", g.procs}, {"window_s", g.window_s}, {"start_bytes", g.start_bytes}, {"end_bytes", g.end_bytes},
                     {"measured_kib_s", g.measured_kib_s},
                     {"measured_from", g.measured_from_anon ? "memory.stat anon" : "memory.current"},
                     {"model_per_page_kib_s", opt(g.model_page_kib_s)},
                     {"model_per_batch_kib_s", opt(g.model_batch_kib_s)}, {"pages_per_sleep", opt(g.pages_per_sleep)}};
  } else {
    out["growth"] = nullptr;
  }
  // Only for a run with memory.swap.high (section 7), so a run without reads as before.
  if (p.swap_high)
    out["swap_high"] = {{"swap_high_bytes", p.swap_high->swap_high_bytes}, {"sleeps", sleeps_json(p.swap_high->sleeps)},
                        {"median_swap_over", opt(p.swap_high->median_swap_over)},
                        {"median_swap_share", opt(p.swap_high->median_swap_share)}};
  return out;
}

}  // namespace cgmem::report
