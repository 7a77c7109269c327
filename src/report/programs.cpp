#include "report/programs.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "common/file.h"
#include "model/verdict.h"
#include "model/penalty.h"
#include "report/stats.h"
#include "run_format/run_format.h"

namespace cgmem::report {

namespace {

uint64_t event(const std::map<std::string, uint64_t>& events, const char* key) {
  auto it = events.find(key);
  return it == events.end() ? 0 : it->second;
}

double seconds_of(const Run& r, const SampleLine& s) {
  return static_cast<double>(s.t_ns - r.meta.started_mono_ns) / 1e9;
}

// One sleep's length at `usage` bytes, in seconds; 0 when the kernel would not sleep there.
double sleep_s(const Run& r, uint64_t usage) {
  if (!r.meta.high || r.meta.high->is_max()) return 0;
  model::Kernel k{.hz = static_cast<uint32_t>(r.meta.hz > 0 ? r.meta.hz : 1000), .batch = 64,
                  .page_size = r.meta.page_size};
  auto p = model::penalty(model::to_pages(usage, k), model::to_pages(r.meta.high->bytes(), k), k);
  return p.sleeps ? model::jiffies_to_ms(p.jiffies, k) / 1e3 : 0;
}

uint64_t stat_rise(const SampleLine& before, const SampleLine& after, const char* key) {
  auto then = before.memory_stat.find(key), now = after.memory_stat.find(key);
  if (then == before.memory_stat.end() || now == after.memory_stat.end()) return 0;
  return now->second - std::min(now->second, then->second);
}

// Pages faulted in between two samples: each fault charges a page, a THP
// fault a huge page of them (2 MiB on x86-64).
uint64_t faulted_pages(const Run& r, const SampleLine& before, const SampleLine& after) {
  uint64_t page = r.meta.page_size ? r.meta.page_size : 4096;
  uint64_t per_huge = (2ull << 20) / page;
  uint64_t huge = stat_rise(before, after, "thp_fault_alloc");
  return stat_rise(before, after, "pgfault") + huge * (per_huge - 1);
}

void read_program_samples(const Run& r, ProgramRun& p) {
  std::map<std::string, uint64_t> wchans;
  double interval = r.meta.interval_ms / 1e3;
  const SampleLine* prev = nullptr;
  for (const auto& s : r.samples) {
    ++p.samples;
    bool in_d = false, over_high = false;
    for (const auto& proc : s.procs) {
      if (proc.state != 'D') continue;
      in_d = true;
      ++wchans[proc.wchan.empty() ? "?" : proc.wchan];
      over_high |= proc.wchan.find("over_high") != std::string::npos;
    }
    p.samples_in_d += in_d;
    if (over_high) p.throttled_sampled_s += interval;
    if (prev && s.memory_current) {
      uint64_t rise = event(s.memory_events, "high") - std::min(event(s.memory_events, "high"), event(prev->memory_events, "high"));
      double tick = seconds_of(r, s) - seconds_of(r, *prev);
      uint64_t sleeps = rise / model::kHighEventsPerSleep;
      double asleep = static_cast<double>(sleeps) * sleep_s(r, *s.memory_current);
      p.throttled_estimated_s += std::min(asleep, std::max(tick, 0.0) * std::max<double>(1, static_cast<double>(s.procs.size())));
      if (sleeps) {
        p.sleeps += sleeps;
        p.pages_faulted_over_high += faulted_pages(r, *prev, s);
      }
    }
    prev = &s;
  }
  if (p.sleeps) p.pages_per_sleep = static_cast<double>(p.pages_faulted_over_high) / static_cast<double>(p.sleeps);
  if (!r.samples.empty() && r.samples.back().memory_pressure) {
    p.psi_some_s = r.samples.back().memory_pressure->some_total_us / 1e6;
    p.psi_full_s = r.samples.back().memory_pressure->full_total_us / 1e6;
  }
  auto top = std::max_element(wchans.begin(), wchans.end(), [](auto& a, auto& b) { return a.second < b.second; });
  if (top != wchans.end()) p.top_wchan = top->first;
}

void read_load(const Run& r, ProgramRun& p) {
  std::string path = r.dir + "/" + run_format::kLoadStdoutFile;
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) return;  // no load: the section says "-"
  auto text = read_file(path, "the load's output");
  if (!text) {  // too large, a FIFO, unreadable: said as such, not blamed on its format
    p.load_error = text.error().message();
    return;
  }
  auto times = read_file(r.dir + "/" + run_format::kLoadTimesFile, "the load's output times");
  p.load = parse_load_output(*text, times ? parse_load_times(*times) : std::vector<LoadTime>{});
  for (auto& problem : p.load.problems) problem = path + " " + problem;
  std::vector<double> rps, p99;
  for (const auto& point : p.load.points) {
    if (point.rps) rps.push_back(*point.rps);
    if (point.p99_ms) p99.push_back(*point.p99_ms);
  }
  p.rps = median(rps), p.p99_ms = median(p99);
}

void make_slices(const Run& r, ProgramRun& p, int count) {
  if (p.duration_s <= 0 || count <= 0) return;
  double width = p.duration_s / count;
  p.slices.resize(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) p.slices[i].from_s = i * width, p.slices[i].to_s = (i + 1) * width;
  auto slot = [&](double t) { return static_cast<size_t>(std::clamp(static_cast<int>(t / width), 0, count - 1)); };
  const SampleLine* prev = nullptr;
  for (const auto& s : r.samples) {
    auto& slice = p.slices[slot(seconds_of(r, s))];
    if (s.memory_current)
      slice.memory_max = std::max(slice.memory_max.value_or(0), static_cast<double>(*s.memory_current));
    if (prev) slice.high_events += event(s.memory_events, "high") - std::min(event(s.memory_events, "high"), event(prev->memory_events, "high"));
    prev = &s;
  }
  std::vector<std::vector<double>> rps(count), p99(count);
  for (const auto& point : p.load.points) {
    if (!point.t_s) continue;
    if (point.rps) rps[slot(*point.t_s)].push_back(*point.rps);
    if (point.p99_ms) p99[slot(*point.t_s)].push_back(*point.p99_ms);
  }
  for (int i = 0; i < count; ++i) p.slices[i].rps = median(rps[i]), p.slices[i].p99_ms = median(p99[i]);
}

std::string verdict_line(const Run& r, uint64_t working_set) {
  if (!r.meta.high && !r.meta.max) return "fits: no memory.high and no memory.max";
  model::CgroupLimits limits{.high = r.meta.high.value_or(Limit::max()), .max = r.meta.max.value_or(Limit::max())};
  model::VerdictInput in{.working_set = working_set,
                            .hz = static_cast<uint32_t>(r.meta.hz > 0 ? r.meta.hz : 1000),
                            .page_size = r.meta.page_size};
  return model::verdict(limits, in).summary;
}

std::string run_name(const Run& r) {
  return r.meta.name.empty() ? std::filesystem::path(r.dir).filename().string() : r.meta.name;
}

bool unlimited(const Run& r) {
  return (!r.meta.high || r.meta.high->is_max()) && (!r.meta.max || r.meta.max->is_max());
}

}  // namespace

