#include "matrix/spec.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "common/duration.h"
#include "matrix/plan.h"
#include "matrix/progress.h"
#include "common/sha256.h"

namespace cgmem::matrix {
namespace {

// FIPS 180-4 examples.
TEST(MatrixSha256, KnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(MatrixSha256, AMissingFileIsAnError) {
  auto h = sha256_file("/nonexistent/CLAIM.md");
  ASSERT_FALSE(h.has_value());
  EXPECT_EQ(h.error().message(),
            "open the claim file: /nonexistent/CLAIM.md: No such file or directory (the spec's `claim` (or --claim) "
            "names a file, relative to the spec)");
  auto dir = sha256_file("/");
  ASSERT_FALSE(dir.has_value());  // not hashed as empty
  EXPECT_EQ(dir.error().message(), "the claim file is a directory: / (give the path of a regular file)");
  auto zero = sha256_file("/dev/zero");
  ASSERT_FALSE(zero.has_value());  // not hashed forever
  EXPECT_EQ(zero.error().message(), "the claim file is a character device: /dev/zero (give the path of a regular file)");
}

constexpr const char* kSpec = R"(
name = "t"
claim = "CLAIM.md"
reps = 2
[defaults]
cap = "5s"
interval = 100
[[configs]]
name = "none"
[[configs]]
name = "max"
max = "32M"
[[configs]]
name = "high"
max = "256M"
high = "90%"
[[workloads]]
name = "anon-over"
args = ["--target", "40M", "--file", "{batch}/data"]
[[workloads]]
name = "long"
configs = ["max"]
reps = 1
cap = "45m"
cpu = 1
)";

TEST(MatrixSpec, ParsesConfigsWorkloadsAndDefaults) {
  auto spec = parse_spec(kSpec, "/specs/t.toml");
  ASSERT_TRUE(spec.has_value()) << spec.error().message();
  EXPECT_EQ(spec->name, "t");
  EXPECT_EQ(spec->claim, "/specs/CLAIM.md");
  EXPECT_EQ(spec->reps, 2);
  ASSERT_EQ(spec->configs.size(), 3u);
  EXPECT_EQ(spec->configs[1].name, "max");
  EXPECT_EQ(spec->configs[1].flags.at("max"), "32M");
  EXPECT_EQ(spec->defaults.at("interval"), "100");
  EXPECT_EQ(spec->workloads[1].reps, 1);
  EXPECT_EQ(spec->workloads[1].configs, (std::vector<std::string>{"max"}));
}

TEST(MatrixSpec, ErrorsNameTheKey) {
  auto typo = parse_spec("[[configs]]\nname = \"a\"\nhihg = \"1M\"\n[[workloads]]\nname = \"w\"\n", "s.toml");
  ASSERT_FALSE(typo.has_value());
  EXPECT_EQ(typo.error().message(), "matrix spec: unknown key 'hihg' in config a: s.toml (see docs/matrix.md for the format)");
  auto value = parse_spec("[[configs]]\nname = \"a\"\nmax = \"lots\"\n[[workloads]]\nname = \"w\"\n", "s.toml");
  ASSERT_FALSE(value.has_value());
  EXPECT_EQ(value.error().message(),
            "matrix spec: config a.max: 'lots' is not a valid value: s.toml (see docs/matrix.md for the format)");
  auto undefined = parse_spec("[[configs]]\nname = \"a\"\n[[workloads]]\nname = \"w\"\nconfigs = [\"b\"]\n", "s.toml");
  ASSERT_FALSE(undefined.has_value());
  EXPECT_EQ(undefined.error().message(),
            "matrix spec: workload w names config 'b', which is not defined: s.toml (see docs/matrix.md for the format)");
  auto syntax = parse_spec("reps = = 3\n", "s.toml");
  ASSERT_FALSE(syntax.has_value());
  EXPECT_NE(syntax.error().message().find("matrix spec: line 1: "), std::string::npos);
}

std::string spec_error_of(const std::string& text) {
  auto spec = parse_spec(text, "s.toml");
  return spec ? "accepted" : spec.error().message();
}

constexpr const char* kTail = " (see docs/matrix.md for the format)";

// A name becomes a run directory the runner may remove; it must
// stay one safe component inside the batch.
TEST(MatrixSpec, NamesAreOneSafePathComponent) {
  const std::string hint =
      " (a name is 1 to 64 letters, digits, '-', '_' or '.', starting with a letter or digit)";
  EXPECT_EQ(spec_error_of("[[configs]]\nname = \"/tmp/x\"\n[[workloads]]\nname = \"w\"\n"),
            "matrix spec: config name '/tmp/x' is not allowed: s.toml" + hint);
  EXPECT_EQ(spec_error_of("[[configs]]\nname = \"a\"\n[[workloads]]\nname = \"../x\"\n"),
            "matrix spec: workload name '../x' is not allowed: s.toml" + hint);
  EXPECT_EQ(spec_error_of("[[configs]]\nname = \".hidden\"\n[[workloads]]\nname = \"w\"\n"),
            "matrix spec: config name '.hidden' is not allowed: s.toml" + hint);
  EXPECT_EQ(spec_error_of("[[configs]]\nname = \"a b\"\n[[workloads]]\nname = \"w\"\n"),
            "matrix spec: config name 'a b' is not allowed: s.toml" + hint);
  EXPECT_EQ(spec_error_of("[[configs]]\nname = \"" + std::string(65, 'a') + "\"\n[[workloads]]\nname = \"w\"\n"),
            "matrix spec: config name '" + std::string(65, 'a') + "' is not allowed: s.toml" + hint);
  EXPECT_EQ(spec_error_of("[[configs]]\nname = \"a\"\n[[workloads]]\nname = \"w\"\n[[workloads]]\nname = \"w\"\n"),
            std::string("matrix spec: two workloads are named w: s.toml") + kTail);
  EXPECT_EQ(spec_error_of("[[configs]]\nname = \"a.1_x-2\"\n[[workloads]]\nname = \"W9\"\n"), "accepted");
}

// Values of the wrong type or out of range are errors, not ignored or wrapped.
TEST(MatrixSpec, RepsAndSeedMustBeIntegersInRange) {
  const std::string body = "[[configs]]\nname = \"a\"\n[[workloads]]\nname = \"w\"\n";
  EXPECT_EQ(spec_error_of("reps = \"2\"\n" + body), std::string("matrix spec: reps must be an integer (string given): s.toml") + kTail);
  EXPECT_EQ(spec_error_of("reps = 2.5\n" + body), std::string("matrix spec: reps must be an integer (floating-point given): s.toml") + kTail);
  EXPECT_EQ(spec_error_of("reps = 4294967297\n" + body),
            std::string("matrix spec: reps = 4294967297 is out of range (1 to 1000): s.toml") + kTail);
  EXPECT_EQ(spec_error_of("reps = 1e8\n" + body), std::string("matrix spec: reps must be an integer (floating-point given): s.toml") + kTail);
  EXPECT_EQ(spec_error_of("reps = 0\n" + body), std::string("matrix spec: reps = 0 is out of range (1 to 1000): s.toml") + kTail);
  EXPECT_EQ(spec_error_of("seed = -1\n" + body),
            std::string("matrix spec: seed = -1 is out of range (0 to 9223372036854775807): s.toml") + kTail);
  EXPECT_EQ(spec_error_of("name = 5\n" + body), std::string("matrix spec: name must be a string (integer given): s.toml") + kTail);
  EXPECT_EQ(spec_error_of(body + "reps = \"3\"\n"),
            std::string("matrix spec: workload w.reps must be an integer (string given): s.toml") + kTail);
}

// fuzz_matrix_spec: toml++ 3.3.0 asserted on "[#" and reached
// __builtin_unreachable() on "[\xca\xac\\u"; both are clear errors.
TEST(MatrixSpec, InputThatBrokeTheTomlParserIsAnError) {
  EXPECT_EQ(spec_error_of("[# x\n").substr(0, 28), "matrix spec: line 1: Error w");
  EXPECT_EQ(spec_error_of("[\xca\xac\\u"),
            std::string("matrix spec: line 1: byte 0xca is not printable ASCII; a spec is ASCII text: s.toml") + kTail);
  EXPECT_EQ(spec_error_of("name = \"a\"\x01\n"),
            std::string("matrix spec: line 1: byte 0x01 is not printable ASCII; a spec is ASCII text: s.toml") + kTail);
}

TEST(MatrixSpec, APercentNeedsAMax) {
  auto spec = parse_spec("[[configs]]\nname = \"h\"\nhigh = \"90%\"\n[[workloads]]\nname = \"w\"\n", "s.toml");
  ASSERT_FALSE(spec.has_value());
  EXPECT_EQ(spec.error().message(),
            "matrix spec: config h: high '90%' is a share of max, and max is not a size: s.toml (see docs/matrix.md "
            "for the format)");
}

// neighbours = N is `cgmem run --neighbours N`; cgmem run checks its range.
TEST(MatrixSpec, NeighboursIsACountForTheRunsFlag) {
  auto spec = parse_spec("reps = 1\n[[configs]]\nname = \"nb8\"\nhigh = \"28M\"\nneighbours = 8\n[[configs]]\nname = \"nb\"\n"
                         "neighbours = \"2\"\nneighbour = \"50ms\"\n[[workloads]]\nname = \"w\"\n"
                         "args = [\"--target\", \"40M\"]\n",
                         "s.toml");
  ASSERT_TRUE(spec.has_value()) << spec.error().message();
  EXPECT_EQ(spec->configs[0].flags.at("neighbours"), "8");
  EXPECT_EQ(run_flag("neighbours"), "--neighbours");
  auto runs = plan(*spec, {.batch_dir = "/b"});
  ASSERT_EQ(runs.size(), 2u);
  auto args = run_arguments(runs[0], "/b/r");
  auto at = std::find(args.begin(), args.end(), "--neighbours");
  ASSERT_NE(at, args.end());
  EXPECT_EQ(*(at + 1), "8");
  EXPECT_EQ(runs[1].flags.at("neighbours"), "2");
  EXPECT_EQ(runs[1].flags.at("neighbour"), "50ms");
  EXPECT_EQ(spec_error_of("[[configs]]\nname = \"a\"\nneighbours = 2.5\n[[workloads]]\nname = \"w\"\n"),
            std::string("matrix spec: config a.neighbours: 'floating-point' is not a valid value: s.toml") + kTail);
  EXPECT_EQ(spec_error_of("[[configs]]\nname = \"a\"\nneighbours = \"eight\"\n[[workloads]]\nname = \"w\"\n"),
            std::string("matrix spec: config a.neighbours: 'eight' is not a valid value: s.toml") + kTail);
}

TEST(MatrixPlan, FixedOrderIsRepetitionThenWorkloadThenConfig) {
  auto spec = parse_spec(kSpec, "/specs/t.toml");
  auto runs = plan(*spec, {.batch_dir = "/b"});
  std::vector<std::string> names;
  for (const auto& r : runs) names.push_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string>{"anon-over-none-r1", "anon-over-max-r1", "anon-over-high-r1",
                                             "long-max-r1", "anon-over-none-r2", "anon-over-max-r2",
                                             "anon-over-high-r2"}));
  EXPECT_EQ(runs[3].cap_s, 2700);
  EXPECT_EQ(runs[0].cap_s, 5);
  EXPECT_EQ(runs[0].workload_args[3], "/b/data");
  EXPECT_EQ(runs[2].flags.at("high"), "241590272");  // the kubelet's value for 256Mi and 0.9
  EXPECT_EQ(run_arguments(runs[3], "/b/long-max-r1"),
            (std::vector<std::string>{"run", "--name", "long-max-r1", "--out", "/b/long-max-r1", "--cap", "45m",
                                      "--cpu", "1", "--interval", "100", "--max", "32M", "--quiet", "--"}));
}

