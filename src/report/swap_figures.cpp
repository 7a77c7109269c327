#include "report/swap_figures.h"

#include <algorithm>
#include <vector>

#include "report/stats.h"

namespace cgmem::report {

namespace {

constexpr char kThrottleWchan[] = "mem_cgroup_handle_over_high";

std::optional<uint64_t> stat(const SampleLine& s, const char* key) {
  auto it = s.memory_stat.find(key);
  return it == s.memory_stat.end() ? std::nullopt : std::optional(it->second);
}

bool rose(const SampleLine& a, const SampleLine& b, const char* key) {
  auto x = stat(a, key), y = stat(b, key);
  return x && y && *y > *x;
}

bool swapped_in(const SampleLine& a, const SampleLine& b) {
  bool fell = a.swap_current && b.swap_current && *b.swap_current < *a.swap_current;
  return fell || rose(a, b, "workingset_refault_anon") || rose(a, b, "pswpin");
}

}  // namespace

std::optional<uint64_t> peak_swap(const Run& run) {
  std::optional<uint64_t> peak;
  auto see = [&](uint64_t v) { peak = std::max(peak.value_or(0), v); };
  for (const auto& s : run.samples)
    if (s.swap_current) see(*s.swap_current);
  run.ops.for_each_swap([&](const Op&, const OpSwap& sw) { see(sw.after); });
  return peak;
}

std::map<std::string, uint64_t> last_swap_events(const Run& run) {
  for (auto it = run.samples.rbegin(); it != run.samples.rend(); ++it)
    if (!it->swap_events.empty()) return it->swap_events;
  return {};
}

std::optional<double> held_usage(const Run& run) {
  bool any_procs = std::any_of(run.samples.begin(), run.samples.end(), [](const SampleLine& s) { return !s.procs.empty(); });
  std::vector<const SampleLine*> alive;
  for (const auto& s : run.samples)
    if (s.memory_current && (!any_procs || !s.procs.empty())) alive.push_back(&s);
  if (alive.empty()) return std::nullopt;
  int64_t half = alive.front()->t_ns + (alive.back()->t_ns - alive.front()->t_ns) / 2;
  std::vector<double> usage;
  for (const SampleLine* s : alive)
    if (s->t_ns >= half) usage.push_back(static_cast<double>(*s->memory_current));
  return median(std::move(usage));
}

std::optional<double> throttle_asleep_share(const Run& run) {
  uint64_t all = 0, asleep = 0;
  for (const auto& s : run.samples)
    for (const auto& p : s.procs) {
      ++all;
      asleep += p.state == 'D' && p.wchan == kThrottleWchan;
    }
  return all ? std::optional(static_cast<double>(asleep) / static_cast<double>(all)) : std::nullopt;
}

std::optional<SwapInStall> swap_in_stall(const Run& run) {
  SwapInStall out;
  const SampleLine* prev = nullptr;
  bool pairs = false;
  for (const auto& s : run.samples) {
    if (!s.memory_pressure) continue;
    if (prev && s.t_ns > prev->t_ns) {
      pairs = true;
      double dt = static_cast<double>(s.t_ns - prev->t_ns) / 1e9;
      double stalled = std::max(0.0, s.memory_pressure->some_total_us - prev->memory_pressure->some_total_us) / 1e6;
      if (swapped_in(*prev, s)) ++out.intervals, out.in_s += dt, out.stalled_in_s += stalled;
      else out.rest_s += dt, out.stalled_rest_s += stalled;
    }
    prev = &s;
  }
  return pairs ? std::optional(out) : std::nullopt;
}

std::optional<double> stall_share(const Run& run) {
  auto stall = swap_in_stall(run);
  if (!stall || stall->in_s + stall->rest_s <= 0) return std::nullopt;
  return (stall->stalled_in_s + stall->stalled_rest_s) / (stall->in_s + stall->rest_s);
}

std::optional<Throughput> churn_throughput(const Run& run) {
  Throughput t;
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (const auto& op : run.ops) {
    if (op.phase != run_format::Phase::churn) continue;
    ++t.ops;
    first = std::min(first, op.t_ns);
    last = std::max(last, op.end_ns());
  }
  if (t.ops < 2 || last <= first) return std::nullopt;
  t.seconds = static_cast<double>(last - first) / 1e9;
  t.ops_per_s = static_cast<double>(t.ops) / t.seconds;
  t.bytes_per_s = t.ops_per_s * static_cast<double>(run.meta.chunk_bytes);
  return t;
}

}  // namespace cgmem::report
