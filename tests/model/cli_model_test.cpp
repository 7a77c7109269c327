// `cgmem model` through the real binary: JSON values and error messages.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/run_cgmem.h"

namespace {

using nlohmann::json;

using cgmem::testing::SplitOutput;

SplitOutput run(const std::string& args) { return cgmem::testing::run_cgmem_split(args); }

json run_json(const std::string& args) {
  SplitOutput o = run(args + " --json");
  EXPECT_EQ(o.code, 0) << args << "\n" << o.err;
  return json::parse(o.out, nullptr, false);
}

TEST(CliModel, PenaltyAt105MOf100M) {
  json j = run_json("model penalty --usage 105M --high 100M");
  EXPECT_EQ(j["penalty_jiffies"], 159);
  EXPECT_EQ(j["penalty_ms"], 159.0);
  EXPECT_EQ(j["clamped"], false);
  EXPECT_EQ(j["sleeps"], true);
  EXPECT_EQ(j["hz"], 1000);
  EXPECT_EQ(j["wheel"]["level"], 1);  // 159 jiffies: level 1, 8 ms steps
  EXPECT_EQ(j["wheel"]["typical_ms"], 160.0);
  EXPECT_EQ(j["wheel"]["max_ms"], 167.0);
}

TEST(CliModel, PenaltyAtTheCapOnHz250) {
  json j = run_json("model penalty --usage 300M --high 241590272 --hz 250");
  EXPECT_EQ(j["penalty_jiffies"], 500);
  EXPECT_EQ(j["penalty_ms"], 2000.0);
  EXPECT_EQ(j["clamped"], true);
  EXPECT_EQ(j["unclamped_jiffies"], 1460);
  EXPECT_EQ(j["wheel"]["min_ms"], 2000.0);
  EXPECT_EQ(j["wheel"]["typical_ms"], 2016.0);
  EXPECT_EQ(j["wheel"]["max_ms"], 2032.0);
}

TEST(CliModel, PenaltyBelowTheNoSleepLine) {
  json j = run_json("model penalty --usage 101M --high 100M");
  EXPECT_EQ(j["penalty_jiffies"], 6);
  EXPECT_EQ(j["sleeps"], false);
  EXPECT_TRUE(j["wheel"].is_null());
}

TEST(CliModel, PenaltyWithShiftPagesAndSwap) {
  EXPECT_EQ(run_json("model penalty --usage 110M --high 100M --shift 2")["penalty_jiffies"], 159);
  EXPECT_EQ(run_json("model penalty --usage 110M --high 100M --pages 1")["penalty_jiffies"], 9);
  json j = run_json("model penalty --usage 110M --high 100M --swap-usage 110M --swap-high 100M");
  EXPECT_EQ(j["penalty_jiffies"], 1278);
}

// The study's anon-fit case: a 256 KiB operation at 239.2 MiB, 0.257 ms
// without the limit; measured 191.8 ms on its own CPU, 6,216 ms next to the
// sampler (one sleep per page).
TEST(CliModel, PenaltyWithTheCostOfAnOperation) {
  json j = run_json("model penalty --usage 239.2M --high 241590272 --op 256K --unthrottled-ms 0.257");
  EXPECT_EQ(j["penalty_jiffies"], 93);
  EXPECT_EQ(j["op"]["bytes"], 262144);
  EXPECT_DOUBLE_EQ(j["op"]["per_batch"]["seconds"].get<double>(), 0.093);
  EXPECT_DOUBLE_EQ(j["op"]["per_page"]["seconds"].get<double>(), 64 * 0.093);
  EXPECT_NEAR(j["op"]["per_page"]["slowdown"].get<double>(), 1 + 5.952 / 0.000257, 1e-6);
}

TEST(CliModel, GrowGivesBothBoundsWithoutK) {
  json j = run_json("model grow --from 233.4MiB --to 256M --high 241590272");
  EXPECT_NEAR(j["per_batch"]["seconds"].get<double>(), 27.041, 0.001);
  EXPECT_NEAR(j["per_page"]["seconds"].get<double>(), 1720.258, 0.001);
  EXPECT_EQ(j["per_page"]["sleeps"], 5780);
  EXPECT_EQ(j["seconds"], j["per_batch"]["seconds"]);
  EXPECT_EQ(j["throttled_from"], 244760576);
}

TEST(CliModel, GrowAtKAndProcs) {
  json j = run_json("model grow --from 0 --to 256M --high 241590272 --sleeps-per-batch 64 --procs 4");
  EXPECT_NEAR(j["seconds"].get<double>(), 1720.258 / 4, 0.001);
  EXPECT_FALSE(j.contains("per_page"));
  EXPECT_NEAR(j["seconds_wheel"].get<double>(), 1780.455 / 4, 0.001);
}

TEST(CliModel, TableOverShiftUsageAndK) {
  json j = run_json("model table --high 241590272 --max 256M");
  ASSERT_EQ(j["by_shift"].size(), 16u);
  EXPECT_NEAR(j["by_shift"][0]["per_page_seconds"].get<double>(), 1720.258, 0.001);
  EXPECT_NEAR(j["by_shift"][1]["per_page_seconds"].get<double>(), 856.3, 0.1);
  EXPECT_EQ(j["by_shift"][15]["per_page_seconds"], 0.0);
  EXPECT_EQ(j["sleep_start"], 244760576);
  EXPECT_EQ(j["cap_start"], 284299264);
  ASSERT_EQ(j["by_k"].size(), 7u);
  EXPECT_EQ(j["by_k"][6]["sleeps_per_batch"], 64.0);
  EXPECT_EQ(j["by_k"][0]["sleeps"], 91);
  bool saw_start = false;
  for (const auto& row : j["by_usage"]) saw_start |= row["usage"] == 244760576 && row["sleeps"] == true;
  EXPECT_TRUE(saw_start);
}

TEST(CliModel, ReadablePenalty) {
  SplitOutput o = run("model penalty --usage 242M --high 241590272");
  EXPECT_EQ(o.code, 0);
  EXPECT_EQ(o.out,
            "usage 242MiB against memory.high 230.4MiB: 5.04% over\n"
            "penalty: 162 jiffies = 162 ms at HZ=1000 for 64 pages, shift 0\n"
            "sleeps: yes, 168 ms typical on the timer wheel (more than 162, at most 170 ms; steps of 8 ms)\n");
  SplitOutput capped = run("model penalty --usage 1G --high 1M");
  EXPECT_NE(capped.out.find("(clamped from 2^64 or more)"), std::string::npos);
  EXPECT_NE(capped.out.find("note: the kernel's 64-bit arithmetic wraps at this overage; it computes 2000 jiffies"),
            std::string::npos);
}

TEST(CliModel, ReadableOutput) {
  SplitOutput o = run("model grow --from 233.4MiB --to 256M --high 241590272");
  EXPECT_EQ(o.code, 0);
  EXPECT_EQ(o.out,
            "from 233.4MiB to 256MiB with memory.high 230.4MiB (HZ=1000, shift 0, 1 process):\n"
            "  sleeping starts at 233.4MiB\n"
            "  one sleep per 64-page batch: 27.0 s (91 sleeps)\n"
            "  one sleep per page:          1720.3 s (5780 sleeps)\n");
}

void expect_error(const std::string& args, const std::string& message, bool with_usage_hint = true) {
  SplitOutput o = run(args);
  EXPECT_EQ(o.code, 2) << args;
  EXPECT_EQ(o.out, "") << args;
  std::string expected = "cgmem: error: " + message + "\n";
  if (with_usage_hint) expected += "run 'cgmem model --help' for usage\n";
  EXPECT_EQ(o.err, expected) << args;
}

TEST(CliModel, BadInputErrorsWordForWord) {
  const std::string hint = " (use bytes, or K/M/G/T (base 1024), e.g. 256M, 230.4MiB, 241590272)";
  expect_error("model", "A subcommand is required");
  expect_error("model bogus", "unknown model subcommand 'bogus'; use penalty, grow or table", false);
  expect_error("model penalty --high 1M", "--usage is required");
  expect_error("model penalty --usage 1X --high 1M", "--usage: invalid size '1X': unknown unit 'X'" + hint);
  expect_error("model penalty --usage max --high 1M",
               "--usage: invalid size 'max': 'max' is not allowed here" + hint);
  expect_error("model penalty --usage 1M --high 1M --shift 33", "--shift: 33 is out of range (0 to 32)");
  expect_error("model penalty --usage 1M --high 1M --hz 0", "--hz: 0 is out of range (1 to 100000)");
  // CLI11 alone would read -1 as 2^64 - 1, 010 as octal and "" as 0; cgmem's
  // number flags refuse them.
  expect_error("model penalty --usage 1M --high 1M --hz -250", "--hz: '-250' is not a whole number");
  expect_error("model penalty --usage 1M --high 1M --hz ''", "--hz: '' is not a whole number");
  expect_error("model penalty --usage 1M --high 1M --shift 0x10", "--shift: '0x10' is not a whole number");
  expect_error("model penalty --usage 1M --high 1M --hz 18446744073709551616",
               "--hz: 18446744073709551616 is out of range (1 to 100000)");
  expect_error("model penalty --usage 1M --high 1M --swap-usage 1M", "--swap-usage requires --swap-high");
  expect_error("model penalty --usage 1M --high 1M --unthrottled-ms 1", "--unthrottled-ms requires --op");
  expect_error("model penalty --usage 1M --high 1M --op 4K --unthrottled-ms 0",
               "--unthrottled-ms: '0' is not a latency in ms above 0");
  expect_error("model grow --from 2M --to 1M --high 1M", "nothing to grow: --to 1M is not above --from 2M", false);
  expect_error("model grow --from 1M --to 2M --high 1M --sleeps-per-batch 0.5",
               "--sleeps-per-batch: '0.5' is not a number from 1 (one sleep per batch) to 64 (one per page)");
  expect_error("model table --high 2M --max 1M",
               "--max 1M is not above --high 2M: the table spans memory.high to memory.max", false);
  expect_error("model table --high 1M --max 2M --from 3M", "--from 3M is not below --max 2M", false);
}

}  // namespace