TEST(MatrixPlan, RepsFlagKeepsAWorkloadsOwnReps) {
  auto spec = parse_spec(kSpec, "/specs/t.toml");
  EXPECT_EQ(plan(*spec, {.reps = 3}).size(), 3u * 3 + 1);
}

TEST(MatrixPlan, ShuffleIsTheSameForTheSameSeed) {
  auto spec = parse_spec(kSpec, "/specs/t.toml");
  auto names = [&](uint64_t seed) {
    std::vector<std::string> out;
    for (const auto& r : plan(*spec, {.shuffle = true, .seed = seed})) out.push_back(r.name);
    return out;
  };
  EXPECT_EQ(names(7), names(7));
  EXPECT_NE(names(7), names(8));
  auto sorted = names(7);
  std::sort(sorted.begin(), sorted.end());
  auto fixed = std::vector<std::string>();
  for (const auto& r : plan(*spec, {})) fixed.push_back(r.name);
  std::sort(fixed.begin(), fixed.end());
  EXPECT_EQ(sorted, fixed);
}

TEST(MatrixPlan, ShardsSplitThePlanTheSameWayWhateverTheOrder) {
  auto spec = parse_spec(kSpec, "/specs/t.toml");
  std::vector<std::string> whole;
  for (const auto& r : plan(*spec, {})) whole.push_back(r.name);
  for (int count : {1, 2, 3, 7, 9}) {
    std::vector<std::string> all;
    for (int index = 1; index <= count; ++index) {
      std::vector<std::string> fixed, shuffled;
      for (const auto& r : plan(*spec, {.shard = {index, count}})) fixed.push_back(r.name);
      for (const auto& r : plan(*spec, {.shuffle = true, .seed = 5, .shard = {index, count}})) shuffled.push_back(r.name);
      // The same part whatever the order, and parts differ by one run at most.
      auto sorted = shuffled;
      std::sort(sorted.begin(), sorted.end());
      auto fixed_sorted = fixed;
      std::sort(fixed_sorted.begin(), fixed_sorted.end());
      EXPECT_EQ(sorted, fixed_sorted) << index << "/" << count;
      EXPECT_LE(fixed.size(), (whole.size() + count - 1) / count);
      EXPECT_GE(fixed.size(), whole.size() / count);
      all.insert(all.end(), fixed.begin(), fixed.end());
    }
    // Every run in exactly one part.
    std::sort(all.begin(), all.end());
    auto expected = whole;
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(all, expected) << count;
  }
}