std::vector<ProgramRun> summarize_programs(const std::vector<Run>& runs, int slices) {
  // The working set of a workload: the largest peak among its runs without limits.
  std::map<std::string, std::pair<uint64_t, std::string>> working;
  for (const auto& r : runs)
    if (r.meta.command && unlimited(r) && r.outcome && r.outcome->peak_bytes)
      if (*r.outcome->peak_bytes >= working[r.workload].first) working[r.workload] = {*r.outcome->peak_bytes, run_name(r)};
  std::vector<ProgramRun> out;
  for (const auto& r : runs) {
    if (!r.meta.command) continue;
    ProgramRun p{.name = run_name(r), .workload = r.workload, .config = r.config, .high = r.meta.high, .max = r.meta.max};
    p.status = r.outcome ? r.outcome->status : "unfinished";
    if (r.outcome) {
      p.duration_s = r.outcome->duration_s;
      p.time_to_kill_s = r.outcome->time_to_kill_s;
      p.peak_bytes = r.outcome->peak_bytes;
      p.events_high = event(r.outcome->events, "high");
      p.events_max = event(r.outcome->events, "max");
      p.events_oom_kill = event(r.outcome->events, "oom_kill");
    } else if (!r.samples.empty()) {
      p.duration_s = seconds_of(r, r.samples.back());
    }
    read_program_samples(r, p);
    if (p.duration_s > 0) p.throttled_share = std::min(1.0, p.throttled_sampled_s / p.duration_s);
    read_load(r, p);
    make_slices(r, p, slices);
    if (auto w = working.find(r.workload); w != working.end() && w->second.first > 0)
      p.working_set = w->second.first, p.working_set_from = w->second.second;
    else if (p.peak_bytes)
      p.working_set = p.peak_bytes, p.working_set_from = p.name;
    if (p.working_set) p.verdict = verdict_line(r, *p.working_set);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace cgmem::report
