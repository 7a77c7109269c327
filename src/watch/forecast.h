// What src/model says about a cgroup over memory.high or memory.swap.high,
// at this host's HZ and page size, set beside what the scan measured.
//
// One sleep's length comes from the kernel's formula at the current usage
// (model::penalty, and the timer wheel's typical length). The kernel adds
// two terms (mem_cgroup_handle_over_high, mm/memcontrol.c, 6.1 and 6.12):
// calculate_high_delay of memory.current's overage over memory.high and of
// memory.swap.current's over memory.swap.high, then clamps the sum to
// 2 * HZ; a task is sent there when either is over (try_charge_memcg). So a
// cgroup over memory.swap.high is throttled even under memory.high, and
// the forecast gives each term (memory_delay_ms, swap_delay_ms) and the
// clamped sum (sleep_s). The count of
// sleeps is what the model cannot know (the per-CPU charge stock decides it,
// docs/model.md): a task pays one sleep per 64-page batch, or one per 4 KiB
// page when something empties the stock. The scan tells which from the pages
// charged per sleep: page faults (one per new anonymous page) or, when
// larger, the growth of memory.current, divided by the sleeps the high
// counter shows (its rise / 17). About 64 pages per sleep is per batch, about
// 1 is per page; the boundary is the geometric middle, 8.
//
// Which neighbours can make it per page is the kernel's rule (one memcg per
// CPU's stock before 6.16, seven from 6.16: model/kernel_rules.h); the
// forecast names the rule it used.
//
// Time to memory.max: at the measured growth, and the model's two bounds
// (model::grow from memory.current to memory.max with k = 1 and k = 64, one
// process per task found asleep in mem_cgroup_handle_over_high). model::grow
// has the memory term only (how memory.swap.current moves as the cgroup
// grows is not known), so the bounds are left out while the swap term is
// not 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "model/penalty.h"
#include "watch/classify.h"
#include "watch/sample.h"

namespace cgmem::watch {

enum class Regime : uint8_t { unknown, per_batch, per_page };
std::string_view regime_name(Regime r);  // "unknown", "per_batch", "per_page"

struct Forecast {
  // memory.current is over memory.high, or memory.swap.current over memory.swap.high
  bool valid = false;
  double over_percent = 0;       // (current - high) / high, percent; 0 under memory.high
  double swap_over_percent = 0;  // (swap.current - swap.high) / swap.high, percent; 0 under it
  // The penalty's two terms for one 64-page batch, before the clamp
  // (saturated at 2^64 - 1 jiffies, like the model), and whether their
  // sum passed 2 * HZ.
  double memory_delay_ms = 0, swap_delay_ms = 0;
  bool clamped = false;
  double sleep_s = 0;          // one sleep per batch at this usage, both terms (0: the kernel does not sleep)
  double sleep_wheel_s = 0;    // the same on the timer wheel (typical)
  double pages_per_sleep = 0;  // measured; 0 when no sleep was counted
  Regime regime = Regime::unknown;
  // The kernel's stock rule behind the per-page bound (kernel.rules): "per
  // page when any other cgroup charges on this CPU" before 6.16, "per page
  // needs 7 or more other cgroups charging on this CPU" from 6.16. Static text.
  std::string_view regime_rule;
  std::optional<double> max_eta_s;            // (max - current) / measured growth
  std::optional<double> max_eta_per_batch_s;  // model, one sleep per batch (no swap term)
  std::optional<double> max_eta_per_page_s;   // model, one sleep per page (no swap term)
};

// procs: tasks allocating at once (each throttled on its own); 0 is taken as 1.
Forecast forecast(const Sample& now, const Rates& rates, const model::Kernel& kernel,
                  uint32_t procs);

}  // namespace cgmem::watch
