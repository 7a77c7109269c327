#include "advise/vpa.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace cgmem::advise::vpa {
namespace {

size_t bucket_count() { return bucket_of(kMaxValue) + 1; }

}  // namespace

size_t bucket_of(double bytes) {
  if (bytes < kFirstBucket) return 0;
  double n = std::floor(std::log(bytes * (kBucketGrowth - 1) / kFirstBucket + 1) / std::log(kBucketGrowth));
  // The last bucket holds everything from its start up.
  double last = std::floor(std::log(kMaxValue * (kBucketGrowth - 1) / kFirstBucket + 1) / std::log(kBucketGrowth));
  return static_cast<size_t>(std::min(n, last));
}

double bucket_start(size_t n) {
  return kFirstBucket * (std::pow(kBucketGrowth, static_cast<double>(n)) - 1) / (kBucketGrowth - 1);
}

Recommendation recommend(std::span<const uint64_t> peaks) {
  std::vector<double> weight(bucket_count(), 0);
  for (uint64_t p : peaks) weight[bucket_of(static_cast<double>(p))] += 1;
  double total = static_cast<double>(peaks.size()), seen = 0;
  size_t bucket = 0;
  for (; bucket + 1 < weight.size(); ++bucket) {
    seen += weight[bucket];
    if (seen >= kTargetPercentile * total) break;
  }
  Recommendation r{.peaks = peaks.size()};
  // As histogram.go's Percentile: the start of the next bucket (the last
  // bucket has no end and gives its start).
  r.p90_bytes = static_cast<uint64_t>(bucket + 1 < weight.size() ? bucket_start(bucket + 1) : bucket_start(bucket));
  uint64_t target = static_cast<uint64_t>(static_cast<double>(r.p90_bytes) * (1 + kSafetyMargin));
  r.at_minimum = target < kMinimumBytes;
  r.target_bytes = std::max(target, kMinimumBytes);
  return r;
}

}  // namespace cgmem::advise::vpa
