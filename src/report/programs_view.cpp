// programs.md and report.json's "programs": the view of programs.h.
#include <fmt/format.h>

#include "report/programs.h"

namespace cgmem::report {

namespace {

std::string limit_text(const std::optional<Limit>& l) { return l ? format_limit(*l) : "-"; }

std::string outcome_text(const ProgramRun& p) {
  using run_format::Status;
  auto status = run_format::parse_status(p.status);
  if (status == Status::oom_killed && p.time_to_kill_s) return fmt::format("OOM-killed at {} s", num(p.time_to_kill_s));
  if (status == Status::load_done) return fmt::format("alive, load done at {} s", num(p.duration_s));
  if (status == Status::cap) return fmt::format("alive at the cap, {} s", num(p.duration_s));
  return fmt::format("{} after {} s", p.status, num(p.duration_s));
}

std::optional<double> as_double(const std::optional<uint64_t>& v) {
  return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}

// How many results the load printed and when the last came: a load that
// stops printing (a round that never ends) shows here, not in the medians.
std::string results_text(const ProgramRun& p) {
  if (p.load.points.empty()) return "-";
  const auto& last = p.load.points.back();
  return last.t_s ? fmt::format("{}, last at {} s", p.load.points.size(), num(last.t_s))
                  : std::to_string(p.load.points.size());
}

Table overview(const std::vector<ProgramRun>& programs) {
  Table t{.caption = "Each run of your program: outcome, memory, the kernel's counters, and what the load got",
          .head = {"run", "config", "memory.high", "memory.max", "outcome", "peak", "high", "max", "oom_kill",
                   "PSI some s", "in D", "throttled s (sampled / est.)", "throttled share", "pages per sleep",
                   "load results", "load rps", "p99 ms"}};
  for (const auto& p : programs) {
    double d_share = p.samples ? static_cast<double>(p.samples_in_d) / static_cast<double>(p.samples) : 0;
    t.rows.push_back({p.name, p.config, limit_text(p.high), limit_text(p.max), outcome_text(p),
                      mib(as_double(p.peak_bytes)), std::to_string(p.events_high), std::to_string(p.events_max),
                      std::to_string(p.events_oom_kill), num(p.psi_some_s),
                      p.samples ? fmt::format("{}{}", percent(d_share), p.top_wchan.empty() ? "" : " " + p.top_wchan) : "-",
                      fmt::format("{} / {}", num(p.throttled_sampled_s), num(p.throttled_estimated_s)),
                      p.throttled_share ? percent(*p.throttled_share) : "-", num(p.pages_per_sleep),
                      results_text(p), num(p.rps), num(p.p99_ms)});
  }
  return t;
}

Table over_time(const ProgramRun& p) {
  Table t{.caption = fmt::format("{} ({}, {}) against time", p.name, p.config, outcome_text(p)),
          .head = {"from s", "to s", "memory (largest)", "high events", "load rps", "p99 ms"}};
  for (const auto& s : p.slices)
    t.rows.push_back({num_fixed(s.from_s, 1), num_fixed(s.to_s, 1), mib(s.memory_max), std::to_string(s.high_events),
                      num(s.rps), num(s.p99_ms)});
  return t;
}

Table verdicts(const std::vector<ProgramRun>& programs) {
  Table t{.caption = "The model's verdict for the program's working set (as `cgmem translate --working-set`)",
          .head = {"run", "working set", "measured in", "verdict"},
          .prose = true};
  for (const auto& p : programs)
    t.rows.push_back({p.name, mib(as_double(p.working_set)), p.working_set_from.empty() ? "-" : p.working_set_from,
                      p.verdict.empty() ? "-" : p.verdict});
  return t;
}

}  // namespace

std::vector<Section> program_sections(const std::vector<ProgramRun>& programs) {
  if (programs.empty()) return {};
  Section runs{.title = "Your program under the limits"};
  runs.paragraphs = {
      "Runs of `cgmem run --command`: no op lines, so everything here comes from the samples, outcome.json and "
      "the load generator's output (docs/own-program.md). \"in D\": the share of samples with a task in state D, "
      "and the commonest wchan. Throttled time two ways: sampled (ticks with a task asleep in "
      "mem_cgroup_handle_over_high, times the interval) and estimated (each rise of 17 in memory.events high is "
      "one sleep, of the length the kernel's formula gives at the sampled usage); the throttled share is the "
      "sampled time over the run's. The sampler reads the processes of cgroup.procs, not their other threads: "
      "where a multithreaded program's other threads allocate and sleep (a JVM's, a Go runtime's), sampled counts "
      "only the main thread's sleeps and the estimate is the figure to read. Pages per sleep, the touch pattern: pages faulted in (memory.stat pgfault, a "
      "THP fault as 512) in the ticks the high counter rose, per sleep; 64 is one sleep per charge batch (the "
      "per-CPU stock held), 1 one per page (it was emptied each time, as the study's sampler did); page cache "
      "charged by read() and write() takes no fault, so a program that reads files counts fewer. Load columns: how many results the load printed and when the last came "
      "(a round that never ends prints nothing), then medians over them."};
  runs.tables.push_back(overview(programs));
  Section time{.title = "Against time"};
  for (const auto& p : programs) time.tables.push_back(over_time(p));
  Section model{.title = "The model's verdict"};
  model.paragraphs = {"The working set is the largest peak of the same workload's runs without limits (else the run's "
                      "own peak, which a limit may have held down)."};
  model.tables.push_back(verdicts(programs));
  std::vector<std::string> unread, problems;
  for (const auto& p : programs) {
    if (!p.load_error.empty()) problems.push_back(fmt::format("{}: {}", p.name, p.load_error));
    else if (p.load.format.empty()) unread.push_back(p.name);
    for (const auto& problem : p.load.problems) problems.push_back(fmt::format("{}: {}", p.name, problem));
  }
  if (!problems.empty())
    runs.paragraphs.push_back(fmt::format("Load output not read: {}.", fmt::join(problems, "; ")));
  if (!unread.empty())
    runs.paragraphs.push_back(fmt::format(
        "No load results read for {} (no load, or its output is in none of the formats read: redis-benchmark "
        "--csv, pgbench's summary, wrk); the output is kept in each run's load.stdout.",
        fmt::format("{}", fmt::join(unread, ", "))));
  return {runs, time, model};
}

nlohmann::json to_json(const ProgramRun& p) {
  auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  auto limit = [](const std::optional<Limit>& l) {
    return !l ? nlohmann::json(nullptr) : l->is_max() ? nlohmann::json("max") : nlohmann::json(l->bytes());
  };
  nlohmann::json j = {{"name", p.name}, {"workload", p.workload}, {"config", p.config}, {"high", limit(p.high)},
                      {"max", limit(p.max)}, {"status", p.status}, {"duration_s", p.duration_s},
                      {"time_to_kill_s", opt(p.time_to_kill_s)}, {"peak_bytes", opt(p.peak_bytes)},
                      {"events", {{"high", p.events_high}, {"max", p.events_max}, {"oom_kill", p.events_oom_kill}}},
                      {"psi_some_s", opt(p.psi_some_s)}, {"psi_full_s", opt(p.psi_full_s)},
                      {"samples", p.samples}, {"samples_in_d", p.samples_in_d}, {"top_wchan", p.top_wchan},
                      {"throttled_sampled_s", p.throttled_sampled_s}, {"throttled_estimated_s", p.throttled_estimated_s},
                      {"throttled_share", opt(p.throttled_share)}, {"sleeps", p.sleeps},
                      {"pages_faulted_over_high", p.pages_faulted_over_high}, {"pages_per_sleep", opt(p.pages_per_sleep)},
                      {"load_format", p.load.format}, {"load_error", p.load_error},
                      {"load_problems", p.load.problems}, {"load_rps", opt(p.rps)}, {"load_p99_ms", opt(p.p99_ms)},
                      {"working_set_bytes", opt(p.working_set)}, {"working_set_from", p.working_set_from},
                      {"verdict", p.verdict}, {"load_points", nlohmann::json::array()}, {"slices", nlohmann::json::array()}};
  for (const auto& point : p.load.points)
    j["load_points"].push_back({{"test", point.test}, {"t_s", opt(point.t_s)}, {"rps", opt(point.rps)},
                                {"avg_ms", opt(point.avg_ms)}, {"p50_ms", opt(point.p50_ms)},
                                {"p99_ms", opt(point.p99_ms)}, {"max_ms", opt(point.max_ms)}});
  for (const auto& s : p.slices)
    j["slices"].push_back({{"from_s", s.from_s}, {"to_s", s.to_s}, {"memory_max_bytes", opt(s.memory_max)},
                           {"high_events", s.high_events}, {"rps", opt(s.rps)}, {"p99_ms", opt(s.p99_ms)}});
  return j;
}

}  // namespace cgmem::report
