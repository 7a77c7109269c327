#include "report/summary_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace cgmem::report {

namespace {

const std::vector<std::string> kHead = {
    "config", "runs", "outcome", "killed at (s)", "peak memory.current", "final memory.current",
    "median op (ms)", "p99 last 10% (ms)", "high", "max", "oom_kill", "PSI mem some (s)",
    "PSI mem full (s)", "PSI io some (s)", "pgsteal", "read (MB)", "CPU (s)", "state D", "wchan"};

std::string mb(std::optional<double> bytes) { return bytes ? num(*bytes / 1e6) : "-"; }

std::string whole(std::optional<double> v) { return v ? fmt::format("{:.0f}", *v) : "-"; }

std::vector<std::string> group_row(const GroupSummary& g) {
  std::string wchan = g.wchans.empty() ? "-" : mode(g.wchans);
  return {g.config, std::to_string(g.runs), outcome_text(g), range(g.time_to_kill_s),
          range(g.peak_bytes, mib), range(g.final_bytes, mib), range(g.median_op_ms),
          range(g.p99_last10_ms), range(g.events_high, whole), range(g.events_max, whole),
          range(g.events_oom_kill, whole), range(g.psi_memory_some_s), range(g.psi_memory_full_s),
          range(g.psi_io_some_s), range(g.pgsteal, whole), range(g.rbytes, mb), range(g.cpu_s),
          range(g.state_d_share, percent), wchan};
}

std::string run_outcome(const RunSummary& r) {
  if (!r.finished) return "unfinished";
  if (r.killed) return "killed";
  if (run_format::parse_status(r.status) == run_format::Status::cap) return fmt::format("not killed in {} s", num(r.duration_s));
  return r.status;
}

std::vector<std::string> run_row(const RunSummary& r) {
  auto u = [](uint64_t v) { return std::to_string(v); };
  return {r.name, r.config, run_outcome(r), num(r.time_to_kill_s), mib(r.peak_bytes),
          mib(r.final_bytes), num(r.median_op_ms), num(r.p99_last10_ms), u(r.events_high),
          u(r.events_max), u(r.events_oom_kill), num(r.psi_memory_some_s), num(r.psi_memory_full_s),
          num(r.psi_io_some_s), whole(r.pgsteal), mb(r.rbytes), num(r.cpu_s),
          percent(r.state_d_share), r.top_wchan.empty() ? "-" : r.top_wchan};
}

}  // namespace

std::string outcome_text(const GroupSummary& g) {
  if (g.killed == g.runs) return fmt::format("killed ({} of {})", g.killed, g.runs);
  std::vector<std::string> parts;
  if (g.killed) parts.push_back(fmt::format("killed {} of {}", g.killed, g.runs));
  if (g.capped)
    parts.push_back(fmt::format("not killed in {} s ({} of {})", num(g.cap_s.hi), g.capped, g.runs));
  if (g.exited) parts.push_back(fmt::format("finished ({} of {})", g.exited, g.runs));
  int other = g.finished - g.killed - g.capped - g.exited;
  if (other > 0) parts.push_back(fmt::format("other ({} of {})", other, g.runs));
  if (g.finished < g.runs) parts.push_back(fmt::format("unfinished ({} of {})", g.runs - g.finished, g.runs));
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) text += "; ";
    text += parts[i];
  }
  return text;
}

std::vector<Section> summary_sections(const std::vector<RunSummary>& runs,
                                      const std::vector<GroupSummary>& groups) {
  std::vector<Section> out;
  std::vector<std::string> order;
  for (const auto& g : groups)
    if (std::find(order.begin(), order.end(), g.workload) == order.end()) order.push_back(g.workload);
  for (const auto& w : order) {
    Section s{.title = "Workload " + w};
    Table by_config{.caption = "Per config (range over repetitions)", .head = kHead};
    for (const auto& g : groups)
      if (g.workload == w) by_config.rows.push_back(group_row(g));
    Table by_run{.caption = "Per run", .head = kHead};
    by_run.head[0] = "run";
    by_run.head[1] = "config";
    for (const auto& r : runs)
      if (r.workload == w) by_run.rows.push_back(run_row(r));
    s.tables = {std::move(by_config), std::move(by_run)};
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace cgmem::report
