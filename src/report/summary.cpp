#include "report/summary.h"

#include <algorithm>
#include <map>

namespace cgmem::report {

using run_format::Status;

namespace {

// Median of all ops and p99 of the last 10% of ops by start time (at least one op).
void latency_columns(const Run& run, RunSummary& s) {
  if (run.ops.empty()) return;
  std::vector<double> lat;
  lat.reserve(run.ops.size());
  for (const auto& op : run.ops) lat.push_back(static_cast<double>(op.lat_ns) / kNsPerMs);
  s.median_op_ms = quantile_in_place(lat, 0.5);
  std::vector<double> churn;
  for (const auto& op : run.ops)
    if (op.phase == run_format::Phase::churn) churn.push_back(static_cast<double>(op.lat_ns) / kNsPerMs);
  s.median_churn_ms = quantile_in_place(churn, 0.5);
  size_t n = (run.ops.size() + 9) / 10;
  std::vector<double> tail;
  tail.reserve(n);
  // One process logs in time order; several interleave and need a sort.
  if (std::is_sorted(run.ops.begin(), run.ops.end(), [](const Op& a, const Op& b) { return a.t_ns < b.t_ns; })) {
    size_t i = 0, first = run.ops.size() - n;
    for (const auto& op : run.ops)
      if (i++ >= first) tail.push_back(static_cast<double>(op.lat_ns) / kNsPerMs);
  } else {
    std::vector<std::pair<int64_t, double>> by_time;
    by_time.reserve(run.ops.size());
    for (const auto& op : run.ops) by_time.emplace_back(op.t_ns, static_cast<double>(op.lat_ns) / kNsPerMs);
    std::stable_sort(by_time.begin(), by_time.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = by_time.size() - n; i < by_time.size(); ++i) tail.push_back(by_time[i].second);
  }
  s.p99_last10_ms = quantile_in_place(tail, 0.99);
  s.median_last10_ms = quantile_in_place(tail, 0.5);
}

// Peak: every reading. Final: the latest reading while the workload was
// alive (an op's, or a sample that lists processes), so the driver's last
// tick after the kill or the cap, in an empty cgroup, does not count.
void memory_columns(const Run& run, RunSummary& s) {
  std::optional<double> peak;
  int64_t last_t = INT64_MIN;
  bool any_procs = std::any_of(run.samples.begin(), run.samples.end(), [](const SampleLine& x) { return !x.procs.empty(); });
  auto see = [&](int64_t t, double v, bool alive) {
    peak = peak ? std::max(*peak, v) : v;
    if (alive && t >= last_t) last_t = t, s.final_bytes = v;
  };
  for (const auto& op : run.ops) see(op.end_ns(), static_cast<double>(op.current_after), true);
  for (const auto& smp : run.samples)
    if (smp.memory_current) see(smp.t_ns, static_cast<double>(*smp.memory_current), !any_procs || !smp.procs.empty());
  s.peak_bytes = peak;
}

// The last sample that has each file; cgroups are fresh per run, so the
// cumulative counters there are the run's totals.
void counter_columns(const Run& run, RunSummary& s) {
  const std::map<std::string, uint64_t>* events = nullptr;
  for (const auto& smp : run.samples) {
    if (!smp.memory_events.empty()) events = &smp.memory_events;
    if (smp.memory_pressure) {
      s.psi_memory_some_s = smp.memory_pressure->some_total_us / 1e6;
      s.psi_memory_full_s = smp.memory_pressure->full_total_us / 1e6;
    }
    if (smp.io_pressure) s.psi_io_some_s = smp.io_pressure->some_total_us / 1e6;
    if (auto it = smp.memory_stat.find("pgsteal"); it != smp.memory_stat.end())
      s.pgsteal = static_cast<double>(it->second);
    if (smp.io_rbytes) s.rbytes = static_cast<double>(*smp.io_rbytes);
    if (smp.cpu_usage_usec) s.cpu_s = static_cast<double>(*smp.cpu_usage_usec) / 1e6;
  }
  if (run.outcome && !run.outcome->events.empty()) events = &run.outcome->events;
  if (events) {
    auto get = [&](const char* k) { auto it = events->find(k); return it == events->end() ? 0 : it->second; };
    s.events_high = get("high");
    s.events_max = get("max");
    s.events_oom_kill = get("oom_kill");
  } else if (!run.ops.empty()) {
    s.events_high = run.ops.back().high_after;
    s.events_max = run.ops.back().max_after;
  }
}

void process_columns(const Run& run, RunSummary& s) {
  uint64_t total = 0, in_d = 0;
  std::vector<std::string> wchans;
  for (const auto& smp : run.samples) {
    for (const auto& p : smp.procs) {
      ++total;
      if (p.state == 'D') ++in_d;
      if (!p.wchan.empty() && p.wchan != "0") wchans.push_back(p.wchan);
    }
  }
  if (total) s.state_d_share = static_cast<double>(in_d) / static_cast<double>(total);
  s.top_wchan = mode(wchans);
}

double last_time_s(const Run& run) {
  int64_t last = run.meta.started_mono_ns;
  for (const auto& op : run.ops) last = std::max(last, op.end_ns());
  if (!run.samples.empty()) last = std::max(last, run.samples.back().t_ns);
  return static_cast<double>(last - run.meta.started_mono_ns) / 1e9;
}

}  // namespace

RunSummary summarize(const Run& run) {
  RunSummary s;
  s.name = run.meta.name;
  s.config = run.config;
  s.workload = run.workload;
  s.dir = run.dir;
  s.rep = run.rep;
  s.finished = run.outcome.has_value();
  s.status = s.finished ? run.outcome->status : "unfinished";
  s.duration_s = s.finished ? run.outcome->duration_s : last_time_s(run);
  s.ops = run.ops.size();
  latency_columns(run, s);
  memory_columns(run, s);
  counter_columns(run, s);
  process_columns(run, s);
  s.killed = (run.outcome && run.outcome->is(Status::oom_killed)) || s.events_oom_kill > 0;
  if (s.killed && run.outcome) s.time_to_kill_s = run.outcome->time_to_kill_s;
  s.truncated_lines = run.ops_lines.truncated_last + run.samples_lines.truncated_last;
  s.bad_lines = run.ops_lines.bad + run.samples_lines.bad;
  return s;
}

namespace {

int config_rank(const std::string& config) {
  static const char* order[] = {"none", "max", "high", "both"};
  for (int i = 0; i < 4; ++i)
    if (config == order[i]) return i;
  return 4;
}

void add(GroupSummary& g, const RunSummary& r) {
  auto u = [](uint64_t v) { return std::optional<double>(static_cast<double>(v)); };
  ++g.runs;
  g.finished += r.finished;
  g.killed += r.killed;
  auto status = run_format::parse_status(r.status);
  if (!r.killed && status == Status::cap) ++g.capped, g.cap_s.add(r.duration_s);
  if (!r.killed && status == Status::exited) ++g.exited;
  g.time_to_kill_s.add(r.time_to_kill_s);
  g.duration_s.add(r.duration_s);
  g.peak_bytes.add(r.peak_bytes);
  g.final_bytes.add(r.final_bytes);
  g.median_op_ms.add(r.median_op_ms);
  g.p99_last10_ms.add(r.p99_last10_ms);
  g.events_high.add(u(r.events_high));
  g.events_max.add(u(r.events_max));
  g.events_oom_kill.add(u(r.events_oom_kill));
  g.psi_memory_some_s.add(r.psi_memory_some_s);
  g.psi_memory_full_s.add(r.psi_memory_full_s);
  g.psi_io_some_s.add(r.psi_io_some_s);
  g.pgsteal.add(r.pgsteal);
  g.rbytes.add(r.rbytes);
  g.cpu_s.add(r.cpu_s);
  g.state_d_share.add(r.state_d_share);
  if (!r.top_wchan.empty()) g.wchans.push_back(r.top_wchan);
}

}  // namespace

std::vector<GroupSummary> group(const std::vector<RunSummary>& runs) {
  std::vector<std::string> workloads;
  for (const auto& r : runs)
    if (std::find(workloads.begin(), workloads.end(), r.workload) == workloads.end())
      workloads.push_back(r.workload);
  std::vector<GroupSummary> groups;
  for (const auto& w : workloads) {
    std::vector<GroupSummary> mine;
    for (const auto& r : runs) {
      if (r.workload != w) continue;
      auto it = std::find_if(mine.begin(), mine.end(), [&](auto& g) { return g.config == r.config; });
      if (it == mine.end()) it = mine.insert(mine.end(), GroupSummary{.config = r.config, .workload = w});
      add(*it, r);
    }
    std::stable_sort(mine.begin(), mine.end(),
                     [](auto& a, auto& b) { return config_rank(a.config) < config_rank(b.config); });
    groups.insert(groups.end(), mine.begin(), mine.end());
  }
  return groups;
}

}  // namespace cgmem::report
