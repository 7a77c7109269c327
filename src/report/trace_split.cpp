#include "report/trace_split.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "report/stats.h"

namespace cgmem::report {

namespace {

// The events of one task, as indices into the sorted events.
struct TaskEvents {
  std::vector<size_t> penalties, sleep_ends, wakings, switches_in;
};

std::map<int32_t, TaskEvents> by_task(const std::vector<TraceEvent>& events) {
  std::map<int32_t, TaskEvents> out;
  for (size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    if (std::holds_alternative<HighPenalty>(e.what))
      out[e.pid].penalties.push_back(i);
    else if (std::holds_alternative<HighSleep>(e.what))
      out[e.pid].sleep_ends.push_back(i);
    else if (const auto* w = std::get_if<SchedWaking>(&e.what))
      out[w->target_pid].wakings.push_back(i);
    else if (const auto* s = std::get_if<SchedSwitch>(&e.what))
      out[s->next_pid].switches_in.push_back(i);
  }
  return out;
}

// The first index in `list` (ascending) above `after` and below `before`.
std::optional<size_t> first_between(const std::vector<size_t>& list, size_t after, size_t before) {
  auto it = std::upper_bound(list.begin(), list.end(), after);
  if (it == list.end() || *it >= before) return std::nullopt;
  return *it;
}

double sum_of(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

SplitPart split_part(const std::vector<double>& values, double penalty_sum) {
  SplitPart p;
  if (values.empty()) return p;
  p.median_ns = median(values);
  p.mean_ns = sum_of(values) / static_cast<double>(values.size());
  if (penalty_sum > 0) p.of_penalty = sum_of(values) / penalty_sum;
  return p;
}

struct SplitParts {
  std::vector<double> reclaim, penalty, timer, wakeup, rest, ratio;
};

// One sleep: the penalty at events[pi] and what follows it up to `next` (the
// task's next high_penalty, or the end).
void split_one(const std::vector<TraceEvent>& events, const TaskEvents& task, size_t pi, size_t next, SleepSplit& out,
               SplitParts& parts) {
  auto end = first_between(task.sleep_ends, pi, next);
  if (!end) return void(++out.without_sleep_line);
  const auto& sleep = std::get<HighSleep>(events[*end].what);
  if (sleep.left_jiffies > 0) return void(++out.ended_early);
  int64_t start = 0;
  if (__builtin_sub_overflow(events[*end].t_ns, sleep.slept_ns, &start)) return void(++out.without_wakeup);
  auto waking = std::lower_bound(task.wakings.begin(), task.wakings.end(), start,
                                 [&](size_t i, int64_t t) { return events[i].t_ns < t; });
  std::optional<size_t> in;
  if (waking != task.wakings.end() && *waking < *end) in = first_between(task.switches_in, *waking, *end);
  if (!in) return void(++out.without_wakeup);
  const auto& penalty = std::get<HighPenalty>(events[pi].what);
  double planned = static_cast<double>(sleep.planned_ns);
  double woken = static_cast<double>(events[*waking].t_ns), ran = static_cast<double>(events[*in].t_ns);
  parts.reclaim.push_back(static_cast<double>(penalty.reclaim_ns));
  parts.penalty.push_back(planned);
  parts.timer.push_back(woken - static_cast<double>(start) - planned);
  parts.wakeup.push_back(ran - woken);
  parts.rest.push_back(static_cast<double>(events[*end].t_ns) - ran);
  if (planned > 0)
    parts.ratio.push_back((static_cast<double>(penalty.reclaim_ns) + static_cast<double>(sleep.slept_ns)) / planned);
  ++out.sleeps;
}

// The driver's wake-ups: each sched_waking to its next switch in, unless
// another waking comes first (a task already woken).
std::vector<double> wakeups_of(const std::vector<TraceEvent>& events, const TaskEvents& task) {
  std::vector<double> out;
  for (size_t k = 0; k < task.wakings.size(); ++k) {
    size_t limit = k + 1 < task.wakings.size() ? task.wakings[k + 1] : events.size();
    if (auto in = first_between(task.switches_in, task.wakings[k], limit))
      out.push_back(static_cast<double>(events[*in].t_ns) - static_cast<double>(events[task.wakings[k]].t_ns));
  }
  return out;
}

}  // namespace

SleepSplit split_sleeps(const std::vector<TraceEvent>& events, std::optional<int32_t> driver_pid, bool emulated) {
  SleepSplit out;
  SplitParts parts;
  auto tasks = by_task(events);
  for (const auto& [pid, task] : tasks) {
    for (size_t k = 0; k < task.penalties.size(); ++k) {
      size_t pi = task.penalties[k];
      if (!std::get<HighPenalty>(events[pi].what).sleeps) continue;
      size_t next = k + 1 < task.penalties.size() ? task.penalties[k + 1] : events.size();
      split_one(events, task, pi, next, out, parts);
    }
  }
  double penalty_sum = sum_of(parts.penalty);
  out.reclaim = split_part(parts.reclaim, penalty_sum);
  out.penalty = split_part(parts.penalty, penalty_sum);
  out.timer = split_part(parts.timer, penalty_sum);
  out.wakeup = split_part(parts.wakeup, penalty_sum);
  out.rest = split_part(parts.rest, penalty_sum);
  out.median_ratio = median(parts.ratio);
  double extra = sum_of(parts.reclaim) + sum_of(parts.timer) + sum_of(parts.wakeup) + sum_of(parts.rest);
  if (penalty_sum > 0) out.ratio_of_sums = (penalty_sum + extra) / penalty_sum;
  if (extra > 0) out.timer_share_of_extra = sum_of(parts.timer) / extra;
  if (emulated && driver_pid) {
    auto it = tasks.find(*driver_pid);
    std::vector<double> driver = it == tasks.end() ? std::vector<double>{} : wakeups_of(events, it->second);
    out.driver_wakeups = driver.size();
    out.driver_wakeup_median_ns = median(driver);
    if (out.driver_wakeup_median_ns && out.wakeup.median_ns && *out.wakeup.median_ns > 0)
      out.emulator_share_of_wakeup = std::min(1.0, *out.driver_wakeup_median_ns / *out.wakeup.median_ns);
  }
  return out;
}

}  // namespace cgmem::report
