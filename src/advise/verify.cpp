#include "advise/verify.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/programs.h"
#include "report/stats.h"

namespace cgmem::advise {
namespace {

std::string number(double v) { return fmt::format("{:g}", v); }

double input_duration(const report::Run& run) { return run.outcome ? run.outcome->duration_s : run.meta.cap_s; }

// The input run was still growing when its cap stopped it: run again with
// more time, it goes on growing (a leak), unless it is the workload and
// its own --target fits under memory.max. One that ended by itself (its
// program exited, its load finished) grows as far again and no further.
bool leaks_on(bool growing, const report::Run& input, const Advice& a) {
  if (!growing || !input.outcome || !input.outcome->is(run_format::Status::cap)) return false;
  return input.meta.command || input.meta.target_bytes == 0 || input.meta.target_bytes > a.memory_max_bytes;
}

// The share of the run's sampled time a task stalled on memory (PSI some).
std::optional<double> stalled_share(const report::Run& run) {
  const report::SampleLine *first = nullptr, *last = nullptr;
  for (const report::SampleLine& s : run.samples)
    if (s.memory_pressure) (first ? last : first) = &s;
  if (!first || !last || last->t_ns <= first->t_ns) return std::nullopt;
  double stalled_s = (last->memory_pressure->some_total_us - first->memory_pressure->some_total_us) / 1e6;
  return std::clamp(stalled_s / (static_cast<double>(last->t_ns - first->t_ns) / 1e9), 0.0, 1.0);
}

std::optional<double> median_op_ms(const report::Run& run) {
  std::vector<double> lat;
  for (const report::Op& op : run.ops) lat.push_back(static_cast<double>(op.lat_ns) / 1e6);
  return report::median(std::move(lat));
}

// Seconds from the input run's first sample to its working set's peak.
double time_to_peak(const Usage& u) {
  for (const Point& p : u.series)
    if (p.working_set == u.working_set) return p.t_s;
  return u.duration_s;
}

Check killed_check(const Advice& a, const Usage& u, const report::Run& input, const report::Run& limited) {
  bool leak = leaks_on(u.growing, input, a);
  bool predicted = a.predictions.front().verdict.kind == model::VerdictKind::oom || leak;
  bool killed = limited.outcome && limited.outcome->is(run_format::Status::oom_killed);
  return {.what = "killed",
          .predicted = predicted ? (leak ? "yes: its cap stopped it still growing, and a leak meets memory.max" : "yes")
                                 : "no: " + std::string(model::kind_name(a.predictions.front().verdict.kind)) + " at the working set",
          .measured = limited.outcome ? limited.outcome->status : "unfinished",
          .holds = killed == predicted};
}

std::optional<Check> kill_time_check(const Advice& a, const Usage& u, const report::Run& input,
                                     const report::Run& limited) {
  if (!leaks_on(u.growing, input, a) || !a.leak || a.leak->basis != "growth" || !limited.outcome || !limited.outcome->time_to_kill_s) return std::nullopt;
  double start = time_to_peak(u);
  double low = start + a.leak->seconds_to_kill_per_batch, high = start + a.leak->seconds_to_kill_per_page;
  double measured = *limited.outcome->time_to_kill_s;
  return Check{.what = "time to kill",
               .predicted = fmt::format("{:.2f} s (one sleep per batch) to {:.2f} s (one per page), at most {:.2f} s "
                                        "with reclaim's {:g}%",
                                        low, high, high * (1 + kKillSlack), kKillSlack * 100),
               .measured = fmt::format("{:.2f} s", measured),
               .holds = measured <= high * (1 + kKillSlack)};
}

}  // namespace

bool Verification::holds() const {
  return std::all_of(checks.begin(), checks.end(), [](const Check& c) { return c.holds.value_or(true); });
}

std::vector<std::string> rerun_args(const report::Run& input, const Advice& a, const std::string& out,
                                    const std::string& name, bool limited) {
  const report::Meta& m = input.meta;
  std::vector<std::string> args = {"run", "--name", name, "--out", out, "--quiet"};
  if (limited) args.insert(args.end(), {"--max", std::to_string(a.memory_max_bytes)});
  if (limited && a.memory_high_bytes) args.insert(args.end(), {"--high", std::to_string(*a.memory_high_bytes)});
  // A leak must have the time to meet memory.max: twice the per-page bound
  // from the input run's end, and 5 s for the start.
  double cap = m.cap_s;
  if (limited && a.leak && leaks_on(a.leak->basis == "growth", input, a))
    cap = std::max(cap, 2 * (input_duration(input) + a.leak->seconds_to_kill_per_page) + 5);
  if (cap > 0) args.insert(args.end(), {"--cap", number(std::ceil(cap * 1000) / 1000) + "s"});
  if (m.interval_ms > 0) args.insert(args.end(), {"--interval", number(m.interval_ms) + "ms"});
  if (m.cpu) args.insert(args.end(), {"--cpu", std::to_string(*m.cpu)});
  if (m.sampler_cpu) args.insert(args.end(), {"--sampler-cpu", std::to_string(*m.sampler_cpu)});
  if (m.neighbour_ms) {
    args.insert(args.end(), {"--neighbour", number(*m.neighbour_ms) + "ms"});
    if (m.neighbours > 1) args.insert(args.end(), {"--neighbours", std::to_string(m.neighbours)});
  }
  if (m.command) {
    args.push_back("--command");
    if (m.ready_tcp) args.insert(args.end(), {"--ready-tcp", std::to_string(*m.ready_tcp)});
    if (m.ready_delay_ms) args.insert(args.end(), {"--ready-delay", number(*m.ready_delay_ms) + "ms"});
    args.push_back("--");
    args.insert(args.end(), m.command_argv.begin(), m.command_argv.end());
    if (!m.load_argv.empty()) {
      args.insert(args.end(), {"--load", "--"});
      args.insert(args.end(), m.load_argv.begin(), m.load_argv.end());
    }
  } else {
    args.push_back("--");
    args.insert(args.end(), m.workload_args.begin(), m.workload_args.end());
  }
  return args;
}

Verification verify(const Advice& a, const Usage& u, const report::Run& input, const report::Run& limited) {
  Verification v{.dir = limited.dir, .status = limited.outcome ? limited.outcome->status : "unfinished"};
  v.checks.push_back(killed_check(a, u, input, limited));
  const bool leak = leaks_on(u.growing, input, a);
  const model::Verdict& at_ws = a.predictions.front().verdict;
  auto share = stalled_share(limited);
  // Page cache outside the working set is reclaimed and may be read back:
  // the model has no term for that, so the stall is shown, not bounded.
  bool cache = a.page_cache_outside_bytes > kPageCacheShare * static_cast<double>(a.working_set_bytes);
  bool bounded = at_ws.kind == model::VerdictKind::fits && !leak && !cache;
  v.checks.push_back({.what = "stalled share",
                      .predicted = bounded ? fmt::format("at most {:g}%: it fits", kFitsStallShare * 100)
                                   : cache ? fmt::format("not bounded: {} of page cache outside the working set",
                                                         format_bytes(a.page_cache_outside_bytes))
                                   : leak ? std::string("not bounded: a leak is throttled on its way to memory.max")
                                           : fmt::format("{} at the working set: not bounded", model::kind_name(at_ws.kind)),
                      .measured = share ? fmt::format("{:.1f}%", *share * 100) : "no memory.pressure samples",
                      .holds = bounded && share ? std::optional<bool>(*share <= kFitsStallShare) : std::nullopt});
  if (auto kill = kill_time_check(a, u, input, limited)) v.checks.push_back(*kill);
  auto before = median_op_ms(input), after = median_op_ms(limited);
  if (before && after && *before > 0)
    v.checks.push_back({.what = "slowdown",
                        .predicted = leak ? "a leak slows as it climbs to memory.max"
                                     : at_ws.kind == model::VerdictKind::fits ? "none: it fits" : at_ws.summary,
                        .measured = fmt::format("median op {:.3f} ms against {:.3f} ms without limits: {:.2f}x",
                                                *after, *before, *after / *before)});
  if (input.meta.command) {
    auto programs = report::summarize_programs({input, limited}, 1);
    if (programs.size() == 2 && programs[0].rps && programs[1].rps && *programs[0].rps > 0) {
      const report::ProgramRun &free = programs[0], &held = programs[1];
      std::string p99 = free.p99_ms && held.p99_ms
                            ? fmt::format(", p99 {:.3f} ms against {:.3f} ms", *held.p99_ms, *free.p99_ms)
                            : "";
      v.checks.push_back({.what = "load",
                          .predicted = at_ws.kind == model::VerdictKind::fits ? "as without limits: it fits" : at_ws.summary,
                          .measured = fmt::format("{:.0f} requests/s against {:.0f} without limits ({:.2f}x){}",
                                                  *held.rps, *free.rps, *held.rps / *free.rps, p99)});
    }
  }
  return v;
}

}  // namespace cgmem::advise
