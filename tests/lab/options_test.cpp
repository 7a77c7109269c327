#include <gtest/gtest.h>

#include "cli/run_check.h"
#include "cli/workload_flags.h"
#include "lab/neighbour.h"
#include "lab/run_options.h"
#include "lab/workload_options.h"

namespace cgmem::lab {
namespace {

constexpr uint64_t kMiB = 1 << 20;

WorkloadOptions anon(uint64_t target) { return WorkloadOptions{.target_bytes = target}; }

TEST(WorkloadOptions, AcceptsTheStudyVariants) {
  EXPECT_TRUE(validate(anon(40 * kMiB), 4096));
  auto file = anon(40 * kMiB);
  file.file = "data", file.file_size = 64 * kMiB;
  EXPECT_TRUE(validate(file, 4096));
  auto procs = anon(40 * kMiB);
  procs.procs = 4;
  EXPECT_TRUE(validate(procs, 4096));
}

TEST(WorkloadOptions, RejectsBadCombinationsByName) {
  auto o = anon(100 * 1024);
  EXPECT_EQ(validate(o, 4096).error().message(), "--target 100KiB is smaller than one chunk (256KiB)");
  o = anon(40 * kMiB), o.chunk_bytes = 5000;
  EXPECT_EQ(validate(o, 4096).error().message(), "--chunk 5000 is not a whole number of 4096-byte pages");
  o = anon(1 * kMiB), o.procs = 8;
  EXPECT_EQ(validate(o, 4096).error().message(),
            "--target 1MiB split over 8 processes is less than one chunk each");
  o = anon(40 * kMiB), o.procs = 65;
  EXPECT_EQ(validate(o, 4096).error().message(), "--procs 65 is out of range 1 to 64");
  o = anon(40 * kMiB), o.file = "data", o.file_size = 32 * kMiB;
  EXPECT_EQ(validate(o, 4096).error().message(),
            "--file-size 32MiB is smaller than --target 40MiB (the workload reads the file up to "
            "the target; give a larger --file-size)");
  o.file_size = 64 * kMiB, o.populate = true;
  EXPECT_EQ(validate(o, 4096).error().message(), "--populate applies to anonymous memory, not to --file");
  o = anon(40 * kMiB), o.file_size = kMiB;
  EXPECT_EQ(validate(o, 4096).error().message(), "--file-size needs --file");
  o = anon(40 * kMiB), o.own_code_bytes = 24 * kMiB;
  EXPECT_EQ(validate(o, 4096).error().message(), "--own-code-size needs --own-code");
  o.own_code = true;
  EXPECT_TRUE(validate(o, 4096, 512 * kMiB));
  EXPECT_EQ(validate(o, 4096, 16 * kMiB).error().message(),
            "--target 40MiB is above this machine's RAM (16MiB) (the workload would wait on the whole machine's OOM "
            "killer; give a smaller --target)");
  o.target_bytes = kMiB;
  EXPECT_EQ(validate(o, 4096, 16 * kMiB).error().message(), "--own-code-size 24MiB is above this machine's RAM (16MiB)");
}

TEST(WorkloadOptions, MetaJson) {
  auto o = anon(40 * kMiB);
  o.set_own_high = 28 * kMiB;
  auto j = to_json(o);
  EXPECT_EQ(j["target_bytes"], 40 * kMiB);
  EXPECT_EQ(j["chunk_bytes"], 262144);
  EXPECT_EQ(j["set_own_high"], 28 * kMiB);
  EXPECT_TRUE(j["file"].is_null());
  EXPECT_EQ(j["own_code_bytes"], 0);
}

TEST(WorkloadWords, OwnCodeSizeImpliesOwnCode) {
  auto o = cli::parse_workload_words({"--target", "40M", "--own-code-size", "24M"});
  ASSERT_TRUE(o) << o.error().message();
  EXPECT_TRUE(o->own_code);
  EXPECT_EQ(o->own_code_bytes, 24 * kMiB);
  EXPECT_EQ(to_json(*o)["own_code_bytes"], 24 * kMiB);
}

TEST(WorkloadWords, ParsedLikeTheCommand) {
  auto o = cli::parse_workload_words({"--target", "40M", "--churn", "200", "--seed", "9", "--populate"});
  ASSERT_TRUE(o) << o.error().message();
  EXPECT_EQ(o->target_bytes, 40 * kMiB);
  EXPECT_EQ(o->churn, 200u);
  EXPECT_EQ(o->seed, 9u);
  EXPECT_TRUE(o->populate);
  auto missing = cli::parse_workload_words({"--churn", "3"});
  EXPECT_EQ(missing.error().message(), "workload options after '--': --target is required");
  auto bad = cli::parse_workload_words({"--target", "40MB"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("'MB' is ambiguous"), std::string::npos);
}

RunOptions run(std::optional<Limit> max) {
  return RunOptions{.name = "over", .max = max, .workload_args = {"--target", "40M"}};
}
const Machine kMachine{.cpus = 2, .mem_total_bytes = 512 * kMiB};

TEST(RunOptions, SafetyLimits) {
  EXPECT_TRUE(validate(run(Limit::of(32 * kMiB)), kMachine));
  EXPECT_TRUE(validate(run(Limit::max()), kMachine));
  EXPECT_EQ(validate(run(Limit::of(512 * 1024)), kMachine).error().message(),
            "memory.max 512KiB is below 1MiB (a cgroup that small cannot start a process; pass "
            "--force to do it anyway)");
  EXPECT_EQ(validate(run(Limit::of(1024 * kMiB)), kMachine).error().message(),
            "memory.max 1GiB is above this machine's RAM (512MiB) (such a limit never acts; pass "
            "--force to do it anyway)");
  auto forced = run(Limit::of(512 * 1024));
  forced.force = true;
  EXPECT_TRUE(validate(forced, kMachine));
}

TEST(RunOptions, NamesCpusAndTimes) {
  auto o = run(std::nullopt);
  o.name = "../escape";
  EXPECT_EQ(validate(o, kMachine).error().message().substr(0, 8), "--name: ");
  o = run(std::nullopt), o.cpu = 2;
  EXPECT_EQ(validate(o, kMachine).error().message(), "--cpu 2: this machine has CPUs 0 to 1");
  o = run(std::nullopt), o.interval_ns = 1'000'000;
  EXPECT_EQ(validate(o, kMachine).error().message(),
            "--interval is below 10ms (the sampler would cost more than it shows)");
  o = run(std::nullopt), o.workload_args.clear();
  EXPECT_EQ(validate(o, kMachine).error().message(),
            "no workload options after '--' (e.g. cgmem run --name over --max 32M -- --target 40M)");
}

TEST(RunOptions, SamplerGoesToAnotherCpuWhenThereIsOne) {
  EXPECT_EQ(default_sampler_cpu(0, 2), 1u);
  EXPECT_EQ(default_sampler_cpu(1, 2), 0u);
  EXPECT_EQ(default_sampler_cpu(3, 4), 0u);
  EXPECT_EQ(default_sampler_cpu(0, 1), 0u);
  auto spec = spec_json(run(std::nullopt), 0, 1);
  EXPECT_EQ(spec["sampler_cpu"], 1);
  EXPECT_EQ(spec["interval_ms"], 100.0);
  EXPECT_TRUE(spec["neighbour_interval_ms"].is_null());
}

// --neighbours N: 1 to 64 neighbours, and together no more than one charge
// per millisecond on the workload's CPU (the one neighbour's floor).
TEST(RunOptions, NeighboursAreOneToSixtyFourAndShareTheOneMillisecondFloor) {
  auto o = run(std::nullopt);
  o.neighbour_ns = 100'000'000, o.neighbours = 8;
  EXPECT_TRUE(validate(o, kMachine));
  o.neighbours = 64;
  EXPECT_TRUE(validate(o, kMachine));
  o.neighbours = 65;
  EXPECT_EQ(validate(o, kMachine).error().message(), "--neighbours: 65 is out of range (1 to 64)");
  o.neighbours = 0;
  EXPECT_EQ(validate(o, kMachine).error().message(), "--neighbours: 0 is out of range (1 to 64)");
  o.neighbours = 8, o.neighbour_ns = 1'000'000;
  EXPECT_EQ(validate(o, kMachine).error().message(),
            "--neighbours 8 at --neighbour 1ms charge the workload's CPU every 0.125ms, more often than once per "
            "1ms (together they would take the CPU from the workload; give --neighbour 8ms or more, or fewer "
            "--neighbours)");
  o.neighbour_ns = 8'000'000;
  EXPECT_TRUE(validate(o, kMachine));
  o.neighbour_ns = 500'000, o.neighbours = 1;  // one neighbour keeps its own message
  EXPECT_EQ(validate(o, kMachine).error().message(), "--neighbour is below 1ms");
  // The default interval leaves every count within the floor.
  o.neighbour_ns = kDefaultNeighbourInterval, o.neighbours = kMaxNeighbours;
  EXPECT_TRUE(validate(o, kMachine));
}

TEST(RunOptions, SpecJsonRecordsHowManyNeighbours) {
  auto o = run(std::nullopt);
  EXPECT_EQ(spec_json(o, 0, 1)["neighbours"], 0);
  o.neighbour_ns = 100'000'000;
  auto one = spec_json(o, 0, 1);
  EXPECT_EQ(one["neighbours"], 1);
  EXPECT_EQ(one["neighbour_interval_ms"], 100.0);
  o.neighbours = 8;
  auto eight = spec_json(o, 0, 1);
  EXPECT_EQ(eight["neighbours"], 8);
  EXPECT_EQ(eight["neighbour_interval_ms"], 100.0);
}

// Neighbour k of N charges k * interval / N after neighbour 0.
TEST(Neighbours, PhasesAreStaggeredAcrossTheInterval) {
  EXPECT_EQ(neighbour_offset_ns(0, 1, 100'000'000), 0u);
  EXPECT_EQ(neighbour_offset_ns(0, 8, 100'000'000), 0u);
  EXPECT_EQ(neighbour_offset_ns(1, 8, 100'000'000), 12'500'000u);
  EXPECT_EQ(neighbour_offset_ns(7, 8, 100'000'000), 87'500'000u);
  EXPECT_EQ(neighbour_offset_ns(2, 3, 1'000'000), 666'666u);
  EXPECT_EQ(neighbour_offset_ns(63, 64, 86'400'000'000'000), 85'050'000'000'000u);  // a day: no overflow
}

TEST(Neighbours, EachHasACgroupOfItsOwnAndOneKeepsItsName) {
  EXPECT_EQ(neighbour_cgroup_names("run", 1), std::vector<std::string>{"run-neighbour"});
  EXPECT_EQ(neighbour_cgroup_names("run", 3),
            (std::vector<std::string>{"run-neighbour-1", "run-neighbour-2", "run-neighbour-3"}));
  EXPECT_TRUE(neighbour_cgroup_names("run", 0).empty());
}

// `cgmem run`'s words as cgmem run and matrix --plan read them.
TEST(RunWords, NeighboursAloneGetTheDefaultIntervalAndNeighbourAloneIsOne) {
  const std::vector<std::string> after = {"--", "--target", "40M"};
  auto words = [&](std::vector<std::string> flags) {
    std::vector<std::string> w = {"--name", "r"};
    w.insert(w.end(), flags.begin(), flags.end());
    w.insert(w.end(), after.begin(), after.end());
    return cli::check_run_words(w, kMachine);
  };
  auto none = words({});
  ASSERT_TRUE(none) << none.error().message();
  EXPECT_FALSE(none->options.neighbour_ns.has_value());
  auto eight = words({"--neighbours", "8"});
  ASSERT_TRUE(eight) << eight.error().message();
  EXPECT_EQ(eight->options.neighbours, 8u);
  EXPECT_EQ(eight->options.neighbour_ns, kDefaultNeighbourInterval);
  EXPECT_EQ(kDefaultNeighbourInterval, 100'000'000u);
  auto one = words({"--neighbour", "10ms"});
  ASSERT_TRUE(one) << one.error().message();
  EXPECT_EQ(one->options.neighbours, 1u);
  EXPECT_EQ(one->options.neighbour_ns, 10'000'000u);
  auto both = words({"--neighbours", "8", "--neighbour", "20ms"});
  ASSERT_TRUE(both) << both.error().message();
  EXPECT_EQ(both->options.neighbours, 8u);
  EXPECT_EQ(both->options.neighbour_ns, 20'000'000u);
  EXPECT_EQ(lab::spec_json(both->options, 0, 1)["neighbours"], 8);
  EXPECT_EQ(words({"--neighbours", "65"}).error().message(), "--neighbours: 65 is out of range (1 to 64)");
  EXPECT_EQ(words({"--neighbours", "0"}).error().message(), "--neighbours: 0 is out of range (1 to 64)");
  EXPECT_EQ(words({"--neighbours", "-1"}).error().message(), "--neighbours: '-1' is not a whole number");
  EXPECT_EQ(words({"--neighbours", "8", "--neighbour", "2ms"}).error().message().substr(0, 60),
            "--neighbours 8 at --neighbour 2ms charge the workload's CPU ");
}


TEST(RunOptions, CommandWordsSplitAtTheFirstLoadPair) {
  RunOptions o{.name = "r"};
  split_command_words({"redis-server", "--port", "6379", "--load", "--", "redis-benchmark", "--load", "--", "x"}, o);
  EXPECT_EQ(o.command, (std::vector<std::string>{"redis-server", "--port", "6379"}));
  EXPECT_EQ(o.load, (std::vector<std::string>{"redis-benchmark", "--load", "--", "x"}));
  RunOptions alone{.name = "r"};
  split_command_words({"prog", "--load", "x", "--"}, alone);  // "--load" not followed by "--" is the program's
  EXPECT_EQ(alone.command.size(), 4u);
  EXPECT_TRUE(alone.load.empty());
}

TEST(RunOptions, CommandRules) {
  RunOptions o{.name = "r", .command = {"redis-server"}};
  EXPECT_TRUE(validate(o, kMachine));
  o.ready_tcp = 6379;
  EXPECT_EQ(validate(o, kMachine).error().message(),
            "--ready-tcp/--ready-delay without a load generator (add `--load -- CMD ARGS` after the program's arguments)");
  o.load = {"redis-benchmark"};
  EXPECT_TRUE(validate(o, kMachine));
  o.ready_delay_ns = 1'000'000'000;
  EXPECT_EQ(validate(o, kMachine).error().message(), "give --ready-tcp or --ready-delay, not both");
  o.ready_tcp.reset(), o.ready_delay_ns = o.cap_ns;
  EXPECT_EQ(validate(o, kMachine).error().message(),
            "--ready-delay is not shorter than --cap (the load would never start)");
  auto workload = run(std::nullopt);
  workload.load = {"x"};
  EXPECT_EQ(validate(workload, kMachine).error().message().substr(0, 50),
            "--load, --ready-tcp and --ready-delay go with --co");
  auto spec = spec_json(RunOptions{.name = "r", .command = {"p", "a"}, .load = {"l"}, .ready_tcp = 80}, 0, 1);
  EXPECT_EQ(spec["command"], nlohmann::json({"p", "a"}));
  EXPECT_EQ(spec["load"], nlohmann::json({"l"}));
  EXPECT_EQ(spec["ready_tcp"], 80);
  EXPECT_FALSE(spec["op_lines"].get<bool>());
  EXPECT_TRUE(spec_json(run(std::nullopt), 0, 1)["op_lines"].get<bool>());
}

}  // namespace
}  // namespace cgmem::lab