TEST(MatrixPlan, AShardIsKOfN) {
  auto ok = parse_shard("2/5");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->index, 2);
  EXPECT_EQ(ok->count, 5);
  EXPECT_EQ(ok->text(), "2/5");
  for (const char* bad : {"", "2", "0/3", "4/3", "1/0", "-1/3", "1/3/4", "a/b", "1/10001", " 1/2"}) {
    auto r = parse_shard(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message().find("give K/N"), std::string::npos) << r.error().message();
  }
}

TEST(MatrixSpec, AWorkloadMayBeACommandWithALoad) {
  auto spec = parse_spec(R"(
[[configs]]
name = "max"
max = "64M"
[[workloads]]
name = "redis"
command = ["redis-server", "--dir", "{batch}"]
load = ["redis-benchmark", "--csv"]
programs = ["redis-server", "redis-benchmark"]
ready_tcp = 6379
cap = "20s"
)", "s.toml");
  ASSERT_TRUE(spec) << spec.error().message();
  ASSERT_TRUE(spec->workloads[0].programs);
  EXPECT_EQ(spec->workloads[0].programs->size(), 2u);
  auto runs = plan(*spec, {.batch_dir = "/b"});
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(run_arguments(runs[0], "/b/redis-max-r1"),
            (std::vector<std::string>{"run", "--name", "redis-max-r1", "--out", "/b/redis-max-r1", "--cap", "20s",
                                      "--max", "64M", "--ready-tcp", "6379", "--quiet", "--command", "--",
                                      "redis-server", "--dir", "/b", "--load", "--", "redis-benchmark", "--csv"}));
  EXPECT_EQ(spec_error_of("[[configs]]\nname = \"a\"\n[[workloads]]\nname = \"w\"\nargs = [\"--target\", \"1M\"]\ncommand = [\"p\"]\n"),
            std::string("matrix spec: workload w has both args (the built-in workload) and command: s.toml") + kTail);
  EXPECT_EQ(spec_error_of("[[configs]]\nname = \"a\"\n[[workloads]]\nname = \"w\"\nargs = [\"--target\", \"1M\"]\nload = [\"p\"]\n"),
            std::string("matrix spec: workload w: load, programs, trees, build, ready_tcp and ready_delay go with command: s.toml") + kTail);
  EXPECT_EQ(spec_error_of("[[configs]]\nname = \"a\"\n[[workloads]]\nname = \"w\"\ncommand = [\"p\"]\nready_tcp = \"x\"\n"),
            std::string("matrix spec: workload w.ready_tcp: 'x' is not a valid value: s.toml") + kTail);
}

