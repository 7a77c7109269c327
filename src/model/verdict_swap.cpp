// The verdict where the cgroup may swap (verdict.h has the kernel's rules).
//
// Where the working set settles: reclaim holds memory.current at the lower
// limit L (memory.high when it is below memory.max, else memory.max) and
// moves the rest out until the swap allowed is full; past that
// memory.current climbs again.
//
//   swapped  = min(working set - L, allowed)   (0 at or below L: fits)
//   resident = working set - swapped           (what memory.current holds)
//
// oom when resident > memory.max (the working set is above memory.max +
// allowed); throttled when one batch's penalty at (resident, swapped) sleeps,
// the memory term and the memory.swap.high term summed before the clamp
// (penalty); swaps otherwise. The time to the kill sums, at each
// bound, the swap filling from memory.swap.high to the allowance with
// memory held at L (the swap term alone: grow() over the swap
// counter, the same formula) and the climb from memory.high to memory.max
// with swap full (grow() of the memory term; with a swap.high term
// too, at least the larger of that and the swap term on every sleep).
#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "common/duration.h"
#include "model/verdict_swap.h"

namespace cgmem::model::detail {
namespace {

Kernel kernel_of(const VerdictInput& in) {
  return {.hz = in.hz, .batch = kChargeBatch, .page_size = in.page_size};
}

Level level(uint64_t usage, const Limit& high, const Kernel& k) {
  return {.usage = to_pages(usage, k), .high = high.is_max() ? UINT64_MAX : to_pages(high.bytes(), k)};
}

// One batch's penalty (nr_pages = MEMCG_CHARGE_BATCH) from either term or both.
Penalty batch_penalty(std::span<const Level> memory, std::span<const Level> swap,
                             const Kernel& k) {
  return penalty(PenaltyInput{.memory = memory, .swap = swap}, k);
}

double sleep_seconds(const Penalty& p, const Kernel& k) {
  return p.sleeps ? jiffies_to_ms(p.jiffies, k) / 1000 : 0;
}

bool high_below_max(const Verdict& v) {
  return !v.high.is_max() && (v.max.is_max() || v.high.bytes() < v.max.bytes());
}

// L: where reclaim holds memory.current while swap has room.
uint64_t lower_limit(const Verdict& v) { return high_below_max(v) ? v.high.bytes() : v.max.bytes(); }

// What bounds the swap allowed: "memory.swap.max 256MiB, host swap 4GiB".
std::string bounds(const SwapVerdict& s) {
  return fmt::format("memory.swap.max {}, host swap {}", format_limit(s.swap_max), format_bytes(s.host_swap));
}

std::string allowance(const SwapVerdict& s) {
  return fmt::format("{} of swap allowed: {}", format_bytes(s.allowed), bounds(s));
}

std::string kill_clause(const Verdict& v) {
  return v.oom_at ? fmt::format("not killed below {} (memory.max + the swap allowed)", format_bytes(*v.oom_at))
                  : std::string("never killed (no memory.max)");
}

void swaps(Verdict& v, const VerdictInput& in) {
  const SwapVerdict& s = *v.swap;
  std::string where = high_below_max(v)
      ? fmt::format("{} is over memory.high {}: reclaim moves {} ({:.1f}%) to swap instead of throttling",
                    format_bytes(in.working_set), format_bytes(v.high.bytes()), format_bytes(s.swapped),
                    100 * s.swapped_share)
      : fmt::format("{} does not fit in memory.max {}: {} ({:.1f}%) goes to swap", format_bytes(in.working_set),
                    format_bytes(v.max.bytes()), format_bytes(s.swapped), 100 * s.swapped_share);
  std::string full = s.resident > lower_limit(v)
      ? fmt::format("; swap is full and {} stays in memory, below {} where the kernel starts to sleep",
                    format_bytes(s.resident), format_bytes(v.sleep_start.value_or(0)))
      : "";
  v.summary = fmt::format("swaps: {} ({}){}; {}; the swap-ins cost the swap device's time, "
                          "which cgmem does not model",
                          where, allowance(s), full, kill_clause(v));
}

void throttled(Verdict& v, const VerdictInput& in, const Penalty& both) {
  const SwapVerdict& s = *v.swap;
  const Kernel k = kernel_of(in);
  const double sleep = sleep_seconds(both, k);
  const double sleeps_per_op = static_cast<double>(in.op_bytes) / static_cast<double>(in.page_size) / k.batch;
  for (BoundCost* b : {&v.per_batch, &v.per_page}) {
    b->op_seconds = sleeps_per_op * b->sleeps_per_batch * sleep;
    if (in.alloc_rate && *in.alloc_rate > 0) {
      double unthrottled = static_cast<double>(in.op_bytes) / *in.alloc_rate;
      b->slowdown = (unthrottled + b->op_seconds) / unthrottled;
    }
  }
  v.sleep_ms = sleep * 1000;
  const Level mem = level(s.resident, v.high, k), swap = level(s.swapped, s.swap_high, k);
  std::vector<std::string> over;
  if (mem.usage > mem.high)
    over.push_back(fmt::format("{} in memory is {:.1f}% over memory.high {}{}", format_bytes(s.resident),
                               over_percent(mem.usage, mem.high), format_bytes(v.high.bytes()),
                               s.swapped == s.allowed ? " with swap full" : ""));
  if (swap.usage > swap.high)
    over.push_back(fmt::format("{} in swap is {:.1f}% over memory.swap.high {}", format_bytes(s.swapped),
                               over_percent(swap.usage, swap.high), format_bytes(s.swap_high.bytes())));
  // Each term before the clamp, when both count.
  auto term_ms = [&](const Penalty& p) { return jiffies_to_ms(p.unclamped_jiffies, k); };
  double memory_term = term_ms(batch_penalty({&mem, 1}, {}, k)), swap_term = term_ms(batch_penalty({}, {&swap, 1}, k));
  std::string terms = memory_term > 0 && swap_term > 0
      ? fmt::format(" (memory term {} + swap term {} a batch, at most 2 x HZ)", format_duration(memory_term / 1000, DurationStyle::prose),
                    format_duration(swap_term / 1000, DurationStyle::prose))
      : "";
  v.summary = fmt::format("throttled: {} ({}); each {} allocation sleeps {} at one sleep per batch, {} at one "
                          "per page{}; {}",
                          fmt::join(over, " and "), allowance(s), format_bytes(in.op_bytes),
                          format_duration(v.per_batch.op_seconds, DurationStyle::prose), format_duration(v.per_page.op_seconds, DurationStyle::prose), terms,
                          kill_clause(v));
}

// seconds_to_kill at one bound: the swap filling past swap.high, then the
// climb from memory.high to memory.max with swap full.
void kill_time(const Verdict& v, const VerdictInput& in, double swap_term, BoundCost& b) {
  const SwapVerdict& s = *v.swap;
  const bool swap_high_below = !s.swap_high.is_max() && s.swap_high.bytes() < s.allowed;
  double total = 0;
  if (swap_high_below) {
    Throttle fill{.kernel = kernel_of(in), .high = s.swap_high.bytes(), .sleeps_per_batch = b.sleeps_per_batch};
    b.seconds_swap_fill = grow(fill, s.swap_high.bytes(), s.allowed).seconds;
    total += *b.seconds_swap_fill;
  }
  if (high_below_max(v)) {
    Throttle climb = memory_throttle(v, in);
    climb.sleeps_per_batch = b.sleeps_per_batch;
    double seconds = grow(climb, v.high.bytes(), v.max.bytes()).seconds;
    if (swap_term > 0) {  // every sleep of the climb is at least the swap term
      double pages = static_cast<double>((v.max.bytes() - v.high.bytes()) / in.page_size);
      seconds = std::max(seconds, pages / kChargeBatch * b.sleeps_per_batch * swap_term);
      b.seconds_to_kill_is_lower_bound = true;
    }
    total += seconds;
  }
  b.seconds_to_kill = total;
}

void oom(Verdict& v, const VerdictInput& in) {
  const SwapVerdict& s = *v.swap;
  const Kernel k = kernel_of(in);
  if (in.alloc_rate && *in.alloc_rate > 0) {
    v.seconds_to_max_unthrottled = static_cast<double>(v.max.bytes()) / *in.alloc_rate;
    v.seconds_to_oom_unthrottled = static_cast<double>(*v.oom_at) / *in.alloc_rate;
  }
  const bool swap_high_below = !s.swap_high.is_max() && s.swap_high.bytes() < s.allowed;
  std::string head = fmt::format("OOM kill: {} does not fit in memory.max {} plus {} of swap ({})",
                                 format_bytes(in.working_set), format_bytes(v.max.bytes()), format_bytes(s.allowed),
                                 bounds(s));
  if (!high_below_max(v) && !swap_high_below) {
    v.summary = fmt::format("{}: once swap is full, killed as soon as usage reaches memory.max{}", head,
                            v.seconds_to_oom_unthrottled
                                ? fmt::format(" ({} at the allocation rate, swap-out time not counted)",
                                              format_duration(*v.seconds_to_oom_unthrottled, DurationStyle::prose))
                                : "");
    return;
  }
  Level full = level(s.allowed, s.swap_high, k);
  double swap_term = swap_high_below ? sleep_seconds(batch_penalty({}, {&full, 1}, k), k) : 0;
  for (BoundCost* b : {&v.per_batch, &v.per_page}) kill_time(v, in, swap_term, *b);
  if (high_below_max(v) && in.alloc_rate && *in.alloc_rate > 0)
    v.seconds_to_high = static_cast<double>(v.high.bytes()) / *in.alloc_rate;
  std::vector<std::string> slowers;
  if (high_below_max(v)) slowers.push_back(fmt::format("memory.high {}", format_bytes(v.high.bytes())));
  if (swap_high_below) slowers.push_back(fmt::format("memory.swap.high {}", format_bytes(s.swap_high.bytes())));
  v.summary = fmt::format("{}; {} delay{} the kill by {}{} (one sleep per batch) to {} (one per page) asleep",
                          head, fmt::join(slowers, " and "), slowers.size() == 1 ? "s" : "",
                          v.per_batch.seconds_to_kill_is_lower_bound ? "at least " : "",
                          format_duration(*v.per_batch.seconds_to_kill, DurationStyle::prose), format_duration(*v.per_page.seconds_to_kill, DurationStyle::prose));
}

}  // namespace

void swap_verdict(Verdict& v, const VerdictInput& in) {
  SwapVerdict& s = *v.swap;
  const uint64_t lower = lower_limit(v);
  if (in.working_set <= lower) {
    v.kind = VerdictKind::fits;
    v.summary = fits_summary(v, in);
    return;
  }
  s.swapped = std::min(in.working_set - lower, s.allowed);
  s.resident = in.working_set - s.swapped;
  const bool killed = !v.max.is_max() && s.resident > v.max.bytes();
  if (killed) s.resident = v.max.bytes();  // where memory.current is when the charge fails
  s.swapped_share = static_cast<double>(s.swapped) / static_cast<double>(in.working_set);
  const Kernel k = kernel_of(in);
  Level mem = level(s.resident, v.high, k), swap = level(s.swapped, s.swap_high, k);
  s.swap_sleep_ms = sleep_seconds(batch_penalty({}, {&swap, 1}, k), k) * 1000;
  if (killed) {
    v.kind = VerdictKind::oom;
    oom(v, in);
    return;
  }
  Penalty both = batch_penalty({&mem, 1}, {&swap, 1}, k);
  if (both.sleeps) {
    v.kind = VerdictKind::throttled;
    throttled(v, in, both);
  } else {
    v.kind = VerdictKind::swaps;
    swaps(v, in);
  }
}

}  // namespace cgmem::model::detail
