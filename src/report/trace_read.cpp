#include "report/trace_read.h"

#include <algorithm>
#include <limits>

#include "common/file.h"
#include "common/text.h"
#include "model/penalty.h"
#include "common/json_get.h"
#include "report/jsonl.h"
#include "run_format/run_format.h"

namespace cgmem::report {

namespace {

namespace tkey = run_format::trace_key;

constexpr int64_t kTraceMaxCpu = 8191;                    // CONFIG_NR_CPUS is at most 8192
constexpr int64_t kTraceMaxPid = 4194304;                 // PID_MAX_LIMIT on 64-bit
constexpr uint64_t kTraceMaxPages = uint64_t{1} << 52;    // 2^64 bytes of 4 KiB pages
constexpr uint64_t kTraceMaxJiffies = 2 * model::kMaxHz;  // the 2 s clamp at the largest HZ
constexpr int64_t kTraceMaxNs = std::numeric_limits<int64_t>::max();

// Reads the keys of one line; the first key missing or out of range makes
// the line bad (ok false), and what is read after it no longer matters.
struct TraceFields {
  const Json& j;
  bool ok = true;

  uint64_t u64(const char* name, uint64_t lo = 0, uint64_t hi = std::numeric_limits<uint64_t>::max()) {
    auto v = get_u64(j, name);
    if (!v || *v < lo || *v > hi) return fail(), 0;
    return *v;
  }
  int64_t i64(const char* name, int64_t lo, int64_t hi) {
    auto v = get_i64(j, name);
    if (!v || *v < lo || *v > hi) return fail(), 0;
    return *v;
  }
  int32_t pid(const char* name) { return static_cast<int32_t>(i64(name, 0, kTraceMaxPid)); }
  int32_t cpu(const char* name) { return static_cast<int32_t>(i64(name, 0, kTraceMaxCpu)); }
  uint64_t pages(const char* name, uint64_t lo = 0) { return u64(name, lo, kTraceMaxPages); }
  int64_t ns(const char* name) { return i64(name, 0, kTraceMaxNs); }
  uint64_t cgroup(const char* name) { return u64(name, 1); }
  std::string str(const char* name) {
    auto v = get_str(j, name);
    if (!v) return fail(), std::string();
    return std::move(*v);
  }
  bool boolean(const char* name) {
    auto v = get_bool(j, name);
    if (!v) return fail(), false;
    return *v;
  }
  // A state as text: a string as it is, a number as its digits.
  std::string state(const char* name) {
    if (auto n = get_u64(j, name)) return std::to_string(*n);
    return str(name);
  }
  void fail() { ok = false; }
};

std::optional<DrainCause> parse_drain_cause(std::string_view text) {
  if (text == "refill") return DrainCause::refill;
  if (text == "over_batch") return DrainCause::over_batch;
  if (text == "drain_all") return DrainCause::drain_all;
  if (text == "hotplug") return DrainCause::hotplug;
  if (text == "unknown") return DrainCause::unknown;
  return std::nullopt;
}

StockDrain read_stock_drain(TraceFields& f) {
  StockDrain e;
  e.stock_cpu = f.cpu(tkey::kStockCpu);
  e.cgroup_id = f.cgroup(tkey::kCgroupId);
  e.nr_pages = f.pages(tkey::kNrPages, 1);
  e.by_cgroup_id = f.u64(tkey::kByCgroupId);
  auto cause = parse_drain_cause(f.str(tkey::kCause));
  if (!cause) f.fail();
  e.cause = cause.value_or(DrainCause::unknown);
  e.comm = f.str(tkey::kComm);
  return e;
}

StockDrainAll read_stock_drain_all(TraceFields& f) {
  return {.cgroup_id = f.cgroup(tkey::kCgroupId), .caller = f.str(tkey::kCaller), .comm = f.str(tkey::kComm)};
}

HighPenalty read_high_penalty(TraceFields& f) {
  HighPenalty e;
  e.cgroup_id = f.cgroup(tkey::kCgroupId);
  e.comm = f.str(tkey::kComm);
  e.nr_pages = f.pages(tkey::kNrPages);
  e.usage_pages = f.pages(tkey::kUsagePages);
  e.high_pages = f.pages(tkey::kHighPages);
  e.passes = f.u64(tkey::kPasses, 0, std::numeric_limits<uint32_t>::max());
  e.reclaimed_pages = f.pages(tkey::kReclaimedPages);
  e.reclaim_ns = f.ns(tkey::kReclaimNs);
  e.summed_jiffies = f.u64(tkey::kSummedJiffies);
  e.shift = static_cast<uint32_t>(f.u64(tkey::kShift, 0, model::kMaxThrottleShift));
  e.shifted_jiffies = f.u64(tkey::kShiftedJiffies);
  e.penalty_jiffies = f.u64(tkey::kPenaltyJiffies, 0, kTraceMaxJiffies);
  e.sleeps = f.boolean(tkey::kSleeps);
  return e;
}

HighSleep read_high_sleep(TraceFields& f) {
  HighSleep e;
  e.cgroup_id = f.cgroup(tkey::kCgroupId);
  e.penalty_jiffies = f.u64(tkey::kPenaltyJiffies, 0, kTraceMaxJiffies);
  e.planned_ns = f.ns(tkey::kPlannedNs);
  e.slept_ns = f.ns(tkey::kSleptNs);
  e.left_jiffies = f.u64(tkey::kLeftJiffies, 0, kTraceMaxJiffies);
  return e;
}

SchedWaking read_sched_waking(TraceFields& f) {
  return {.target_pid = f.pid(tkey::kTargetPid),
          .target_cpu = f.cpu(tkey::kTargetCpu),
          .target_comm = f.str(tkey::kTargetComm)};
}

SchedSwitch read_sched_switch(TraceFields& f) {
  return {
      .prev_pid = f.pid(tkey::kPrevPid), .next_pid = f.pid(tkey::kNextPid), .prev_state = f.state(tkey::kPrevState)};
}

}  // namespace

TraceLine parse_trace_line(std::string_view line, TraceEvent& out) {
  Json j = Json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return TraceLine::bad;
  TraceFields f{j};
  out.t_ns = f.i64(tkey::kTNs, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
  out.cpu = f.cpu(tkey::kCpu);
  out.pid = f.pid(tkey::kPid);
  std::string event = f.str(tkey::kEvent);
  if (!f.ok) return TraceLine::bad;
  if (event == tkey::kStockDrain)
    out.what = read_stock_drain(f);
  else if (event == tkey::kStockDrainAll)
    out.what = read_stock_drain_all(f);
  else if (event == tkey::kHighPenalty)
    out.what = read_high_penalty(f);
  else if (event == tkey::kHighSleep)
    out.what = read_high_sleep(f);
  else if (event == tkey::kSchedWaking)
    out.what = read_sched_waking(f);
  else if (event == tkey::kSchedSwitch)
    out.what = read_sched_switch(f);
  else
    return TraceLine::unknown_event;
  return f.ok ? TraceLine::event : TraceLine::bad;
}

TraceLog parse_trace(std::string_view text, std::optional<uint64_t> keep_drains_of) {
  TraceLog log;
  LineCounts counts = for_each_line(text, [&](std::string_view line) {
    TraceEvent e;
    switch (parse_trace_line(line, e)) {
      case TraceLine::bad:
        return false;
      case TraceLine::unknown_event:
        ++log.unknown_events;
        return true;
      case TraceLine::event:
        break;
    }
    if (const auto* d = std::get_if<StockDrain>(&e.what); d && keep_drains_of && d->cgroup_id != *keep_drains_of) {
      ++log.not_kept;
      return true;
    }
    log.events.push_back(std::move(e));
    return true;
  });
  log.lines = counts.read;
  log.bad = counts.bad;
  log.truncated_last = counts.truncated_last;
  // In time order per read, not across reads (one buffer per CPU).
  std::stable_sort(log.events.begin(), log.events.end(),
                   [](const TraceEvent& a, const TraceEvent& b) { return a.t_ns < b.t_ns; });
  return log;
}

Result<TraceLog> read_trace(const std::string& path, std::optional<uint64_t> keep_drains_of) {
  auto text = read_file(path, "the run's trace.jsonl", kMaxTraceBytes);
  if (!text) return std::unexpected(text.error());
  return parse_trace(*text, keep_drains_of);
}

TraceFacts parse_trace_facts(const Json& j) {
  TraceFacts t;
  auto ids = [&](const char* name) {
    std::vector<uint64_t> out;
    if (const Json* a = json_child(j, name); a && a->is_array())
      for (const auto& v : *a)
        if (v.is_number_unsigned()) out.push_back(v.get<uint64_t>());
    return out;
  };
  t.events = get_u64(j, tkey::kEvents);
  t.lost = get_u64(j, tkey::kLost);
  t.lost_by_cpu = ids(tkey::kLostByCpu);
  if (const Json* errors = json_child(j, tkey::kErrors); errors && errors->is_array())
    for (const auto& e : *errors)
      if (e.is_string()) t.errors.push_back(e.get<std::string>());
  t.run_cgroup_id = get_u64(j, tkey::kRunCgroupId);
  t.neighbour_cgroup_ids = ids(tkey::kNeighbourCgroupIds);
  if (auto pid = get_i64(j, tkey::kDriverPid); pid && *pid >= 0 && *pid <= kTraceMaxPid)
    t.driver_pid = static_cast<int32_t>(*pid);
  t.driver_cgroup_id = get_u64(j, tkey::kDriverCgroupId);
  if (const Json* cgroups = json_child(j, tkey::kCgroups); cgroups && cgroups->is_object())
    for (auto it = cgroups->begin(); it != cgroups->end(); ++it)
      if (auto id = to_u64(it.key()); id && it->is_string()) t.cgroups[*id] = it->get<std::string>();
  if (auto hz = get_i64(j, tkey::kHz); hz && model::plausible_hz(*hz)) t.hz = static_cast<int>(*hz);
  return t;
}

}  // namespace cgmem::report
