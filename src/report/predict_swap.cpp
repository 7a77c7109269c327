#include "report/predict_swap.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "report/sleep_compare.h"
#include "report/stats.h"

namespace cgmem::report {

namespace {

bool set(const std::optional<Limit>& l) { return l && !l->is_max(); }

}  // namespace

std::optional<SwapHighCheck> swap_high_check(const Run& run) {
  const Meta& m = run.meta;
  if (!set(m.swap_high) || m.hz <= 0 || m.procs > 1 || !run.ops.has_swap()) return std::nullopt;
  const model::Kernel k{.hz = static_cast<uint32_t>(m.hz), .page_size = m.page_size};
  SwapHighCheck out{.swap_high_bytes = m.swap_high->bytes()};
  out.sleeps.ops = run.ops.size();
  const uint64_t memory_high =
      set(m.high) ? model::to_pages(m.high->bytes(), k) : std::numeric_limits<uint64_t>::max();
  std::vector<OpSleep> ops;
  std::vector<double> over, share;
  run.ops.for_each_swap([&](const Op& op, const OpSwap& swap) {
    if (!swap.high_rise()) return;
    // Rises of 17k + 1 count as k sleeps, as the claims read section 1.
    auto sleeps = sleeps_of_rise(swap.high_rise(), true, out.sleeps);
    if (!sleeps) return;
    model::Level memory{.usage = model::to_pages(usage_at_return(op), k), .high = memory_high};
    model::Level swapped{.usage = model::to_pages(swap.before, k), .high = model::to_pages(out.swap_high_bytes, k)};
    // The penalty scales with the pages charged since the last return. Each
    // sleep is one return, so an op's pages are spread over its sleeps: one
    // batch when it sleeps once, one page each when it sleeps once per page,
    // as at memory.max when the 64-page charge fails and falls back to one
    // fault's pages (try_charge_memcg(), mm/memcontrol.c, 6.12; cgmem's
    // trace of such a run: 585 of 659 returns charged one page).
    uint64_t pages = op_pages(op, m.chunk_bytes, m.page_size);
    auto nr = static_cast<uint32_t>(std::clamp<uint64_t>(pages / *sleeps, 1, k.batch));
    auto p = model::penalty({.memory = {&memory, 1}, .swap = {&swapped, 1}, .nr_pages = nr,
                             .shift = m.high_throttle.value_or(0)},
                            k);
    ops.push_back(op_sleep(&op, op.lat_ns, *sleeps, p.sleeps ? p.jiffies : 0, k));
    if (!p.sleeps) return;
    over.push_back(model::over_percent(swapped.usage, swapped.high) / 100);
    double from_swap = static_cast<double>(model::high_delay(p.swap_overage, nr, k));
    double from_memory = static_cast<double>(model::high_delay(p.memory_overage, nr, k));
    if (from_swap + from_memory > 0) share.push_back(from_swap / (from_swap + from_memory));
  });
  compare_sleeps(ops, k, out.sleeps);
  out.median_swap_over = median(std::move(over));
  out.median_swap_share = median(std::move(share));
  return out;
}

}  // namespace cgmem::report
