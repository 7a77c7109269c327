#include "advise/usage.h"

#include <fmt/format.h>

#include <algorithm>
#include <span>

#include "model/penalty.h"

namespace cgmem::advise {
namespace {

bool limits(const std::optional<Limit>& l) { return l && !l->is_max(); }

// memory.current - inactive_file, as cAdvisor computes the working set (0
// when page cache exceeds the sample's memory.current).
uint64_t working_set(const report::SampleLine& s, WorkingSet kind) {
  if (kind == WorkingSet::memory_current) return *s.memory_current;
  auto it = s.memory_stat.find("inactive_file");
  uint64_t inactive = it == s.memory_stat.end() ? 0 : it->second;
  return *s.memory_current > inactive ? *s.memory_current - inactive : 0;
}

// The least-squares slope of working set over time, bytes/s; 0 for fewer
// than two points or no spread in time.
double slope(std::span<const Point> points) {
  if (points.size() < 2) return 0;
  double n = static_cast<double>(points.size()), st = 0, sw = 0;
  for (const Point& p : points) st += p.t_s, sw += static_cast<double>(p.working_set);
  double mt = st / n, mw = sw / n, num = 0, den = 0;
  for (const Point& p : points) {
    double dt = p.t_s - mt;
    num += dt * (static_cast<double>(p.working_set) - mw);
    den += dt * dt;
  }
  return den > 0 ? num / den : 0;
}

// One op's bytes over the median latency of the grow phase's ops.
std::optional<double> alloc_rate(const report::Run& run) {
  std::vector<int64_t> lat;
  for (const report::Op& op : run.ops)
    if (op.phase == run_format::Phase::grow && op.lat_ns > 0) lat.push_back(op.lat_ns);
  if (lat.empty()) return std::nullopt;
  auto mid = lat.begin() + static_cast<std::ptrdiff_t>(lat.size() / 2);
  std::nth_element(lat.begin(), mid, lat.end());
  return static_cast<double>(run.meta.chunk_bytes) / (static_cast<double>(*mid) / 1e9);
}

Result<void> advisable(const report::Run& run) {
  const report::Meta& m = run.meta;
  auto refuse = [&](const std::string& why) {
    return Result<void>(std::unexpected(Error{fmt::format("{}: {}", run.dir, why)}));
  };
  if (limits(m.max) || limits(m.high))
    return refuse(fmt::format("the run had memory.{} {}: its usage is what the limit allowed, not what the program "
                              "needs (record one without --max and --high)",
                              limits(m.max) ? "max" : "high", format_limit(limits(m.max) ? *m.max : *m.high)));
  if (!run.outcome) return refuse("the run did not finish (no outcome.json): its peak may be missing");
  if (run.outcome->is(run_format::Status::oom_killed))
    return refuse("the run was OOM-killed: its usage stopped at what the host allowed");
  if (run.outcome->is(run_format::Status::failed)) return refuse("the run failed: see its outcome.json");
  if (!model::plausible_page_size(m.page_size)) return refuse(fmt::format("meta.json's page size {} is not {}", m.page_size, model::kPageSizeRange));
  return {};
}

}  // namespace

Result<Usage> usage_of(const report::Run& run, WorkingSet kind) {
  if (auto ok = advisable(run); !ok) return std::unexpected(ok.error());
  const report::Meta& m = run.meta;
  Usage u{.dir = run.dir,
          .op_bytes = m.chunk_bytes,
          .procs = std::max(1, m.procs),
          .kernel = m.kernel,
          .hz = model::plausible_hz(m.hz) ? static_cast<uint32_t>(m.hz) : 1000,
          .page_size = m.page_size,
          .host_swap = m.swap.total_bytes.value_or(0)};
  int64_t t0 = 0;
  for (const report::SampleLine& s : run.samples) {
    if (!s.memory_current) continue;
    if (u.series.empty()) t0 = s.t_ns;
    u.series.push_back({.t_s = static_cast<double>(s.t_ns - t0) / 1e9, .working_set = working_set(s, kind)});
    u.peak_current = std::max(u.peak_current, *s.memory_current);
  }
  if (run.outcome->peak_bytes) u.peak_current = std::max(u.peak_current, *run.outcome->peak_bytes);
  if (auto ok = summarize(u); !ok) return std::unexpected(ok.error());
  u.alloc_rate = alloc_rate(run);
  return u;
}

Result<void> summarize(Usage& u) {
  if (u.series.size() < kMinSamples)
    return std::unexpected(Error{fmt::format("{}: {} samples of memory.current; advise needs at least {}", u.dir,
                                             u.series.size(), kMinSamples)});
  u.duration_s = u.series.back().t_s;
  auto peak = std::max_element(u.series.begin(), u.series.end(),
                               [](const Point& a, const Point& b) { return a.working_set < b.working_set; });
  u.working_set = peak->working_set;
  if (u.working_set == 0)
    return std::unexpected(Error{fmt::format("{}: its working set stayed at 0 bytes: nothing to advise from", u.dir)});
  std::span<const Point> late(u.series.begin() + static_cast<std::ptrdiff_t>(u.series.size() / 2), u.series.end());
  u.growth_bytes_per_s = slope(late);
  double late_rise = u.growth_bytes_per_s * (late.back().t_s - late.front().t_s);
  u.growing = late_rise >= kGrowingShare * static_cast<double>(u.working_set) && peak->t_s >= 0.9 * u.duration_s;
  return {};
}

Result<Usage> combined(const std::vector<Usage>& runs) {
  if (runs.empty()) return std::unexpected(Error{"no run to advise from"});
  Usage all = runs.front();
  std::vector<double> rates;
  for (const Usage& u : runs) {
    if (u.page_size != all.page_size)
      return std::unexpected(Error{fmt::format("{} has {}-byte pages and {} {}: advise from runs of one page size",
                                               u.dir, u.page_size, all.dir, all.page_size)});
    if (u.working_set > all.working_set) all.working_set = u.working_set, all.dir = u.dir;
    all.peak_current = std::max(all.peak_current, u.peak_current);
    all.growth_bytes_per_s = std::max(all.growth_bytes_per_s, u.growth_bytes_per_s);
    all.growing = all.growing || u.growing;
    all.duration_s = std::max(all.duration_s, u.duration_s);
    all.procs = std::max(all.procs, u.procs);
    all.host_swap = std::min(all.host_swap, u.host_swap);
    if (u.alloc_rate) rates.push_back(*u.alloc_rate);
  }
  all.alloc_rate.reset();
  if (!rates.empty()) {
    std::sort(rates.begin(), rates.end());
    all.alloc_rate = rates[rates.size() / 2];
  }
  all.series.clear();  // each run's series stays with it (the VPA rule takes one peak a run)
  return all;
}

}  // namespace cgmem::advise