namespace {

// The rules by kernel version: the study's case beside one neighbour is
// one sleep per page on 6.12 (1720.3 s) and per batch on 6.16 (27.0 s).
TEST(CliModelKernel, GrowBesideNeighboursByTheStockRule) {
  const std::string study = "model grow --from 233.4MiB --to 256M --high 241590272";
  json on612 = run_json(study + " --kernel-version 6.12.117+deb12-cloud-amd64 --neighbours 1");
  EXPECT_EQ(on612["regime"], "per_page");
  EXPECT_EQ(on612["sleeps_per_batch"], 64.0);
  EXPECT_NEAR(on612["seconds"].get<double>(), 1720.258, 0.001);
  EXPECT_EQ(on612["kernel"]["version"], "6.12");
  EXPECT_EQ(on612["kernel"]["source"], "flag");
  EXPECT_EQ(on612["kernel"]["stock_slots"], 1);
  EXPECT_EQ(on612["kernel"]["per_page_rule"], "per page when any other cgroup charges on this CPU");
  EXPECT_NEAR(on612["per_page"]["seconds"].get<double>(), 1720.258, 0.001);  // both bounds stay
  EXPECT_NEAR(on612["per_batch"]["seconds"].get<double>(), 27.041, 0.001);

  json on616 = run_json(study + " --kernel-version 6.16 --neighbours 1");
  EXPECT_EQ(on616["regime"], "per_batch");
  EXPECT_NEAR(on616["seconds"].get<double>(), 27.041, 0.001);
  EXPECT_EQ(on616["kernel"]["stock_slots"], 7);
  EXPECT_EQ(on616["kernel"]["rules"], json({"stock_slots_7", "charge_batch_64", "high_events_per_sleep_17",
                                            "dying_tasks_not_throttled", "nonblocking_limit_write"}));
  EXPECT_EQ(run_json(study + " --kernel-version 6.16 --neighbours 7")["regime"], "per_page");

  json patched = run_json(study + " --kernel-version 6.12 --stock-slots 7 --neighbours 6");
  EXPECT_EQ(patched["regime"], "per_batch");
  EXPECT_EQ(patched["kernel"]["stock_slots_source"], "flag");
  EXPECT_EQ(patched["kernel"]["per_page_rule"], "per page needs 7 or more other cgroups charging on this CPU");
}

TEST(CliModelKernel, ReadableGrowBesideANeighbour) {
  SplitOutput o = run("model grow --from 233.4MiB --to 256M --high 241590272 --kernel-version 6.18 --neighbours 1");
  EXPECT_EQ(o.code, 0);
  EXPECT_EQ(o.out,
            "from 233.4MiB to 256MiB with memory.high 230.4MiB (HZ=1000, shift 0, 1 process):\n"
            "  sleeping starts at 233.4MiB\n"
            "  one sleep per 64-page batch: 27.0 s (91 sleeps)\n"
            "  one sleep per page:          1720.3 s (5780 sleeps)\n"
            "  beside 1 other cgroup on its CPU, on 6.18 (per page needs 7 or more other cgroups charging on this "
            "CPU): one sleep per batch, 27.0 s\n");
}

// Every model command names its rules; a kernel before 6.0 charged 32-page
// batches, so its penalty for one batch is half (memory.high 100M, 105M: 159
// ms for 64 pages, 79 ms for 32).
TEST(CliModelKernel, PenaltyAndTableNameTheRulesAndOldKernelsBatch32) {
  json j = run_json("model penalty --usage 105M --high 100M --kernel-version 6.1");
  EXPECT_EQ(j["penalty_jiffies"], 159);
  EXPECT_EQ(j["kernel"]["version"], "6.1");
  EXPECT_EQ(j["kernel"]["charge_batch"], 64);
  EXPECT_EQ(j["kernel"]["high_events_per_sleep"], 17);
  json old = run_json("model penalty --usage 105M --high 100M --pages 32 --kernel-version 5.19");
  EXPECT_EQ(old["kernel"]["charge_batch"], 32);
  EXPECT_EQ(old["penalty_jiffies"], 159);  // 32 of 32 pages: a whole batch
  json forced = run_json("model penalty --usage 105M --high 100M --pages 32 --kernel-version 5.19 --batch 64");
  EXPECT_EQ(forced["penalty_jiffies"], 79);
  json t = run_json("model table --high 10M --max 20M --kernel-version 6.12 --stock-slots 3");
  EXPECT_EQ(t["kernel"]["stock_slots"], 3);
  json host = run_json("model penalty --usage 105M --high 100M");
  EXPECT_TRUE(host["kernel"]["source"] == "host" || host["kernel"]["source"] == "default");
}

TEST(CliModelKernel, BadKernelFlagsErrorWordForWord) {
  expect_error("model penalty --usage 1M --high 1M --kernel-version six",
               "--kernel-version: 'six' is not a kernel version like 6.12");
  expect_error("model penalty --usage 1M --high 1M --stock-slots 8", "--stock-slots: 8 is out of range (1 to 7)");
  expect_error("model grow --from 1M --to 2M --high 1M --neighbours -1", "--neighbours: '-1' is not a whole number");
}

}  // namespace
