// The plots' binned series, on ops whose medians are worked out by hand.
#include "report/bins.h"

#include <gtest/gtest.h>

namespace cgmem::report {
namespace {

Op op(uint64_t current, double lat_ms, uint64_t high_rise) {
  return Op{.lat_ns = static_cast<int64_t>(lat_ms * 1e6), .current_after = current, .high_before = 100,
            .high_after = 100 + high_rise};
}

TEST(ReportBins, MediansPerOpSizedBin) {
  report::Run one;
  one.meta.procs = 1;
  // bin 0: 0 B; bin 1: 4096 B; bin 2: 8192 B (4 KiB ops).
  for (Op o : {op(0, 1, 0), op(0, 3, 17), op(4096, 2, 34), op(4096, 4, 20), op(4096, 6, 0), op(8192, 5, 17)})
    one.ops.push_back(o);
  report::Run many;  // several processes: latency only, their rises interleave
  many.meta.procs = 4;
  many.ops.push_back(op(8192, 7, 17));
  const report::Run* runs[] = {&one, &many};
  OpSeries s = bin_ops(runs, 4096);
  ASSERT_EQ(s.latency_ms.size(), 3u);
  EXPECT_DOUBLE_EQ(s.latency_ms[0].mib, 2048 / kMiB);
  EXPECT_DOUBLE_EQ(s.latency_ms[0].median, 2);
  EXPECT_DOUBLE_EQ(s.latency_ms[1].mib, 6144 / kMiB);
  EXPECT_DOUBLE_EQ(s.latency_ms[1].median, 4);
  EXPECT_DOUBLE_EQ(s.latency_ms[2].median, 6);  // 5 and 7
  // Sleeps: rises of 0, 17, 34, 0, 17; the rise of 20 is no whole number.
  ASSERT_EQ(s.sleeps.size(), 3u);
  EXPECT_DOUBLE_EQ(s.sleeps[0].median, 0.5);
  EXPECT_DOUBLE_EQ(s.sleeps[1].median, 1);
  EXPECT_DOUBLE_EQ(s.sleeps[2].median, 1);
}

TEST(ReportBins, WideRangesAreCutToAtMostMaxBins) {
  report::Run r;
  r.meta.procs = 1;
  for (uint64_t b = 0; b <= (100ull << 20); b += 4096) r.ops.push_back(op(b, 1, 0));
  const report::Run* runs[] = {&r};
  OpSeries s = bin_ops(runs, 4096);
  EXPECT_LE(s.latency_ms.size(), kMaxBins);
  EXPECT_GT(s.latency_ms.size(), kMaxBins / 2);
  EXPECT_LT(s.latency_ms.front().mib, s.latency_ms.back().mib);
}

TEST(ReportBins, NoOpsNoSeries) {
  report::Run r;
  const report::Run* runs[] = {&r};
  OpSeries s = bin_ops(runs, 4096);
  EXPECT_TRUE(s.latency_ms.empty());
  EXPECT_TRUE(s.sleeps.empty());
}

TEST(ReportBins, ACounterThatWentBackIsNoSleep) {
  report::Run r;
  r.meta.procs = 1;
  r.ops.push_back(Op{.lat_ns = 1000000, .current_after = 0, .high_before = 50, .high_after = 16});
  const report::Run* runs[] = {&r};
  OpSeries s = bin_ops(runs, 4096);
  EXPECT_EQ(s.latency_ms.size(), 1u);
  EXPECT_TRUE(s.sleeps.empty());
}

}  // namespace
}  // namespace cgmem::report
