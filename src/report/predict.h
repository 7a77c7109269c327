// The prediction sections: the study's comparison of each run with the
// kernel's throttle arithmetic (src/model), at the run's own HZ and page
// size (meta.json host.hz, host.page_size). docs/report.md says how each
// number is computed; the section numbers follow the study's predict.md.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "model/penalty.h"
#include "report/run.h"

namespace cgmem::report {

// (1) sleeps per op and the length of each sleep.
struct SleepCheck {
  uint64_t ops = 0;                   // ops in the run
  uint64_t ops_with_rise = 0;         // high counter rose during the op
  uint64_t skipped_not_multiple = 0;  // rise not a multiple of 17
  uint64_t skipped_one_over = 0;      // of those, rises of 17k + 1 (6.12 gave 18s)
  uint64_t formula_no_sleep = 0;      // slept, but the formula says no sleep there
  uint64_t compared = 0;              // ops in the ratio
  std::optional<double> median_ratio;        // latency / (sleeps x formula)
  std::optional<double> within_30;           // share with |ratio - 1| <= 0.3
  std::optional<double> median_ratio_wheel;  // with half a timer-wheel step added per sleep
  std::optional<double> median_ratio_wheel_level0;  // sleeps under 63 jiffies (1-jiffy step)
  std::optional<double> median_ratio_wheel_upper;   // sleeps of 63 jiffies or more
  // latency / sleeps - (formula + half a step): how late each sleep ends, in
  // ms. A fixed delay per sleep (the 17 reclaim passes, the wake-up) weighs
  // more on short sleeps, so it tells a slow machine from a wrong formula.
  std::optional<double> median_late_ms;
  // The 2 x HZ cap: ops whose formula sleep is clamped.
  uint64_t capped_ops = 0;
  std::optional<double> median_capped_sleep_ms;  // latency / sleeps among them
  // (1c) phases, with the op in flight at the end (in_flight.h) when there is one
  std::optional<double> median_sleeps_50ms;  // median sleeps per op, formula >= 50 ms
  std::optional<double> slow_phase_share;    // throttled time in ops with >= 32 sleeps
  bool in_flight = false;                    // the op in flight is counted in the phases
  std::optional<uint64_t> in_flight_sleeps;  // its rise / 17, rounded down
};

// One formula-sleep bin of the sleeps-per-64-pages table.
struct SleepBin {
  double lo_ms = 0, hi_ms = 0;
  std::vector<double> sleeps_per_batch;  // one per op
};

// (3) time to the OOM kill.
struct KillCheck {
  double sleep_start_s = 0;       // first op that slept, from the run's start
  uint64_t sleep_start_bytes = 0; // memory.current before it
  uint64_t max_bytes = 0;
  double predicted_page_s = 0;    // start + sum of one sleep per page up to max
  double predicted_batch_s = 0;   // start + one sleep per 64 pages
  std::optional<double> measured_s;  // time to kill, if killed
  double duration_s = 0;
  bool start_in_flight = false;   // no logged op slept: sleeping started in the op in flight
  // The regime the run showed (1c): per page when half or more of its
  // throttled time was in ops with 32 or more sleeps; empty when it slept in no op.
  std::optional<bool> per_page;
  // The program's own time from sleeping start to memory.max: the ops it
  // takes at the normal latency (4. PSI), which the model does not count.
  std::optional<double> own_time_s;
};

// (4) PSI against the time ops spent over their normal latency.
struct PsiCheck {
  double normal_ms = 0;       // median latency of ops with no high event
  double excess_s = 0;        // sum over ops of max(0, latency - normal)
  std::optional<double> psi_some_s;
  std::optional<double> ratio;  // psi / excess
  std::optional<double> in_flight_s;  // the op in flight's time over normal, included in excess_s
};

// (5) growth at the end of the run.
struct GrowthCheck {
  int procs = 1;
  double window_s = 0;                 // min(60 s, half the run)
  double start_bytes = 0, end_bytes = 0;  // memory.current at the window's ends
  // The rise of memory.stat anon over the window (memory.current's, which
  // also counts the per-CPU charge stock, for a file workload or samples
  // without memory.stat), per second.
  double measured_kib_s = 0;
  bool measured_from_anon = false;
  std::optional<double> model_page_kib_s;   // procs x 1 page per sleep
  std::optional<double> model_batch_kib_s;  // procs x 64 pages per sleep
  // The rise of memory.stat anon (else memory.current) in pages / (the high
  // counter's rise / 17) over the window: pages per sleep of all the
  // processes together, when nothing is reclaimable. Absent without high
  // events in the window.
  std::optional<double> pages_per_sleep;
};

// (7) memory.swap.high: the ops whose memory.swap.events high rose, whose
// sleeps (the rise / 17, 17k + 1 as k) each take the kernel's penalty with
// the memory term (memory.current against memory.high) and the swap term
// (memory.swap.current before the op against memory.swap.high) summed,
// after memory.high.throttle's shift and the 2 x HZ clamp.
struct SwapHighCheck {
  uint64_t swap_high_bytes = 0;
  SleepCheck sleeps;  // section 1's counts and ratios; its phases (1c) stay empty
  std::optional<double> median_swap_over;   // (swap_before - swap.high) / swap.high, compared ops
  std::optional<double> median_swap_share;  // the swap term's part of the summed penalty, compared ops
};

struct RunPrediction {
  std::string name, config, workload;
  int hz = 0;
  std::string skipped;  // why the run has no predictions, if so
  std::optional<SleepCheck> sleeps;
  // The same check with rises of 17k + 1 read as k sleeps and one reclaim
  // pass that did not sleep (6.12's extra high event); only when there are such rises.
  std::optional<SleepCheck> sleeps_one_over;
  std::optional<KillCheck> kill;
  std::optional<PsiCheck> psi;
  std::optional<GrowthCheck> growth;
  std::vector<SleepBin> bins;
  std::optional<SwapHighCheck> swap_high;  // a single-process run with memory.swap.high and swap counters
};

RunPrediction predict(const Run& run);

// The bin edges at this HZ: the shortest sleep the kernel takes
// (HZ/100 + 1 jiffies), 25, 50, 100, 200, 400 ms and the 2 * HZ cap.
std::vector<SleepBin> sleep_bins(int hz);

}  // namespace cgmem::report
