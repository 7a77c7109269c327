// Checks on what tests/advise/vm/scenarios.sh brought back from one boot:
// each variant of the workload run without limits, advised, and run again
// under the advice by `cgmem advise --verify`. CGMEM_ADVISE_VM_OUT is the
// boot's directory.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <iostream>

#include "support/vm_out.h"

namespace {

using nlohmann::json;

std::string slurp(const std::string& path) { return cgmem::testing::slurp_out(CGMEM_ADVISE_VM_OUT, path); }

json advice(const std::string& name) {
  json j = json::parse(slurp(name + ".json"), nullptr, false);
  EXPECT_TRUE(j.is_object()) << name << ": " << slurp(name + ".err");
  return j.is_object() ? j : json::object();
}

const json& check(const json& advice, const std::string& what) {
  static const json none;
  for (const json& c : advice["verify"]["checks"])
    if (c["what"] == what) return c;
  ADD_FAILURE() << "no '" << what << "' check in " << advice["verify"].dump();
  return none;
}

// What fits is not killed and does not stall under advise's limits.
void expect_fits_and_holds(const std::string& name) {
  SCOPED_TRACE(name);
  json a = advice(name);
  EXPECT_EQ(slurp(name + ".status"), "0\n") << slurp(name + ".err");
  EXPECT_EQ(a["predictions"][0]["verdict"]["verdict"], "fits");
  EXPECT_TRUE(a["memory_high_bytes"].is_number()) << a["memory_high_reason"];
  EXPECT_EQ(a["verify"]["holds"], true) << a["verify"].dump();
  EXPECT_NE(a["verify"]["status"], "oom_killed");
  EXPECT_EQ(check(a, "killed")["holds"], true);
  EXPECT_EQ(check(a, "stalled share")["holds"], true) << check(a, "stalled share").dump();
}

TEST(AdviseVm, AProgramThatFitsIsNeitherKilledNorStalled) { expect_fits_and_holds("fit"); }
TEST(AdviseVm, WithMapPopulateToo) { expect_fits_and_holds("populate"); }
TEST(AdviseVm, WithFourProcessesToo) { expect_fits_and_holds("procs"); }
// 256 MiB: the VPA rule is off its floor, its target the P90 bucket's end
// + 15%, beside advise's memory.max at + 25%.
TEST(AdviseVm, ALargeProgramFitsAndTheVpaRuleIsOffItsFloor) {
  expect_fits_and_holds("large");
  json a = advice("large");
  EXPECT_EQ(a["vpa"]["at_minimum"], false);
  EXPECT_GT(a["vpa"]["target_bytes"].get<uint64_t>(), a["working_set_bytes"].get<uint64_t>());
  std::cout << "large: working set " << a["working_set_bytes"] << ", memory.max " << a["memory_max_bytes"]
            << ", memory.high " << a["memory_high_bytes"] << ", VPA target " << a["vpa"]["target_bytes"] << "\n";
}

TEST(AdviseVm, WithItsPageCacheCountedThePageCacheProgramFits) { expect_fits_and_holds("cache-all"); }

// Without --page-cache the limits leave the inactive page cache out: advise
// says so, does not bound the stall, and the program is not killed.
TEST(AdviseVm, PageCacheOutsideTheWorkingSetIsSaidNotBounded) {
  json a = advice("cache");
  EXPECT_EQ(slurp("cache.status"), "0\n") << slurp("cache.err");
  EXPECT_GT(a["peak_current_bytes"].get<uint64_t>(), 4 * a["working_set_bytes"].get<uint64_t>());
  EXPECT_NE(a["notes"].dump().find("--page-cache"), std::string::npos) << a["notes"].dump();
  EXPECT_EQ(check(a, "killed")["holds"], true);
  EXPECT_TRUE(check(a, "stalled share")["holds"].is_null());
}

// --probe: memory.high stepped down on the page-cache program until memory
// PSI rose finds the cache it reads again (most of its 32 MiB file), where
// usage alone gave about a megabyte; under limits from it, it fits and does
// not stall.
TEST(AdviseVm, TheProbeFindsThePageCacheTheProgramNeeds) {
  expect_fits_and_holds("cache-probe");
  json a = advice("cache-probe");
  const json& p = a["probe"];
  EXPECT_EQ(p["converged"], true) << p.dump();
  ASSERT_TRUE(p["working_set_bytes"].is_number()) << p.dump();
  EXPECT_GE(p["working_set_bytes"].get<uint64_t>(), 24u << 20) << p.dump();
  EXPECT_EQ(a["working_set_bytes"], p["working_set_bytes"]);
  bool pressure = false;
  for (const json& s : p["steps"]) pressure = pressure || s["pressure"].get<bool>();
  EXPECT_TRUE(pressure) << "the probe went low enough to see pressure: " << p.dump();
  EXPECT_LT(advice("cache")["working_set_bytes"].get<uint64_t>(), 4u << 20) << "usage alone";
}

// A run still growing at its cap: killed under the limits, within the
// per-page bound advise gave (plus reclaim's share).
TEST(AdviseVm, ALeakIsKilledWithinTheTimeAdviseStates) {
  json a = advice("leak");
  EXPECT_EQ(slurp("leak.status"), "0\n") << slurp("leak.err");
  EXPECT_EQ(a["inputs"][0]["growing"], true);
  EXPECT_EQ(a["leak"]["basis"], "growth");
  EXPECT_EQ(a["verify"]["status"], "oom_killed");
  EXPECT_EQ(check(a, "killed")["holds"], true);
  EXPECT_EQ(check(a, "time to kill")["holds"], true) << check(a, "time to kill").dump();
}

// A running workload's cgroup watched on cgroupfs: its working set, from
// the live files.
TEST(AdviseVm, ALiveCgroupIsAdvisedFromWhatItHolds) {
  EXPECT_EQ(slurp("live.status"), "0\n") << slurp("live.err");
  json a = advice("live");
  EXPECT_EQ(a["inputs"][0]["dir"], "/sys/fs/cgroup/cgmem/live");
  EXPECT_GE(a["inputs"][0]["samples"].get<int>(), 10);
  uint64_t ws = a["working_set_bytes"].get<uint64_t>();
  EXPECT_GE(ws, 24u << 20) << "it holds 24 MiB";
  EXPECT_LE(ws, 28u << 20);
  EXPECT_EQ(a["predictions"][0]["verdict"]["verdict"], "fits");
}

}  // namespace
