#include "report/trace_attribution.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace cgmem::report {

namespace {

bool kernel_thread(std::string_view comm) {
  constexpr std::array<std::string_view, 6> kPrefixes = {"kworker/", "ksoftirqd/", "kswapd",
                                                         "rcu",      "migration/", "kcompactd"};
  return std::any_of(kPrefixes.begin(), kPrefixes.end(), [&](std::string_view p) { return comm.starts_with(p); });
}

const char* drain_all_cause(std::string_view caller) {
  if (caller == "try_charge_memcg") return "reclaim";
  if (caller == "memory_high_write" || caller == "memory_max_write") return "limit_write";
  if (caller == "mem_cgroup_css_offline") return "cgroup_removal";
  return "drain_all";
}

// cause, cgroup, comm: one row of the table.
using CauseKey = std::tuple<std::string, std::optional<std::string>, std::string>;

// The cause of drain `e` (whose payload is `d`); last_all is the last
// stock_drain_all before it, if any.
CauseKey drain_cause(const TraceEvent& e, const StockDrain& d, const StockDrainAll* last_all, const TraceFacts& f) {
  auto by = [&]() -> std::optional<std::string> {
    if (d.by_cgroup_id == 0) return std::nullopt;
    return cgroup_name(f, d.by_cgroup_id);
  };
  const uint64_t run = *f.run_cgroup_id;
  if ((d.cause == DrainCause::refill || d.cause == DrainCause::over_batch) && d.by_cgroup_id == run)
    return {"own_process", cgroup_name(f, run), d.comm};
  const auto& nb = f.neighbour_cgroup_ids;
  if (d.by_cgroup_id != 0 && std::find(nb.begin(), nb.end(), d.by_cgroup_id) != nb.end())
    return {"neighbour", by(), d.comm};
  if (d.cause == DrainCause::drain_all) {
    if (!last_all) return {"drain_all", std::nullopt, d.comm};
    return {drain_all_cause(last_all->caller), cgroup_name(f, last_all->cgroup_id), last_all->comm};
  }
  if (d.cause == DrainCause::hotplug) return {"hotplug", std::nullopt, d.comm};
  bool driver = (f.driver_pid && e.pid == *f.driver_pid) ||
                (f.driver_cgroup_id && d.by_cgroup_id != 0 && d.by_cgroup_id == *f.driver_cgroup_id) ||
                d.comm.starts_with("cgmem");
  if (driver) return {"cgmem", by(), d.comm};
  if (kernel_thread(d.comm)) return {"kernel_worker", by(), d.comm};
  return {"other", by(), d.comm};
}

}  // namespace

std::string cgroup_name(const TraceFacts& facts, uint64_t id) {
  auto it = facts.cgroups.find(id);
  return it != facts.cgroups.end() ? it->second : fmt::format("id {}", id);
}

Attribution attribute_sleeps(const std::vector<TraceEvent>& events, const TraceFacts& facts) {
  Attribution out;
  const uint64_t run = facts.run_cgroup_id.value_or(0);
  struct Drain {
    int64_t t_ns;
    size_t at;                 // index in events
    const StockDrainAll* all;  // the last stock_drain_all before it
  };
  std::vector<Drain> drains;  // of the run's stock, on any CPU, in time order
  const StockDrainAll* last_all = nullptr;
  std::unordered_map<int32_t, int64_t> charged;  // pid -> when it charged its previous batch
  std::map<CauseKey, uint64_t> by_cause;
  for (size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    if (const auto* all = std::get_if<StockDrainAll>(&e.what)) last_all = all;
    if (const auto* d = std::get_if<StockDrain>(&e.what); d && d->cgroup_id == run)
      drains.push_back({e.t_ns, i, last_all});
    const auto* p = std::get_if<HighPenalty>(&e.what);
    if (!p) continue;
    // The batch charge came just before this return to user space, which
    // reclaimed for reclaim_ns before deciding: a drain after the previous
    // charge and up to this one emptied the stock that would have served
    // the pages between (one during this reclaim counts for the next).
    int64_t now = e.t_ns - static_cast<int64_t>(std::min<uint64_t>(p->reclaim_ns, INT64_MAX));
    auto previous = charged.find(e.pid);
    int64_t since = previous != charged.end() ? previous->second : INT64_MIN;
    charged[e.pid] = now;
    if (!p->sleeps) continue;
    ++out.sleeps;
    auto after = std::upper_bound(drains.begin(), drains.end(), now,
                                  [](int64_t t, const Drain& d) { return t < d.t_ns; });
    if (after == drains.begin() || std::prev(after)->t_ns <= since) continue;
    const Drain& last = *std::prev(after);
    ++out.extra_sleeps;
    const TraceEvent& drain = events[last.at];
    ++by_cause[drain_cause(drain, std::get<StockDrain>(drain.what), last.all, facts)];
  }
  out.batch_sleeps = out.sleeps - out.extra_sleeps;
  for (const auto& [k, n] : by_cause)
    out.rows.push_back({std::get<0>(k), std::get<1>(k), std::get<2>(k), n,
                        static_cast<double>(n) / static_cast<double>(out.extra_sleeps)});
  std::stable_sort(out.rows.begin(), out.rows.end(),
                   [](const AttributionRow& a, const AttributionRow& b) { return a.sleeps > b.sleeps; });
  return out;
}

}  // namespace cgmem::report
