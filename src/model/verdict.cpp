#include "model/verdict.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/duration.h"
#include "model/page_counter.h"
#include "model/predict.h"
#include "model/verdict_swap.h"

namespace cgmem::model {
namespace {

void throttled(Verdict& v, const VerdictInput& in, Throttle th) {
  for (BoundCost* b : {&v.per_batch, &v.per_page}) {
    th.sleeps_per_batch = b->sleeps_per_batch;
    b->op_seconds = op_seconds(th, in.working_set, in.op_bytes);
    if (in.alloc_rate && *in.alloc_rate > 0) {
      double unthrottled = static_cast<double>(in.op_bytes) / *in.alloc_rate;
      b->slowdown = slowdown(th, in.working_set, in.op_bytes, unthrottled);
    }
  }
  v.sleep_ms = sleep_seconds(th, in.working_set) * 1000;
  v.summary = fmt::format(
      "throttled: {} is {:.1f}% over memory.high {}; each {} allocation sleeps {} at one sleep per "
      "batch, {} at one per page; {}",
      format_bytes(in.working_set),
      100.0 * static_cast<double>(in.working_set - v.high.bytes()) / static_cast<double>(v.high.bytes()),
      format_bytes(v.high.bytes()), format_bytes(in.op_bytes), format_duration(v.per_batch.op_seconds, DurationStyle::prose),
      format_duration(v.per_page.op_seconds, DurationStyle::prose),
      v.max.is_max() ? "memory.high alone never kills"
                     : fmt::format("not killed: it is within memory.max {}", format_bytes(v.max.bytes())));
}

void oom(Verdict& v, const VerdictInput& in, Throttle th) {
  uint64_t max = v.max.bytes();
  if (in.alloc_rate && *in.alloc_rate > 0)
    v.seconds_to_max_unthrottled = static_cast<double>(max) / *in.alloc_rate;
  if (v.high.is_max() || v.high.bytes() >= max) {
    v.summary = fmt::format("OOM kill: {} does not fit in memory.max {} and nothing slows it down: "
                            "killed as soon as usage reaches memory.max{}",
                            format_bytes(in.working_set), format_bytes(max),
                            v.seconds_to_max_unthrottled
                                ? fmt::format(" ({} at the allocation rate)", format_duration(*v.seconds_to_max_unthrottled, DurationStyle::prose))
                                : "");
    return;
  }
  for (BoundCost* b : {&v.per_batch, &v.per_page}) {
    th.sleeps_per_batch = b->sleeps_per_batch;
    b->seconds_to_kill = grow(th, v.high.bytes(), max).seconds;
  }
  if (in.alloc_rate && *in.alloc_rate > 0)
    v.seconds_to_high = static_cast<double>(v.high.bytes()) / *in.alloc_rate;
  v.summary = fmt::format("OOM kill: {} does not fit in memory.max {}; memory.high {} delays the kill "
                          "by {} (one sleep per batch) to {} (one per page) of throttled climb",
                          format_bytes(in.working_set), format_bytes(max), format_bytes(v.high.bytes()),
                          format_duration(*v.per_batch.seconds_to_kill, DurationStyle::prose), format_duration(*v.per_page.seconds_to_kill, DurationStyle::prose));
}

// The kinds of a host without swap (or of a cgroup that may not swap).
void without_swap(Verdict& v, const VerdictInput& in) {
  Throttle th = detail::memory_throttle(v, in);
  bool over_max = !v.max.is_max() && in.working_set > v.max.bytes();
  bool sleeps = v.sleep_start && in.working_set >= *v.sleep_start;
  if (over_max) {
    v.kind = VerdictKind::oom;
    oom(v, in, th);
  } else if (sleeps) {
    v.kind = VerdictKind::throttled;
    throttled(v, in, th);
  } else {
    v.kind = VerdictKind::fits;
    v.summary = detail::fits_summary(v, in);
  }
  if (v.swap && v.swap->swap_max == Limit::of(0) && v.kind != VerdictKind::fits)
    v.summary += "; memory.swap.max 0: nothing goes to swap";
}

// The swap the host and memory.swap.max leave the cgroup, or nullopt on a
// host without swap.
std::optional<SwapVerdict> swap_part(const CgroupLimits& limits, const VerdictInput& in) {
  if (in.host_swap == 0) return std::nullopt;
  SwapVerdict s{.swap_max = limits.swap_max, .swap_high = limits.swap_high,
                .host_swap = page_rounded(Limit::of(in.host_swap), in.page_size).bytes()};
  s.allowed = s.swap_max.is_max() ? s.host_swap : std::min(s.swap_max.bytes(), s.host_swap);
  s.resident = in.working_set;
  return s;
}

}  // namespace

namespace detail {

Throttle memory_throttle(const Verdict& v, const VerdictInput& in) {
  return {.kernel = {.hz = in.hz, .batch = kChargeBatch, .page_size = in.page_size},
          .high = v.high.is_max() ? UINT64_MAX : v.high.bytes()};
}

std::string fits_summary(const Verdict& v, const VerdictInput& in) {
  if (!v.high.is_max() && in.working_set > v.high.bytes() && v.sleep_start)
    return fmt::format("fits: {} is over memory.high {} but below {}, where the kernel starts to sleep; "
                       "reclaim only",
                       format_bytes(in.working_set), format_bytes(v.high.bytes()), format_bytes(*v.sleep_start));
  if (v.high.is_max() && v.max.is_max()) return "fits: no memory.high and no memory.max";
  if (v.high.is_max())
    return fmt::format("fits: {} is within memory.max {} (no memory.high)", format_bytes(in.working_set),
                       format_limit(v.max));
  return fmt::format("fits: {} is within memory.high {} and memory.max {}", format_bytes(in.working_set),
                     format_limit(v.high), format_limit(v.max));
}

}  // namespace detail

std::string_view kind_name(VerdictKind kind) {
  switch (kind) {
    case VerdictKind::fits: return "fits";
    case VerdictKind::throttled: return "throttled";
    case VerdictKind::swaps: return "swaps";
    case VerdictKind::oom: return "oom";
  }
  return "fits";
}

Verdict verdict(const CgroupLimits& limits, const VerdictInput& in) {
  Verdict v{.high = limits.high, .max = limits.max, .working_set = in.working_set, .hz = in.hz};
  if (!v.high.is_max()) v.sleep_start = sleep_start(detail::memory_throttle(v, in));
  v.swap = swap_part(limits, in);
  // memory.max is below 2^63 (PAGE_COUNTER_MAX); a host swap near 2^64 saturates.
  if (!v.max.is_max()) v.oom_at = v.max.bytes() + std::min(v.swap ? v.swap->allowed : 0, UINT64_MAX - v.max.bytes());
  if (v.swap && v.swap->allowed > 0) detail::swap_verdict(v, in);
  else without_swap(v, in);
  return v;
}

}  // namespace cgmem::model
