// The guard's loop, as the exporter's collector is a library class: scan,
// decide, dry run or rate limit, act, log, and tell the Guard what came of
// each decision. The CLI gives it the scanner, the actor, the clock and
// where lines go; tests give it rows, a recording Actor and a clock that
// jumps to each deadline.
//
// The first scan is a baseline (rates need two samples); then one scan per
// interval. A slow scan does not make a burst of scans to catch up: the next
// deadline is an interval after it.
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "common/clock.h"
#include "common/error.h"
#include "guard/act.h"
#include "guard/decide.h"
#include "guard/limits.h"
#include "guard/policy.h"

namespace cgmem::guard {

struct DaemonOptions {
  bool act = false;          // false: a dry run, nothing is changed
  unsigned count = 0;        // intervals after the baseline; 0: until stopped
  uint64_t interval_ns = 0;  // between scans
};

// One scan of the tree at `now_ns` (watch::Scanner::scan in production).
using ScanFn = std::function<Result<std::span<const watch::Row>>(uint64_t now_ns)>;
// Where each decision and what came of it go (the evidence line).
using LogFn = std::function<void(const Decision&, const ActResult&)>;

class Daemon {
 public:
  Daemon(const Policy& policy, const model::Kernel& kernel, Actor& actor, Clock& clock, DaemonOptions options)
      : policy_(policy), guard_(policy, kernel), limit_(policy.limits.per_minute), actor_(actor), clock_(clock),
        options_(options) {}

  // Scans until `count` intervals are done or `stopping` says so; an error
  // is a scan that failed (the root gone).
  Result<void> run(const ScanFn& scan, const LogFn& log, const std::function<bool()>& stopping);

  // One scan's rows: each decision carried out (or not) and logged.
  void handle(std::span<const watch::Row> rows, const LogFn& log);

 private:
  ActResult carry_out(const Decision& d, double now_s);

  const Policy& policy_;
  Guard guard_;
  RateLimit limit_;
  Actor& actor_;
  Clock& clock_;
  DaemonOptions options_;
};

}  // namespace cgmem::guard
