// The rows swap brings on what a sleep and a swap-in cost: memory.swap.high's
// sleeps against the kernel's formula (predict.md section 7), PSI memory
// some while pages come back from swap, and the workload's throughput with
// swap against the same run without it.
#include <fmt/format.h>

#include "report/claim_cases.h"
#include "report/swap_figures.h"
#include "report/swap_setting.h"

namespace cgmem::report::claims_detail {

namespace {

const SleepCheck& swap_sleeps(const Case& x) { return x.pred->swap_high->sleeps; }

Claim swap_high_model(const Cases& all) {
  Claim c{.id = "swap-high-model",
          .claim = "under memory.swap.high each sleep is the kernel's formula: the memory and the swap penalty summed, "
                   "then clamped",
          .study = "not tested: the study set no memory.swap.high"};
  auto eligible = select(all, [](const Case& x) { return x.pred->swap_high && swap_sleeps(x).compared > 0; });
  auto cases = select(eligible, [](const Case& x) { return swap_sleeps(x).compared >= 10; });
  std::string few = left_out(eligible.size() - cases.size(), "with fewer than 10 compared ops");
  if (cases.empty()) {
    c.note = "a single-process run with swap under memory.swap.high whose swap grows past it, with 10 or more ops "
             "that slept (cgmem run --max 32M --swap-high 4M -- --target 40M --churn 200)." +
             few;
    return c;
  }
  auto wheel = [](const Case& x) { return swap_sleeps(x).median_ratio_wheel; };
  c.batch = fmt::format(
      "median ratio {}, {} within 30%; with half a wheel step {}, each sleep ending {} ms after it; swap.current {} over "
      "memory.swap.high, the swap term {} of the penalty, at the median ({})",
      span(cases, [](const Case& x) { return swap_sleeps(x).median_ratio; }),
      span(cases, [](const Case& x) { return swap_sleeps(x).within_30; }, percent), span(cases, wheel),
      span(cases, [](const Case& x) { return swap_sleeps(x).median_late_ms; }),
      span(cases, [](const Case& x) { return x.pred->swap_high->median_swap_over; }, percent),
      span(cases, [](const Case& x) { return x.pred->swap_high->median_swap_share; }, percent), runs_of(cases.size()));
  bool ok = std::all_of(cases.begin(), cases.end(), [&](const Case& x) { return near_one(wheel(x), 0.95, 1.15); });
  c.verdict = ok ? ClaimVerdict::reproduced : ClaimVerdict::not_reproduced;
  c.note = "test: every run's median ratio with half a wheel step within 0.95 to 1.15, as sleep-length. Sleeps = the "
           "rise of memory.swap.events high over the op / 17: swap_find_max_overage() raises it once per pass while "
           "memory.swap.current is over memory.swap.high, and mem_cgroup_handle_over_high() sleeps after 17 passes "
           "that freed nothing (mm/memcontrol.c, 6.12). The formula: calculate_high_delay() of the memory overage "
           "plus that of the swap overage (memory.swap.current before the op against memory.swap.high), shifted by "
           "memory.high.throttle and clamped to 2 x HZ (predict.md, section 7).";
  if (auto hz = other_hz(cases); !hz.empty())
    c.note += fmt::format(" {}: the timer wheel's steps are longer in ms than at HZ=1000, so the ratio with half a "
                          "step is the comparison.",
                          hz);
  uint64_t one_over = 0;
  for (const auto& x : cases) one_over += swap_sleeps(x).skipped_one_over;
  if (one_over)
    c.note += fmt::format(" 6.12's extra pass: {} op{} rose by 17k + 1 and count{} as k sleeps here.", one_over,
                          one_over == 1 ? "" : "s", one_over == 1 ? "s" : "");
  c.note += few;
  return c;
}

std::optional<double> share_in(const Case& x) {
  auto s = swap_in_stall(*x.run);
  return s ? s->share_in() : std::nullopt;
}
std::optional<double> share_rest(const Case& x) {
  auto s = swap_in_stall(*x.run);
  return s ? s->share_rest() : std::nullopt;
}

Claim swap_psi(const Cases& all, const Cases& batch) {
  Claim c{.id = "swap-psi",
          .claim = "swapping in stalls the task: PSI memory some counts the time pages come back from swap",
          .study = "not tested: the study ran without swap"};
  auto cases = select(all, [](const Case& x) {
    auto s = with_swap(x.meta()) ? swap_in_stall(*x.run) : std::nullopt;
    return s && s->intervals > 0;
  });
  if (cases.empty()) {
    c.note = "a run with swap whose pages come back from swap between two samples (a churn over memory.high or "
             "memory.max: cgmem run --high 30195712 -- --target 40M --churn 200, with swap)";
    return c;
  }
  auto intervals = [](const Case& x) { return std::optional(static_cast<double>(swap_in_stall(*x.run)->intervals)); };
  auto in_s = [](const Case& x) { return std::optional(swap_in_stall(*x.run)->in_s); };
  c.batch = fmt::format("PSI memory some {} of the time in the sample intervals with a swap-in ({} intervals, {} s), {} "
                        "in the others ({})",
                        span(cases, share_in, percent), span(cases, intervals, [](std::optional<double> v) { return num_fixed(v, 0); }),
                        span(cases, in_s),
                        span(cases, share_rest, percent), runs_of(cases.size()));
  if (int n = with_twin(cases, batch))
    c.batch += fmt::format("; without swap {} of the run ({})",
                           twin_span(cases, batch, [](const Case& t) { return stall_share(*t.run); }, percent),
                           runs_of(static_cast<size_t>(n)));
  bool ok = std::all_of(cases.begin(), cases.end(), [](const Case& x) { return swap_in_stall(*x.run)->stalled_in_s > 0; });
  c.verdict = ok ? ClaimVerdict::reproduced : ClaimVerdict::not_reproduced;
  c.note = "test: PSI memory some rose in every run's swap-in intervals (from one sample to the next memory.swap.current "
           "fell or memory.stat workingset_refault_anon rose). swap_read_folio() (mm/page_io.c, 6.12) counts the "
           "swap-in of a refaulting page as a memory stall, and folio_wait_bit_common() (mm/filemap.c) the wait for "
           "its read.";
  return c;
}

std::optional<double> ops_per_s(const Case& x) {
  auto t = churn_throughput(*x.run);
  return t ? std::optional(t->ops_per_s) : std::nullopt;
}
std::optional<double> mib_per_s(const Case& x) {
  auto t = churn_throughput(*x.run);
  return t ? std::optional(t->bytes_per_s / 1048576.0) : std::nullopt;
}

Claim throughput(const Cases& all, const Cases& batch) {
  Claim c{.id = "swap-throughput",
          .claim = "with swap, a workload over memory.high churns faster than without it, where it sleeps",
          .study = "not tested: the study ran without swap"};
  auto cases = select(all, [](const Case& x) {
    const Meta& m = x.meta();
    return with_swap(m) && has_high(m) && plain_anon(m) && ops_per_s(x);
  });
  auto paired = select(cases, [&](const Case& x) {
    const Case* t = swap_twin(x, batch);
    return t && ops_per_s(*t);
  });
  std::string unpaired = left_out(cases.size() - paired.size(), "without the same run without swap");
  if (paired.empty()) {
    c.note = "a run with swap under memory.high with a churn phase (--churn), and the same run without swap in the "
             "batch (the same kernel, limits and workload)." +
             unpaired;
    return c;
  }
  auto ratio = [&](const Case& x) -> std::optional<double> {
    auto mine = ops_per_s(x), theirs = ops_per_s(*swap_twin(x, batch));
    return *theirs > 0 ? std::optional(*mine / *theirs) : std::nullopt;
  };
  c.batch = fmt::format("{} churn ops/s, {} MiB/s; without swap {} ops/s, {} MiB/s; {}x ({})", span(paired, ops_per_s),
                        span(paired, mib_per_s), twin_span(paired, batch, ops_per_s), twin_span(paired, batch, mib_per_s),
                        span(paired, ratio), runs_of(paired.size()));
  bool ok = std::all_of(paired.begin(), paired.end(), [&](const Case& x) { return ratio(x).value_or(0) > 1; });
  c.verdict = ok ? ClaimVerdict::reproduced : ClaimVerdict::not_reproduced;
  c.note = "test: every run's churn ops per second (the churn phase's ops over the time from the first one's start to "
           "the last one's end; bytes: workload.chunk_bytes each) above the same run's without swap. With swap a task "
           "over memory.high is reclaimed rather than put to sleep; the swap-out and swap-in it does instead cost time "
           "too, which this row weighs." +
           unpaired;
  return c;
}

}  // namespace

std::vector<Claim> claims_about_swap_costs(const Cases& all, const Cases& batch) {
  return {swap_high_model(all), swap_psi(all, batch), throughput(all, batch)};
}

}  // namespace cgmem::report::claims_detail
