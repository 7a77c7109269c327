// The RFC "memory.high.throttle" reproduced: for a batch whose runs set
// memory.high.throttle (`high_throttle` in meta.json's limits), the measured
// time to the OOM kill per shift beside the RFC's own table and beside the
// model's (src/model) time to climb from memory.high to memory.max.
//
// The three do not count the same thing. The model sums only the sleeps
// from memory.high to memory.max, one per 64-page batch. A measured run (and
// the RFC's) also spends time before memory.high (the program's own work)
// and, with memory.swap.max, after memory.current first reaches memory.max:
// reclaim swaps its pages out until swap.max is full too, and only then
// does the charge fail into the OOM killer. So each row splits the measured
// time into those three parts, and the climb is what compares with the
// model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/document.h"
#include "report/run.h"

namespace cgmem::report {

// The RFC's table: seconds until the OOM kill, against memory.high.throttle
// 0 to 15, for MemoryHigh=10M, MemoryMax=20M, MemorySwapMax=10M ("one
// possible set of samples", as its author says).
struct RfcPoint {
  uint32_t shift;
  double seconds;
};
inline constexpr RfcPoint kRfcTable[] = {
    {0, 120.521}, {1, 103.376}, {2, 85.881}, {3, 69.698}, {4, 42.668}, {5, 45.782}, {6, 22.179}, {7, 9.909},
    {8, 5.347},   {9, 3.100},   {10, 1.757}, {11, 1.084}, {12, 0.919}, {13, 0.650}, {14, 0.650}, {15, 0.655}};
inline constexpr uint64_t kRfcHigh = 10 * 1024 * 1024, kRfcMax = 20 * 1024 * 1024, kRfcSwapMax = 10 * 1024 * 1024;

std::optional<double> rfc_seconds(uint32_t shift);

// One run that set memory.high.throttle, split into its parts.
struct RfcRun {
  std::string name, kernel;
  int hz = 0;
  bool killed = false;
  double duration_s = 0;                // time to the kill, or the run's length
  std::optional<double> reached_high_s;  // end of the first op over memory.high
  std::optional<double> reached_max_s;   // end of the first op within one chunk of memory.max
  uint64_t events_high = 0;
  // Sleeps per op during the climb (the ops ending after reached_high, up
  // to reached_max): their high counter rises / 17 / their number. The
  // model's per-batch column has one per 256 KiB op.
  std::optional<double> climb_sleeps_per_op;
  std::optional<double> climb_s() const;   // reached_max - reached_high
  std::optional<double> at_max_s() const;  // kill - reached_max (swap-out, reclaim, the kill)
};

// All runs at one shift (and one memory.high / memory.max).
struct RfcRow {
  uint32_t shift = 0;
  uint64_t high = 0, max = 0;
  std::vector<RfcRun> runs;
  std::optional<double> rfc_s;       // the RFC's table, when it has this shift
  std::optional<double> model_batch_s, model_page_s;  // model::grow from high to max, k = 1 and 64
};

struct RfcComparison {
  std::vector<RfcRow> rows;  // by shift
  // The model's time at every shift from 0 to the largest run's, at the
  // first row's limits and HZ, for the plot's line.
  std::vector<RfcPoint> model_curve;
  bool rfc_setup = true;     // every run had the RFC's 10M / 20M / swap.max 10M
  bool mixed_kernels = false;
  bool empty() const { return rows.empty(); }
};

// The runs with memory.high.throttle and both limits, by shift; empty when
// there are none.
RfcComparison compare_rfc(const std::vector<Run>& runs);

Section rfc_section(const RfcComparison& c);
nlohmann::json rfc_json(const RfcComparison& c);

}  // namespace cgmem::report
