// The Kubernetes VPA recommender's memory rule, for comparison with what
// `cgmem advise` sets (kubernetes/autoscaler, vertical-pod-autoscaler,
// pkg/recommender: util/histogram.go, util/histogram_options.go,
// logic/recommender.go, model/aggregate_container_state.go; 1.x):
//
//   the sample     the peak of the container's working set in each 24 h
//                  aggregation interval (8 of them: 8 days), each weighted by
//                  the decay 2^(age / 24 h)
//   the histogram  exponential buckets: the first 1e7 bytes wide, each 5%
//                  wider than the last, up to 1e12 bytes
//   the target     the 90th percentile: the end of the bucket the weight's
//                  90% falls in, plus a 15% safety margin, at least 250 MiB
//                  a pod
//
// cgmem's runs are minutes, not days: each run's peak is one interval's
// peak, all of equal weight (the decay only shifts weight between days).
#pragma once

#include <cstdint>
#include <span>

namespace cgmem::advise::vpa {

inline constexpr double kFirstBucket = 1e7, kBucketGrowth = 1.05, kMaxValue = 1e12;
inline constexpr double kTargetPercentile = 0.9, kSafetyMargin = 0.15;
inline constexpr uint64_t kMinimumBytes = 250ull << 20;

struct Recommendation {
  uint64_t p90_bytes = 0;     // the histogram's 90th percentile (a bucket's end)
  uint64_t target_bytes = 0;  // p90 + 15%, at least 250 MiB
  bool at_minimum = false;    // the 250 MiB floor decided it
  size_t peaks = 0;           // samples (one peak per interval)
};

// The bucket a value falls in, and where bucket n starts.
size_t bucket_of(double bytes);
double bucket_start(size_t n);

// The rule over interval peaks of equal weight; peaks must not be empty.
Recommendation recommend(std::span<const uint64_t> peaks);

}  // namespace cgmem::advise::vpa
