// Small statistics the report uses, with the definitions docs/report.md
// states: the median and percentiles interpolate linearly between the two
// nearest ranks (numpy's default), so the report agrees with a Python check.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace cgmem::report {

inline constexpr double kNsPerMs = 1e6;  // ops.jsonl's lat_ns and t_ns to milliseconds

// The q-quantile (q in [0, 1]) of values; empty input gives nullopt.
// Reorders `values`.
std::optional<double> quantile_in_place(std::span<double> values, double q);
// The same on a copy.
inline std::optional<double> quantile(std::vector<double> values, double q) {
  return quantile_in_place(values, q);
}
inline std::optional<double> median(std::vector<double> values) {
  return quantile(std::move(values), 0.5);
}

// The most common value; ties go to the smallest; empty gives "".
std::string mode(std::span<const std::string> values);

// Min and max of the values seen so far, for "0.28 to 0.39" across runs.
struct Range {
  std::optional<double> lo, hi;
  void add(std::optional<double> v);
  bool empty() const { return !lo; }
};

}  // namespace cgmem::report
