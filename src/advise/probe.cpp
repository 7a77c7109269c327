#include "advise/probe.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cgroup/cgroup.h"
#include "cgroup/files.h"
#include "lab/marker.h"

namespace cgmem::advise {
namespace {

uint64_t pages_down(double bytes, uint64_t page) { return std::max<uint64_t>(1, static_cast<uint64_t>(bytes) / page) * page; }

// The cgroup only when its mark names the probing run: never another's.
Result<cgroup::Cgroup> open_own(const ProbeOptions& o) {
  auto mark = lab::read_mark(o.cgroup);
  if (!mark || mark->driver != o.driver || mark->run_dir != o.run_dir)
    return fail(fmt::format("{}: not the cgroup of the probing run (its trusted.cgmem mark does not name pid {} and "
                            "{}): memory.high is not written",
                            o.cgroup, o.driver, o.run_dir));
  return cgroup::Cgroup::open(o.cgroup);
}

Result<uint64_t> stalled_usec(const cgroup::Cgroup& cg) {
  auto p = cg.pressure(cgroup::files::kMemoryPressure);
  if (!p) return std::unexpected(p.error());
  if (!p->some) return fail(fmt::format("{}: memory.pressure has no 'some' line", cg.path()));
  return p->some->total_usec;
}

bool stopped(const ProbeOptions& o) { return (o.stop && *o.stop) || (o.running && !o.running()); }

}  // namespace

Result<Probe> probe(const ProbeOptions& o) {
  Clock& clock = o.clock ? *o.clock : monotonic_clock();
  auto cg = open_own(o);
  if (!cg) return std::unexpected(cg.error());
  Probe out;
  uint64_t high = pages_down(static_cast<double>(o.start_high) + static_cast<double>(o.page_size - 1), o.page_size);
  auto before = stalled_usec(*cg);
  if (!before) return std::unexpected(before.error());
  const uint64_t start = clock.now_ns();
  std::optional<uint64_t> lowest_calm;
  for (uint64_t tick = start + o.interval_ns; out.steps.size() < o.max_steps && !stopped(o); tick += o.interval_ns) {
    if (auto w = cg->set_limit(cgroup::files::kMemoryHigh, Limit::of(high), true); !w) return std::unexpected(w.error());
    clock.sleep_until(tick, -1);
    if (stopped(o)) break;
    auto after = stalled_usec(*cg);
    auto current = cg->read_counter(cgroup::files::kMemoryCurrent);
    if (!after || !current) break;  // the run ended and removed its cgroup
    ProbeStep step{.t_s = static_cast<double>(clock.now_ns() - start) / 1e9, .memory_high = high,
                   .memory_current = *current, .stalled_ms = static_cast<double>(*after - std::min(*after, *before)) / 1e3};
    step.pressure = step.stalled_ms / 1e3 > o.threshold * static_cast<double>(o.interval_ns) / 1e9;
    out.steps.push_back(step);
    before = after;
    if (o.progress)
      o.progress(fmt::format("advise: probe {:.0f} s: memory.high {}, memory.current {}, stalled {:.0f} ms{}", step.t_s,
                             format_bytes(high), format_bytes(*current), step.stalled_ms,
                             step.pressure ? ": pressure, back up" : ""));
    if (!step.pressure) {
      lowest_calm = std::min(lowest_calm.value_or(high), high);
      // Calm again just above where pressure came: the need is found.
      if (out.converged) break;
      high = pages_down(static_cast<double>(std::min(high, *current)) * (1 - o.step), o.page_size);
    } else {
      out.converged = lowest_calm.has_value();
      high = pages_down(static_cast<double>(high) * (1 + o.step), o.page_size);
    }
  }
  // Back to no limit while the run ends.
  (void)cg->set_limit(cgroup::files::kMemoryHigh, Limit::max(), true);
  out.working_set = lowest_calm;
  return out;
}

}  // namespace cgmem::advise
