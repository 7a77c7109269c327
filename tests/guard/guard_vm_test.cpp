// Checks on what tests/guard/vm/scenarios.sh brought back from one boot of
// the real 6.12 kernel (the CTest fixture guard_vm_boot): the decisions of an
// acting guard and of a dry-run one, the runs they acted on, and the files
// the dry run must not have changed.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/vm_out.h"

namespace {

using nlohmann::json;

std::string slurp(const std::string& path) { return cgmem::testing::slurp_out(CGMEM_GUARD_VM_OUT, path); }
std::vector<json> lines(const std::string& path) { return cgmem::testing::json_lines_of(slurp(path)); }

std::vector<json> decisions(const std::vector<json>& all, const std::string& cgroup) {
  std::vector<json> out;
  for (const auto& d : all)
    if (d["cgroup"] == cgroup) out.push_back(d);
  return out;
}

double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

class GuardVm : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(slurp("guard.status"), "0\n") << slurp("guard.err");
    acting_ = lines("guard.jsonl");
  }
  std::vector<json> acting_;
};

TEST_F(GuardVm, SigtermStopsItCleanly) {
  EXPECT_NE(slurp("guard.err").find("cgmem guard: stopped by a signal"), std::string::npos) << slurp("guard.err");
}

TEST_F(GuardVm, TheLeakIsKilledWithinTPlusOneIntervalAndTheLineSaysWhy) {
  auto d = decisions(acting_, "/leak");
  ASSERT_FALSE(d.empty()) << slurp("guard.jsonl");
  const json& kill = d.front();
  std::cout << "leak: " << kill.dump() << "\n";
  EXPECT_EQ(kill["decision"], "kill");
  EXPECT_EQ(kill["rule"], "leak");
  EXPECT_TRUE(kill["acted"].get<bool>());
  EXPECT_EQ(kill["result"].get<std::string>().rfind("killed", 0), 0u) << kill["result"];
  double throttled = kill["condition"]["throttled_s"];
  EXPECT_GE(throttled, 10.0);
  EXPECT_LE(throttled, 10.0 + 1.0 + 0.5);  // T, one interval, a scan's lateness on a busy emulated CPU
  EXPECT_NE(kill["why"].get<std::string>().find("throttled for"), std::string::npos);
  EXPECT_EQ(kill["row"]["state"], "throttled");
  EXPECT_GT(kill["fresh"]["current"].get<uint64_t>(), 14745600u);  // re-read: still over memory.high
  auto outcome = json::parse(slurp("leak/outcome.json"), nullptr, false);
  ASSERT_TRUE(outcome.is_object()) << slurp("leak.err");
  EXPECT_EQ(outcome["signal"], 9) << outcome.dump();
}

TEST_F(GuardVm, AProgramThatFitsIsLeftAloneByTheLeakRule) {
  // It allocates its last chunks over memory.high at one page per sleep
  // (its growth for 40 s) and is then flat; the rise counts from memory.high,
  // so it stays under the rule's 2M (docs/measurements/guard.md).
  EXPECT_TRUE(decisions(acting_, "/fit").empty()) << decisions(acting_, "/fit").front().dump();
  // It was throttled all along: its operations slept.
  std::vector<double> lat;
  for (const auto& op : lines("fit/ops.jsonl"))
    if (op["high_after"].get<uint64_t>() > op["high_before"].get<uint64_t>())
      lat.push_back(op["lat_ns"].get<double>() / 1e6);
  std::cout << "fit: " << lat.size() << " ops over memory.high, median " << median(lat) << " ms\n";
  EXPECT_GT(median(lat), 20.0);
  // It rose less than the rule's min_rise (2M) over memory.high (12M).
  uint64_t peak = 0, last = 0;
  for (const auto& sample : lines("fit/samples.jsonl"))
    peak = std::max(peak, last = sample["memory_current"].get<uint64_t>());
  std::cout << "fit: memory.current peak " << peak << ", last " << last << "\n";
  EXPECT_LT(peak, 14u << 20);
  // Alive until the script stopped its driver at the end (which then kills it).
  auto outcome = json::parse(slurp("fit/outcome.json"), nullptr, false);
  EXPECT_EQ(outcome["status"], "interrupted") << outcome.dump();
}

TEST_F(GuardVm, RaiseHighRelievesTheServiceMeasured) {
  auto d = decisions(acting_, "/svc");
  std::vector<double> raised_at;
  for (const auto& x : d) {
    std::cout << "svc: " << x["why"] << " -> " << x["result"] << "\n";
    if (x["decision"] == "raise-high" && x["acted"].get<bool>()) raised_at.push_back(x["t_mono"].get<double>());
  }
  ASSERT_FALSE(raised_at.empty()) << slurp("guard.jsonl");
  std::vector<double> before, after;
  for (const auto& op : lines("svc/ops.jsonl")) {
    double t = op["t_ns"].get<double>() / 1e9, ms = op["lat_ns"].get<double>() / 1e6;
    bool slept = op["high_after"].get<uint64_t>() > op["high_before"].get<uint64_t>();
    if (t < raised_at.front() && slept) before.push_back(ms);
    if (t > raised_at.back() + 1 && op["phase"] == "churn") after.push_back(ms);
  }
  std::cout << "svc: throttled ops before the first raise " << before.size() << ", median " << median(before)
            << " ms; churn ops after the last raise " << after.size() << ", median " << median(after) << " ms\n";
  RecordProperty("svc_before_ms", std::to_string(median(before)));
  RecordProperty("svc_after_ms", std::to_string(median(after)));
  ASSERT_GE(before.size(), 1u);
  ASSERT_GE(after.size(), 20u);
  EXPECT_LT(median(after) * 5, median(before));
}

TEST_F(GuardVm, TheOwnCodeThrashIsCaught) {
  auto d = decisions(acting_, "/thrash");
  ASSERT_FALSE(d.empty()) << slurp("guard.jsonl");
  std::cout << "thrash: " << d.front().dump() << "\n";
  EXPECT_EQ(d.front()["rule"], "thrash");
  EXPECT_EQ(d.front()["decision"], "kill");
  EXPECT_TRUE(d.front()["acted"].get<bool>());
  EXPECT_GE(d.front()["condition"]["thrash_s"].get<double>(), 5.0);
}

TEST_F(GuardVm, NothingOutsideTheRootIsTouchedEvenWhenItMatches) {
  for (const auto& d : acting_) EXPECT_EQ(d["cgroup"].get<std::string>().find("victim"), std::string::npos) << d.dump();
}

TEST(GuardVmDryRun, DecidesButChangesNothing) {
  ASSERT_EQ(slurp("dry.status"), "0\n") << slurp("dry.err");
  auto d = decisions(lines("dry.jsonl"), "/victim");
  ASSERT_FALSE(d.empty()) << slurp("dry.jsonl") << slurp("dry.err");
  for (const auto& x : d) {
    EXPECT_EQ(x["decision"], "kill");
    EXPECT_TRUE(x["dry_run"].get<bool>());
    EXPECT_FALSE(x["acted"].get<bool>());
    EXPECT_EQ(x["result"], "dry run: would kill (--act to act)");
  }
  EXPECT_FALSE(slurp("dry-before.txt").empty());
  EXPECT_EQ(slurp("dry-before.txt"), slurp("dry-after.txt"));
  auto outcome = json::parse(slurp("victim/outcome.json"), nullptr, false);
  EXPECT_EQ(outcome["status"], "interrupted") << outcome.dump();
}

}  // namespace
