#include "managers/verdict.h"

#include <fmt/format.h>

#include "model/predict.h"

namespace cgmem::managers {
namespace {

std::string duration(double s) {
  if (s < 1) return fmt::format("{:.1f} ms", s * 1000);
  if (s < 120) return fmt::format("{:.2f} s", s);
  if (s < 7200) return fmt::format("{:.1f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}

Limit effective(const Translation& t, const std::string& scope, const char* file, bool& present) {
  const Assignment* a = find(t, scope, file);
  if (!a) return Limit::max();
  present = true;
  return a->set ? a->value : Limit::max();
}

void throttled(Verdict& v, const VerdictInput& in, model::Throttle th) {
  for (BoundCost* b : {&v.per_batch, &v.per_page}) {
    th.sleeps_per_batch = b->sleeps_per_batch;
    b->op_seconds = model::op_seconds(th, in.working_set, in.op_bytes);
    if (in.alloc_rate && *in.alloc_rate > 0) {
      double unthrottled = static_cast<double>(in.op_bytes) / *in.alloc_rate;
      b->slowdown = model::slowdown(th, in.working_set, in.op_bytes, unthrottled);
    }
  }
  v.sleep_ms = model::sleep_seconds(th, in.working_set) * 1000;
  v.summary = fmt::format(
      "throttled: {} is {:.1f}% over memory.high {}; each {} allocation sleeps {} at one sleep per "
      "batch, {} at one per page; memory.high alone never kills",
      format_bytes(in.working_set),
      100.0 * static_cast<double>(in.working_set - v.high.bytes()) / static_cast<double>(v.high.bytes()),
      format_bytes(v.high.bytes()), format_bytes(in.op_bytes), duration(v.per_batch.op_seconds),
      duration(v.per_page.op_seconds));
}

void oom(Verdict& v, const VerdictInput& in, model::Throttle th) {
  uint64_t max = v.max.bytes();
  if (in.alloc_rate && *in.alloc_rate > 0)
    v.seconds_to_max_unthrottled = static_cast<double>(max) / *in.alloc_rate;
  if (v.high.is_max() || v.high.bytes() >= max) {
    v.summary = fmt::format("OOM kill: {} does not fit in memory.max {} and nothing slows it down: "
                            "killed as soon as usage reaches memory.max{}",
                            format_bytes(in.working_set), format_bytes(max),
                            v.seconds_to_max_unthrottled
                                ? fmt::format(" ({} at the allocation rate)", duration(*v.seconds_to_max_unthrottled))
                                : "");
    return;
  }
  for (BoundCost* b : {&v.per_batch, &v.per_page}) {
    th.sleeps_per_batch = b->sleeps_per_batch;
    b->seconds_to_kill = model::grow(th, v.high.bytes(), max).seconds;
  }
  if (in.alloc_rate && *in.alloc_rate > 0)
    v.seconds_to_high = static_cast<double>(v.high.bytes()) / *in.alloc_rate;
  v.summary = fmt::format("OOM kill: {} does not fit in memory.max {}; memory.high {} delays the kill "
                          "by {} (one sleep per batch) to {} (one per page) of throttled climb",
                          format_bytes(in.working_set), format_bytes(max), format_bytes(v.high.bytes()),
                          duration(*v.per_batch.seconds_to_kill), duration(*v.per_page.seconds_to_kill));
}

}  // namespace

std::optional<Verdict> verdict(const Translation& t, const std::string& scope, const VerdictInput& in) {
  bool present = false;
  Verdict v{.scope = scope, .working_set = in.working_set, .hz = in.hz};
  v.high = effective(t, scope, "memory.high", present);
  v.max = effective(t, scope, "memory.max", present);
  if (!present) return std::nullopt;
  model::Throttle th{.kernel = {.hz = in.hz, .batch = 64, .page_size = in.page_size},
                     .high = v.high.is_max() ? UINT64_MAX : v.high.bytes()};
  if (!v.high.is_max()) v.sleep_start = model::sleep_start(th);
  bool over_max = !v.max.is_max() && in.working_set > v.max.bytes();
  bool sleeps = !v.high.is_max() && v.sleep_start && in.working_set >= *v.sleep_start;
  if (over_max) {
    v.kind = "oom";
    oom(v, in, th);
  } else if (sleeps) {
    v.kind = "throttled";
    throttled(v, in, th);
  } else {
    v.kind = "fits";
    v.summary = !v.high.is_max() && in.working_set > v.high.bytes() && v.sleep_start
                    ? fmt::format("fits: {} is over memory.high {} but below {}, where the kernel "
                                  "starts to sleep; reclaim only",
                                  format_bytes(in.working_set), format_bytes(v.high.bytes()),
                                  format_bytes(*v.sleep_start))
                : v.high.is_max() && v.max.is_max()
                    ? fmt::format("fits: no memory.high and no memory.max")
                : v.high.is_max()
                    ? fmt::format("fits: {} is within memory.max {} (no memory.high)",
                                  format_bytes(in.working_set), format_limit(v.max))
                    : fmt::format("fits: {} is within memory.high {} and memory.max {}",
                                  format_bytes(in.working_set), format_limit(v.high), format_limit(v.max));
  }
  return v;
}

}  // namespace cgmem::managers
