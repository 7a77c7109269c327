#include "report/stats.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace cgmem::report {

std::optional<double> quantile_in_place(std::span<double> values, double q) {
  if (values.empty()) return std::nullopt;
  q = std::clamp(q, 0.0, 1.0);
  double pos = q * static_cast<double>(values.size() - 1);
  auto below = static_cast<size_t>(std::floor(pos));
  double frac = pos - static_cast<double>(below);
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(below), values.end());
  double lo = values[below];
  if (frac == 0.0 || below + 1 >= values.size()) return lo;
  // The next rank is the smallest value above position `below`.
  double hi = *std::min_element(values.begin() + static_cast<std::ptrdiff_t>(below) + 1, values.end());
  return lo + (hi - lo) * frac;
}

std::string mode(std::span<const std::string> values) {
  std::map<std::string, size_t> counts;
  for (const auto& v : values) ++counts[v];
  std::string best;
  size_t best_count = 0;
  for (const auto& [value, count] : counts) {
    if (count > best_count) best = value, best_count = count;
  }
  return best;
}

void Range::add(std::optional<double> v) {
  if (!v) return;
  lo = lo ? std::min(*lo, *v) : *v;
  hi = hi ? std::max(*hi, *v) : *v;
}

}  // namespace cgmem::report