TEST(MatrixSpec, TheBundledSpecsPlanTheStudysRuns) {
  auto load = [](const char* name) {
    auto spec = load_spec(std::string(CGMEM_SOURCE_DIR) + "/examples/" + name + ".toml");
    EXPECT_TRUE(spec.has_value()) << name << ": " << (spec ? "" : spec.error().message());
    return spec ? plan(*spec, {}) : std::vector<PlannedRun>{};
  };
  auto quick = load("quick");
  EXPECT_EQ(quick.size(), 31u);  // 2 x 3 workloads x 4 configs, and 7 single runs
  auto both = std::find_if(quick.begin(), quick.end(), [](auto& r) { return r.name == "anon-over-both-r1"; });
  ASSERT_NE(both, quick.end());
  EXPECT_EQ(both->flags.at("high"), "30195712");  // 90% of 32M, page-rounded
  auto study = load("study");
  EXPECT_EQ(study.size(), 70u);
  EXPECT_EQ(study[2].name, "anon-fit-high-r1");
  EXPECT_EQ(study[2].flags.at("high"), "241590272");
  EXPECT_EQ(study[2].cap_s, 150);
  EXPECT_EQ(load("diag").size(), 18u);
  // The main command's batch: one run per claim, caps adding up to under 7
  // minutes (most runs end well before theirs, at the kill).
  auto claims = load("claims");
  EXPECT_EQ(claims.size(), 13u);
  double caps = 0;
  for (const auto& r : claims) caps += r.cap_s;
  EXPECT_EQ(caps, 408);
  auto kill = std::find_if(claims.begin(), claims.end(), [](auto& r) { return r.name == "anon-over-kill-nb-both-16M-r1"; });
  ASSERT_NE(kill, claims.end());
  EXPECT_EQ(kill->flags.at("high"), "15097856");  // 90% of 16M, page-rounded
  EXPECT_EQ(kill->flags.at("neighbour"), "100ms");
}

TEST(MatrixProgress, LineShowsRunElapsedAndEta) {
  ProgressState s{.index = 7, .total = 24, .name = "anon-over-high-r1", .run_s = 12, .elapsed_s = 241, .eta_s = 750};
  EXPECT_EQ(progress_line(s), "matrix [#####---------------]  7/24 anon-over-high-r1  run 0:12  elapsed 4:01  ETA 12:30");
  EXPECT_EQ(format_duration(3723, DurationStyle::clock), "1:02:03");
}

TEST(MatrixProgress, EtaScalesCapsByWhatFinishedRunsTook) {
  EXPECT_DOUBLE_EQ(eta_seconds(100, 10, 4, 0, 0), 106);        // nothing finished: the caps
  EXPECT_DOUBLE_EQ(eta_seconds(100, 10, 1, 5, 10), 50 + 4);    // runs took half their cap
  EXPECT_DOUBLE_EQ(eta_seconds(100, 10, 9, 5, 10), 50);        // the current run is past its share
}

}  // namespace
}  // namespace cgmem::matrix
