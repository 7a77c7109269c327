// The RFC's memory.high.throttle on the kernel cgmem built with its patches
// (hz1000-throttle-slots-trace, at its default of one stock slot), read from what
// throttle/run.sh wrote in the guest. The boot is the CTest test
// kernel_throttle_vm_boot; these checks never boot.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "model/predict.h"
#include "support/vm_out.h"

namespace {

std::string read(const std::string& relative) { return cgmem::testing::slurp_out(CGMEM_KERNEL_VM_OUT, relative); }

std::string trimmed(const std::string& relative) {
  std::string text = read(relative);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

TEST(KernelThrottle, TheGuestRanThePatchedKernel) {
  auto record = nlohmann::json::parse(read("../throttle.vm.json"), nullptr, false);
  ASSERT_TRUE(record.is_object()) << "no record: did the boot fixture run?";
  EXPECT_EQ(record["kernel"]["name"], "hz1000-throttle-slots-trace");
  EXPECT_EQ(record["kernel"]["hz"], 1000);
  // The sublevel is Debian's current linux-source-6.12 (6.12.117, then 6.12.118).
  std::string release = record["guest"].value("kernel_release", "");
  EXPECT_TRUE(release.starts_with("6.12.") && release.ends_with("-cgmem-hz1000-throttle-slots-trace")) << release;
  EXPECT_EQ(record["exit_code"], 0);
}

TEST(KernelThrottle, FileExistsOnNonRootCgroupsOnly) {
  EXPECT_EQ(trimmed("files/on_root"), "no");
  EXPECT_EQ(trimmed("files/on_parent"), "yes");
  EXPECT_EQ(trimmed("files/default"), "0");
}

TEST(KernelThrottle, AcceptsZeroToThirtyTwoAndRejectsTheRest) {
  EXPECT_EQ(read("files/writes"),
            "[0] ok 0\n"
            "[1] ok 1\n"
            "[16] ok 16\n"
            "[32] ok 32\n"
            "[33] rejected 32\n"
            "[-1] rejected 32\n"
            "[abc] rejected 32\n"
            "[1.5] rejected 32\n"
            "[] rejected 32\n");
}

struct Op {
  uint64_t current_after = 0;
  double seconds = 0;
};

std::vector<Op> ops(int shift) {
  std::vector<Op> out;
  for (const auto& j : cgmem::testing::json_lines_of(read("shift" + std::to_string(shift) + "/ops.jsonl")))
    if (j.is_object()) out.push_back({j.value("current_after", uint64_t{0}), j.value("lat_ns", uint64_t{0}) / 1e9});
  return out;
}

// The throttled ops (the model says they sleep between 100 ms and the 2 s
// cap at shift 0, at either run's usage) of both runs, op by op: the same
// growth, so nearly the same usage. Nearly: an op of the shift 1 run may end
// up to a chunk higher, and at 16 MiB a chunk more overage is a third more
// penalty, so the halving is judged against the shift 0 model at the shift 1
// run's own usage. The kernel's own charges (page tables, slab) come on top:
// a CI run of 2026-12-02 had two ops a chunk and 3 pages apart.
TEST(KernelThrottle, ShiftOneHalvesTheSleepAtTheSameOverage) {
  ASSERT_EQ(trimmed("shift0.status"), "0") << read("shift0.out");
  ASSERT_EQ(trimmed("shift1.status"), "0") << read("shift1.out");
  auto s0 = ops(0), s1 = ops(1);
  ASSERT_GE(s0.size(), 70u);
  ASSERT_EQ(s0.size(), s1.size());
  const uint64_t high = 16u << 20, chunk = 256u << 10, kernel_slack = 64u << 10;
  cgmem::model::Throttle t0{.kernel = {.hz = 1000}, .high = high, .shift = 0};
  cgmem::model::Throttle t1 = t0;
  t1.shift = 1;
  auto throttled = [](double predicted) { return predicted >= 0.1 && predicted < 2.0; };
  double measured0 = 0, measured1 = 0, model0 = 0, model1 = 0, model0_at_usage1 = 0;
  std::vector<double> ratios;
  for (size_t i = 0; i < s0.size(); ++i) {
    // Usage after the charge, where the kernel evaluates the penalty.
    uint64_t usage0 = s0[i].current_after, usage1 = s1[i].current_after;
    double predicted0 = cgmem::model::op_seconds(t0, usage0, chunk);
    double predicted0_at_usage1 = cgmem::model::op_seconds(t0, usage1, chunk);
    if (!throttled(predicted0) || !throttled(predicted0_at_usage1)) continue;
    ASSERT_LT(std::max(usage0, usage1) - std::min(usage0, usage1), chunk + kernel_slack) << "op " << i;
    measured0 += s0[i].seconds;
    measured1 += s1[i].seconds;
    model0 += predicted0;
    model1 += cgmem::model::op_seconds(t1, usage1, chunk);
    model0_at_usage1 += predicted0_at_usage1;
    ratios.push_back(s1[i].seconds / s0[i].seconds);
  }
  ASSERT_GE(ratios.size(), 5u) << "too few throttled ops to compare";
  std::ranges::sort(ratios);
  double median = ratios[ratios.size() / 2];
  // Each run against the shift 0 model at its own usage: shift 1 is half.
  double halving = (measured1 / model0_at_usage1) / (measured0 / model0);
  std::printf("%zu throttled ops: shift 0 %.3f s (model %.3f s), shift 1 %.3f s (model %.3f s, %.3f s at shift 0), "
              "median ratio %.3f, halving %.3f\n",
              ratios.size(), measured0, model0, measured1, model1, model0_at_usage1, median, halving);
  // The halving is judged on the sums: op by op, a 64-page batch pays one or
  // two sleeps by where its charges fall, so the median of the few ops in
  // range moves by a whole sleep (0.48 in one boot, 0.64 in another, with
  // the sums at 0.49 in both). Time awake does not halve, and under CI's
  // load it grew: eight quiet boots gave 0.506 to 0.521, a CI run 0.564
  // (shift 1 at 1.17 times its model, shift 0 at 1.04). 0.15 still tells a
  // halving from no effect (1) or a quartering (0.25).
  EXPECT_NEAR(halving, 0.5, 0.15);
  EXPECT_NEAR(measured1 / measured0, model1 / model0, 0.15);
  // Each shift against the model: sleeps are at least the penalty, and the
  // timer wheel (at most 12.5% at HZ=1000) and emulation add a little.
  EXPECT_GT(measured0 / model0, 0.9) << measured0 << " s measured, " << model0 << " s predicted";
  EXPECT_LT(measured0 / model0, 1.5) << measured0 << " s measured, " << model0 << " s predicted";
  EXPECT_GT(measured1 / model1, 0.9) << measured1 << " s measured, " << model1 << " s predicted";
  EXPECT_LT(measured1 / model1, 1.5) << measured1 << " s measured, " << model1 << " s predicted";
}

// The guard's emulate-shift S against this kernel at memory.high.throttle S
// (bench/guard_vs_kernel_guest.sh in the guest; docs/measurements/guard.md
// has the benchmark's five runs). kS: the kernel's own OOM kill; gS: the
// guard's kill, at throttle 0. The bounds are wider than the 20% the median
// of five runs holds to: single runs at S = 2 gave 0.88 to 1.21
// (eight runs) and at S = 4, whose kernel kills in under a second and the
// guard decides once per 100 ms, 1.02 to 1.22 (five runs).
struct Outcome {
  std::string status;
  int signal = 0;
  double seconds = 0;
};

Outcome outcome(const std::string& run) {
  auto j = nlohmann::json::parse(read("guard-vs-kernel/" + run + "/outcome.json"), nullptr, false);
  if (!j.is_object()) return {};
  return {j.value("status", ""), j["signal"].is_number() ? j["signal"].get<int>() : 0, j.value("duration_s", 0.0)};
}

void expect_emulation_near_the_kernel(int shift, double low, double high) {
  const std::string s = std::to_string(shift);
  Outcome kernel = outcome("k" + s), guard = outcome("g" + s);
  EXPECT_EQ(kernel.status, "oom_killed") << read("guard-vs-kernel.log");
  EXPECT_EQ(guard.signal, 9) << read("guard-vs-kernel.log");
  EXPECT_NE(guard.status, "oom_killed") << "the kernel killed g" << s << " before the guard did";
  nlohmann::json kill;
  for (const auto& j : cgmem::testing::json_lines_of(read("guard-vs-kernel/g" + s + ".guard.jsonl")))
    if (j.is_object() && j.value("decision", "") == "kill") kill = j;
  ASSERT_TRUE(kill.is_object()) << "no kill line: " << read("guard-vs-kernel/g" + s + ".guard.err");
  EXPECT_EQ(kill["rule"], "g" + s);
  EXPECT_TRUE(kill["acted"].get<bool>());
  EXPECT_NE(kill["why"].get<std::string>().find("memory.high.throttle = " + s), std::string::npos) << kill["why"];
  double ratio = guard.seconds / kernel.seconds;
  std::printf("S=%d: patched kernel %.1f s, guard %.1f s, guard / kernel %.2f\n", shift, kernel.seconds,
              guard.seconds, ratio);
  EXPECT_GE(ratio, low);
  EXPECT_LE(ratio, high);
}

TEST(KernelGuard, EmulateShiftTwoKillsAboutWhenTheKernelDoes) { expect_emulation_near_the_kernel(2, 0.6, 1.6); }

TEST(KernelGuard, EmulateShiftFourKillsAboutWhenTheKernelDoes) { expect_emulation_near_the_kernel(4, 0.5, 2.0); }

}  // namespace
