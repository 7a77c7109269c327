// Checks on what tests/kernel/versions/run.sh brought back from one boot of
// a kernel other than Debian's 6.12: Debian's 6.1, and cgmem's patched 6.12
// booted with memcontrol.stock_slots=7 (Linux 6.16's per-CPU charge stock).
// CGMEM_VERSIONS_OUT is the boot's directory, CGMEM_RELEASE_PREFIX and
// CGMEM_RELEASE_SUFFIX what the kernel release must start and end with
// (the sublevel between is Debian's current linux-source-6.12, which moves),
// CGMEM_STOCK_SLOTS the slots it runs with.
#include <gtest/gtest.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "support/sleeps_per_op.h"
#include "support/vm_out.h"

namespace {

using nlohmann::json;

std::string slurp(const std::string& path) { return cgmem::testing::slurp_out(CGMEM_VERSIONS_OUT, path); }

struct RunFiles {
  json meta, outcome;
  std::vector<json> ops;
};

RunFiles load(const std::string& name) {
  RunFiles run{json::parse(slurp(name + "/meta.json"), nullptr, false),
          json::parse(slurp(name + "/outcome.json"), nullptr, false),
          cgmem::testing::json_lines_of(slurp(name + "/ops.jsonl"))};
  EXPECT_TRUE(run.outcome.is_object()) << name << ": no outcome.json; stderr: " << slurp(name + ".err");
  EXPECT_TRUE(run.meta.is_object()) << name << ": no meta.json";
  return run;
}

double median_sleeps(const std::string& name) {
  RunFiles run = load(name);
  if (!run.meta.is_object()) return -1;
  double median = cgmem::testing::median_sleeps_per_op(run.meta, run.ops);
  std::cout << name << ": median sleeps per throttled op " << median << "\n";
  ::testing::Test::RecordProperty(name + "_median_sleeps", std::to_string(median));
  return median;
}

TEST(KernelVersionsVm, TheGuestRanTheKernelAskedFor) {
  json host = json::parse(slurp("host.json"), nullptr, false);
  ASSERT_TRUE(host.is_object()) << slurp("host.json");
  std::string release = host.value("kernel", "");
  EXPECT_TRUE(release.starts_with(CGMEM_RELEASE_PREFIX)) << release;
  EXPECT_TRUE(release.ends_with(CGMEM_RELEASE_SUFFIX)) << release;
  std::string cmdline = slurp("cmdline.txt");
  if (CGMEM_STOCK_SLOTS > 1) {
    EXPECT_NE(cmdline.find("memcontrol.stock_slots=" + std::to_string(CGMEM_STOCK_SLOTS)), std::string::npos) << cmdline;
  }
}

// The sampler on the other CPU: one sleep per 64-page batch on every kernel.
TEST(KernelVersionsVm, AloneItSleepsOncePerBatch) {
  double median = median_sleeps("sleeps-default");
  EXPECT_GE(median, 1.0);
  EXPECT_LE(median, 2.0);
}

// One neighbour cgroup charging on the workload's CPU. On Debian's 6.12
// (tests/lab) it drains the workload's pages from the one-slot stock during
// each sleep, so each page sleeps. With 7 slots both stay cached and a batch
// sleeps once. Debian's 6.1 has the same one-slot stock code
// (consume_stock, __refill_stock, drain_stock differ only in READ_ONCE), yet
// there a neighbour at 100 ms, or at 10 ms, left the workload sleeping about
// once per op: high-event rises of 17 to 18 per op, a few of 35 to 239
// (2 to 14 sleeps), never 1088 (64), in three boots on 2026-12-01, where
// 6.12 in the same script gave 1088; in loaded CI runs (the sanitizer half
// beside the guest) the median was 5 on 2026-12-02 and 37 on 2026-12-03.
// What keeps 6.1's stock is not known (docs/kernel.md), and the load moves
// it toward 6.12's per-page regime, so on 6.1 the test pins only that the
// median op does not sleep on every one of its 64 pages. With 7 slots
// nothing evicts the workload's page, and one sleep per batch is exact.
TEST(KernelVersionsVm, OneNeighbourDrainsTheStockOnlyOn612sOneSlot) {
  double median = median_sleeps("sleeps-neighbour");
  EXPECT_GE(median, 1.0);
  if (CGMEM_STOCK_SLOTS == 1)
    EXPECT_LT(median, 64.0) << "6.1 beside one neighbour: every page of the median op slept, as on 6.12";
  else
    EXPECT_LE(median, 2.0);
}

// Eight neighbours and the workload: nine cgroups for 7 slots, so the
// workload's slot is taken back and pages sleep one by one again (on 6.1
// the one slot is not drained by one neighbour: the comment above). A
// per-page op sleeps 64 times, so few throttled ops end within the cap (2
// in 40 s at HZ=1000 on 2026-12-01, both of 64 sleeps): the last one is the
// regime.
TEST(KernelVersionsVm, EightNeighboursCrossSevenSlots) {
  if (CGMEM_STOCK_SLOTS == 1) GTEST_SKIP() << "runs on the 7-slot kernel only";
  RunFiles run = load("sleeps-neighbours8");
  ASSERT_TRUE(run.meta.is_object());
  std::vector<uint64_t> sleeps = cgmem::testing::sleeps_per_throttled_op(run.meta, run.ops);
  ASSERT_FALSE(sleeps.empty()) << "no throttled op";
  std::cout << "sleeps-neighbours8: sleeps per throttled op";
  for (uint64_t n : sleeps) std::cout << " " << n;
  std::cout << "\n";
  ::testing::Test::RecordProperty("sleeps-neighbours8_last_sleeps", std::to_string(sleeps.back()));
  EXPECT_GE(sleeps.back(), 32u);
}

// The kernel's own memory-controller selftest of its source (6.1's on 6.1,
// 6.12's on the patched 6.12): every test passes or is skipped.
TEST(KernelVersionsVm, KernelSelftestPasses) {
  if (!CGMEM_SELFTEST) GTEST_SKIP() << "the kernel's source package was not installed at configure time";
  std::string log = slurp("selftest/log");
  ASSERT_FALSE(log.empty()) << "no selftest/log";
  EXPECT_NE(log.find("test_memcg_sock"), std::string::npos) << log;
  EXPECT_EQ(log.find("not ok"), std::string::npos) << log;
  EXPECT_NE(log.find("test_memcg_oom_group_score_events"), std::string::npos) << log;  // it ran to the end
  std::istringstream first(slurp("selftest/log.1"));
  for (std::string line; std::getline(first, line);)
    if (line.starts_with("not ok")) std::cout << "selftest: the first run failed '" << line << "'; it was run once more\n";
  // A test that forks repeats its line (the child flushes the parent's buffer).
  std::istringstream tap(log);
  std::set<std::string> passed, skipped;
  for (std::string line; std::getline(tap, line);)
    if (line.starts_with("ok ")) (line.find("# SKIP") != std::string::npos ? skipped : passed).insert(line);
  std::cout << "selftest: " << passed.size() << " passed, " << skipped.size() << " skipped\n";
}

}  // namespace
