// What the claim checks share (claims.cpp, claims_sleeps.cpp,
// claims_variants.cpp): a run with its summary and predictions, and the
// tests on meta.json that pick a claim's runs.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "report/claims.h"
#include "report/document.h"

namespace cgmem::report::claims_detail {

// One finished run with its summary and predictions.
struct Case {
  const Run* run;
  const RunSummary* sum;
  const RunPrediction* pred;
  const TraceReport* trace = nullptr;  // a traced run's
  const Meta& meta() const { return run->meta; }
};
using Cases = std::vector<Case>;

inline bool is_set(const std::optional<Limit>& l) { return l && !l->is_max(); }
inline bool has_max(const Meta& m) { return is_set(m.max); }
inline bool has_high(const Meta& m) { return is_set(m.high); }
inline bool single(const Meta& m) { return m.procs <= 1; }
// The study's main workload: anonymous chunks touched page by page.
inline bool plain_anon(const Meta& m) { return !m.file && !m.own_code && !m.populate && !m.set_own_high; }
inline bool neighbour(const Meta& m) { return m.neighbour_ms && *m.neighbour_ms > 0; }
// "with a neighbour", "with 8 neighbours", "with 1 to 8 neighbours": how many the runs had.
inline std::string with_neighbours(const std::vector<Case>& cases) {
  unsigned lo = ~0u, hi = 0;
  for (const auto& c : cases) lo = std::min(lo, c.meta().neighbours), hi = std::max(hi, c.meta().neighbours);
  if (hi <= 1) return "with a neighbour";
  return lo == hi ? fmt::format("with {} neighbours", hi) : fmt::format("with {} to {} neighbours", lo, hi);
}
// Needs more than the limits hold (the study's 320 MiB "over" against
// 230.4 MiB, 1.39 times memory.high), rather than fitting between them.
inline bool over(const Meta& m) {
  if (has_high(m)) return static_cast<double>(m.target_bytes) >= 1.1 * static_cast<double>(m.high->bytes());
  return has_max(m) && m.target_bytes > m.max->bytes();
}

// The sleep check to read: with 6.12's 17k + 1 rises counted when there are any.
inline const SleepCheck* sleeps_of(const RunPrediction& p) {
  if (p.sleeps_one_over) return &*p.sleeps_one_over;
  return p.sleeps ? &*p.sleeps : nullptr;
}

inline Cases select(const Cases& all, const std::function<bool(const Case&)>& keep) {
  Cases out;
  for (const auto& c : all)
    if (keep(c)) out.push_back(c);
  return out;
}

template <class F>
inline std::string span(const Cases& cases, F value, std::string (*f)(std::optional<double>) = num) {
  Range r;
  for (const auto& c : cases) r.add(value(c));
  return range(r, f);
}

template <class P>
inline int count(const Cases& cases, P pred) {
  return static_cast<int>(std::count_if(cases.begin(), cases.end(), pred));
}

inline bool killed(const Case& c) { return c.sum->killed; }

inline std::string of(int k, size_t n) { return fmt::format("{} of {}", k, n); }

// "HZ=250" when some run's HZ is not the study's 1000; "" otherwise.
inline std::string other_hz(const Cases& cases) {
  for (const auto& c : cases)
    if (c.meta().hz != 1000 && c.meta().hz > 0) return fmt::format("HZ={}", c.meta().hz);
  return "";
}

inline bool emulated(const Cases& cases) {
  return std::any_of(cases.begin(), cases.end(), [](const Case& c) { return c.meta().virtualized == "tcg"; });
}

// The sentence on 6.12's extra event when some run's rises were 17k + 1.
inline std::string extra_event_note(const Cases& cases) {
  uint64_t n = 0;
  for (const auto& c : cases)
    if (c.pred->sleeps) n += c.pred->sleeps->skipped_one_over;
  if (!n) return "";
  return fmt::format(" 6.12's extra high event: {} op{} rose by 17k + 1 and count{} as k sleeps here.", n,
                     n == 1 ? "" : "s", n == 1 ? "s" : "");
}

inline bool near_one(std::optional<double> r, double lo, double hi) { return r && *r >= lo && *r <= hi; }

inline std::string unthrottled_op(const Cases& cases) {
  return span(cases, [](const Case& c) { return c.pred->psi ? std::optional(c.pred->psi->normal_ms) : std::nullopt; });
}

// The same run without swap (report/swap_setting.h), from anywhere in
// `batch` (another setting's runs, in a batch of several): the same kernel
// release and HZ, memory.high and memory.max, workload (meta.json workload,
// --neighbour); of the same repetition when there is one. Null when none.
const Case* swap_twin(const Case& x, const Cases& batch);

// The figure of each case's twin, over the cases that have one.
template <class F>
inline std::string twin_span(const Cases& cases, const Cases& batch, F value,
                             std::string (*f)(std::optional<double>) = num) {
  return span(cases, [&](const Case& x) -> std::optional<double> {
    const Case* t = swap_twin(x, batch);
    return t ? value(*t) : std::nullopt;
  }, f);
}

inline int with_twin(const Cases& cases, const Cases& batch) {
  return count(cases, [&](const Case& x) { return swap_twin(x, batch) != nullptr; });
}

inline std::string runs_of(size_t n) { return fmt::format("{} run{}", n, n == 1 ? "" : "s"); }
// " 2 runs WHY left out.", or "" for none.
inline std::string left_out(size_t n, const char* why) {
  return n ? fmt::format(" {} {} left out.", runs_of(n), why) : "";
}

// The claims on sleeps (claims_sleeps.cpp) and on the workload's variants
// (claims_variants.cpp), in the study's order.
std::vector<Claim> claims_about_sleeps(const Cases& all);
std::vector<Claim> claims_about_variants(const Cases& all);
std::vector<Claim> claims_about_witnesses(const Cases& all);  // PSI and growth (claims_sleeps.cpp)
// The rows swap brings, judged on `all`'s runs with swap against their
// twins in `batch` (every finished run): memory.high and memory.max with
// swap (claims_swap.cpp), memory.swap.high against the model, PSI during
// swap-in and throughput (claims_swap_costs.cpp).
std::vector<Claim> claims_about_swap_limits(const Cases& all, const Cases& batch);
std::vector<Claim> claims_about_swap_costs(const Cases& all, const Cases& batch);

}  // namespace cgmem::report::claims_detail
