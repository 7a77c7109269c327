// What a --command run's load generator printed (load.stdout), read in the
// formats of common benchmarks, each line timed by load.times.jsonl
// (lab/load_pipe.h). Anything else is kept as text and not read.
//
//   redis-benchmark --csv (7.x): a header, then one row per test; a load
//   that runs it in a loop repeats both:
//     "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
//     "SET","19607.84","1.932","0.176","0.831","4.735","24.431","57.023"
//   (older versions print only "SET","19607.84": throughput, no latency)
//   pgbench's summary:
//     latency average = 1.234 ms
//     tps = 810.123456 (without initial connection time)
//   wrk (with --latency for the percentiles):
//     Latency     1.23ms    0.45ms  10.00ms   90.00%
//          99%    4.56ms
//     Requests/sec:  12345.67
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cgmem::report {

struct LoadPoint {
  std::string test;          // "SET" for redis-benchmark; "" for pgbench and wrk
  std::optional<double> t_s; // when its line came, seconds since the program started
  std::optional<double> rps, avg_ms, p50_ms, p99_ms, max_ms;
};

struct LoadOutput {
  std::string format;  // "redis-benchmark-csv", "pgbench", "wrk", or "" (not read)
  std::vector<LoadPoint> points;
  // "line 3: '-5' is not a finite decimal number of 0 or more; not read":
  // values refused (nan, inf, negative, hex), the first kMaxLoadProblems of
  // them, then how many more; or why the file could not be read at all.
  std::vector<std::string> problems;
};
inline constexpr size_t kMaxLoadProblems = 5;

// load.times.jsonl: (t_s, bytes of load.stdout so far), in order; lines
// that are not such objects are skipped.
struct LoadTime {
  double t_s = 0;
  uint64_t bytes = 0;
};
std::vector<LoadTime> parse_load_times(std::string_view text);

LoadOutput parse_load_output(std::string_view text, const std::vector<LoadTime>& times);

}  // namespace cgmem::report
