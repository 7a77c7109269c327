// A Prometheus server's answers as `cgmem advise --prometheus` reads them:
// any bytes, returned to every query. Nothing may crash or throw; a
// history that is accepted has a working set advise can recommend from,
// and the recommendation is computed without a crash.
#include "advise/prometheus.h"
#include "advise/recommend.h"
#include "fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  std::string body(fuzz::text(data, size));
  auto get = [&](const std::string&) -> Result<std::string> { return body; };
  auto history = advise::prometheus_usage({.selector = "{cgroup=\"/app\"}", .range_s = 3 * 86400, .end_s = 1e9}, get);
  if (!history) return 0;
  fuzz::check(history->usage.working_set > 0 && history->usage.series.size() >= advise::kMinSamples);
  std::vector<uint64_t> peaks = history->daily_peaks;
  if (peaks.empty()) peaks.push_back(history->usage.working_set);
  (void)advise::recommend(history->usage, peaks, {});
  return 0;
}
