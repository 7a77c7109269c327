#include "report/bins.h"

#include <algorithm>
#include <numeric>

#include "model/penalty.h"
#include "report/predict.h"
#include "report/stats.h"

namespace cgmem::report {

namespace {

constexpr uint16_t kHasSleeps = 0x8000;  // flag bit beside a bin number
static_assert(kMaxBins < kHasSleeps);

// The values of one series grouped by bin: bin i holds
// values[start[i], start[i + 1]).
struct Grouped {
  std::vector<size_t> start;
  std::vector<double> values;

  explicit Grouped(size_t bins) : start(bins + 1, 0) {}
  void count(uint16_t bin) { ++start[bin + 1]; }
  // After counting: room for every value, and where each bin's next one goes.
  std::vector<size_t> open() {
    std::partial_sum(start.begin(), start.end(), start.begin());
    values.resize(start.back());
    return {start.begin(), start.end() - 1};
  }
  std::vector<BinPoint> medians(uint64_t lo, uint64_t width) {
    std::vector<BinPoint> out;
    for (size_t i = 0; i + 1 < start.size(); ++i) {
      std::span<double> bin(values.data() + start[i], start[i + 1] - start[i]);
      if (bin.empty()) continue;
      double centre = static_cast<double>(lo + i * width + width / 2) / kMiB;
      out.push_back({centre, *quantile_in_place(bin, 0.5)});
    }
    return out;
  }
};

}  // namespace

OpSeries bin_ops(std::span<const Run* const> runs, uint64_t chunk) {
  uint64_t lo = UINT64_MAX, hi = 0;
  size_t n = 0;
  for (const Run* r : runs) {
    for (const Op& op : r->ops) lo = std::min(lo, op.current_after), hi = std::max(hi, op.current_after);
    n += r->ops.size();
  }
  if (n == 0) return {};
  uint64_t width = std::max<uint64_t>({chunk, 1, (hi - lo) / kMaxBins + 1});
  size_t bins = (hi - lo) / width + 1;
  Grouped latency(bins), sleeps(bins);
  // Pass 1 over the ops: each one's bin, flag and values, in op order.
  std::vector<uint16_t> bin_of(n);
  std::vector<double> lat_ms(n), sleep_count(n);
  size_t i = 0;
  for (const Run* r : runs) {
    for (const Op& op : r->ops) {
      auto bin = static_cast<uint16_t>((op.current_after - lo) / width);
      latency.count(bin);
      lat_ms[i] = std::max(1e-3, static_cast<double>(op.lat_ns) / 1e6);
      auto slept = r->meta.procs <= 1 && op.high_after >= op.high_before
                       ? model::sleeps_from_high_events(op.high_rise())
                       : std::nullopt;
      if (slept) {
        sleeps.count(bin);
        sleep_count[i] = static_cast<double>(*slept);
        bin |= kHasSleeps;
      }
      bin_of[i++] = bin;
    }
  }
  // Pass 2: the values into their bins.
  auto next_lat = latency.open();
  auto next_sleep = sleeps.open();
  for (i = 0; i < n; ++i) {
    uint16_t bin = bin_of[i] & ~kHasSleeps;
    latency.values[next_lat[bin]++] = lat_ms[i];
    if (bin_of[i] & kHasSleeps) sleeps.values[next_sleep[bin]++] = sleep_count[i];
  }
  return {latency.medians(lo, width), sleeps.medians(lo, width)};
}

}  // namespace cgmem::report
