#include "advise/live.h"

#include <fmt/format.h>

#include "watch/scanner.h"

namespace cgmem::advise {
namespace {

uint64_t working_set(const watch::Sample& s, WorkingSet kind) {
  if (kind == WorkingSet::memory_current) return s.current;
  return s.current > s.inactive_file ? s.current - s.inactive_file : 0;
}

// The root row of a scan of the cgroup alone, or null when it is gone.
const watch::Row* own_row(std::span<const watch::Row> rows) {
  for (const watch::Row& r : rows)
    if (r.path == "/") return &r;
  return nullptr;
}

bool stopped(const LiveOptions& o) { return o.stop && *o.stop; }

}  // namespace

Result<LiveUsage> watch_usage(const LiveOptions& o) {
  Clock& clock = o.clock ? *o.clock : monotonic_clock();
  auto scanner = watch::Scanner::open({.root = o.cgroup,
                                       .max_depth = 0,
                                       .kernel = {.hz = o.hz, .page_size = o.page_size},
                                       .read_tasks = false});
  if (!scanner) return std::unexpected(scanner.error());
  LiveUsage out{.usage = {.dir = o.cgroup, .kernel = o.kernel, .hz = o.hz, .page_size = o.page_size,
                          .host_swap = o.host_swap}};
  Usage& u = out.usage;
  const uint64_t start = clock.now_ns(), end = start + o.for_ns;
  std::optional<watch::Sample> first, last;
  for (uint64_t tick = start; !stopped(o); tick += o.interval_ns) {
    clock.sleep_until(tick, -1);
    if (stopped(o)) break;
    uint64_t now = clock.now_ns();
    auto rows = (*scanner)->scan(now);
    if (!rows) return std::unexpected(rows.error());
    const watch::Row* row = own_row(*rows);
    if (!row || !row->sample.has(watch::File::current))
      return std::unexpected(Error{fmt::format("{}: the cgroup is gone or has no memory.current (is the memory "
                                               "controller on in its parent's cgroup.subtree_control?)",
                                               o.cgroup)});
    const watch::Sample& s = row->sample;
    if (!first) first = s;
    last = s;
    u.series.push_back({.t_s = static_cast<double>(now - start) / 1e9, .working_set = working_set(s, o.kind)});
    u.peak_current = std::max(u.peak_current, s.current);
    if (o.progress && u.series.size() % 10 == 0)
      o.progress(fmt::format("advise: {:.0f} s of {:.0f} s, working set {} (peak {})", u.series.back().t_s,
                             static_cast<double>(o.for_ns) / 1e9, format_bytes(u.series.back().working_set),
                             format_bytes(u.peak_current)));
    if (tick + o.interval_ns > end) break;
  }
  if (stopped(o))
    out.notes.push_back(fmt::format("the watch was stopped after {:.0f} s of {:.0f} s",
                                    u.series.empty() ? 0.0 : u.series.back().t_s, static_cast<double>(o.for_ns) / 1e9));
  if (first && last) {
    uint64_t high = last->local.high - std::min(last->local.high, first->local.high);
    uint64_t max = last->local.max - std::min(last->local.max, first->local.max);
    if (high || max)
      return std::unexpected(Error{fmt::format(
          "{}: its limits shaped its usage while it was watched ({} memory.high and {} memory.max events, memory.high "
          "{}, memory.max {}): what it used is what they allowed; watch it without them, or raise them first",
          o.cgroup, high, max, format_limit(last->high), format_limit(last->max))});
    if (!last->high.is_max() || !last->max.is_max())
      out.notes.push_back(fmt::format("the cgroup has memory.high {} and memory.max {}; neither was reached while it "
                                      "was watched",
                                      format_limit(last->high), format_limit(last->max)));
  }
  if (auto ok = summarize(u); !ok) return std::unexpected(ok.error());
  return out;
}

}  // namespace cgmem::advise
