#include "guard/daemon.h"

#include <fmt/format.h>

#include <algorithm>

namespace cgmem::guard {
namespace {

constexpr uint64_t kStopCheckNs = 100'000'000;

}  // namespace

ActResult Daemon::carry_out(const Decision& d, double now_s) {
  if (d.verb == Verb::report) return {.result = "reported"};
  if (!options_.act) return {.result = fmt::format("dry run: would {} (--act to act)", verb_name(d.verb))};
  if (!limit_.take(now_s))
    return {.result = fmt::format("rate limited: {} actions in the last minute (limits.per_minute)",
                                  policy_.limits.per_minute)};
  return actor_.act(d);
}

void Daemon::handle(std::span<const watch::Row> rows, const LogFn& log) {
  for (const Decision& d : guard_.observe(rows)) {
    double at = static_cast<double>(d.row->sample.t_ns) / 1e9;
    ActResult result = carry_out(d, at);
    log(d, result);
    guard_.done(d, at, result.acted);
  }
}

Result<void> Daemon::run(const ScanFn& scan, const LogFn& log, const std::function<bool()>& stopping) {
  if (auto first = scan(clock_.now_ns()); !first) return std::unexpected(first.error());
  uint64_t next = clock_.now_ns() + options_.interval_ns;
  for (unsigned done = 0; !stopping() && (options_.count == 0 || done < options_.count); ++done) {
    // A stop signal ends a sleep early; the steps of at most 100 ms bound
    // the wait when one comes just before a sleep begins.
    while (!stopping() && clock_.now_ns() < next)
      clock_.sleep_until(std::min(next, clock_.now_ns() + kStopCheckNs), -1);
    if (stopping()) break;
    uint64_t now = clock_.now_ns();
    auto rows = scan(now);
    if (!rows) return std::unexpected(rows.error());
    handle(*rows, log);
    next += options_.interval_ns;
    if (next < now) next = now + options_.interval_ns;  // a slow scan: no burst to catch up
  }
  return {};
}

}  // namespace cgmem::guard
