// The report for `cgmem run --command` runs: the load generators' formats,
// their times, and programs.md's numbers from a run directory written here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "report/load_output.h"
#include "report/programs.h"
#include "report/report.h"

namespace fs = std::filesystem;
using namespace cgmem::report;

namespace {

const char kRedisCsv[] =
    "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\",\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"\n"
    "\"SET\",\"19607.84\",\"1.932\",\"0.176\",\"0.831\",\"4.735\",\"24.431\",\"57.023\"\n"
    "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\",\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"\n"
    "\"SET\",\"9000.50\",\"3.000\",\"0.200\",\"1.000\",\"9.000\",\"120.5\",\"300.0\"\n";

TEST(LoadOutput, RedisBenchmarkCsvRepeatedByALoopWithTimes) {
  std::string text = kRedisCsv;
  size_t first_row_end = text.find('\n', text.find("\"SET\"")) + 1;
  std::vector<LoadTime> times = {{1.5, first_row_end}, {4.0, text.size()}};
  auto out = parse_load_output(text, times);
  EXPECT_EQ(out.format, "redis-benchmark-csv");
  ASSERT_EQ(out.points.size(), 2u);
  EXPECT_EQ(out.points[0].test, "SET");
  EXPECT_DOUBLE_EQ(*out.points[0].rps, 19607.84);
  EXPECT_DOUBLE_EQ(*out.points[0].p99_ms, 24.431);
  EXPECT_DOUBLE_EQ(*out.points[0].t_s, 1.5);
  EXPECT_DOUBLE_EQ(*out.points[1].p99_ms, 120.5);
  EXPECT_DOUBLE_EQ(*out.points[1].t_s, 4.0);
}

TEST(LoadOutput, OldRedisCsvPgbenchAndWrk) {
  auto old = parse_load_output("\"SET\",\"8000.00\"\n", {});
  ASSERT_EQ(old.points.size(), 1u);
  EXPECT_DOUBLE_EQ(*old.points[0].rps, 8000);
  EXPECT_FALSE(old.points[0].p99_ms);
  EXPECT_FALSE(old.points[0].t_s);  // no times file

  auto pg = parse_load_output(
      "transaction type: <builtin: TPC-B (sort of)>\nlatency average = 1.234 ms\n"
      "initial connection time = 2.5 ms\ntps = 810.123456 (without initial connection time)\n", {});
  EXPECT_EQ(pg.format, "pgbench");
  ASSERT_EQ(pg.points.size(), 1u);
  EXPECT_DOUBLE_EQ(*pg.points[0].rps, 810.123456);
  EXPECT_DOUBLE_EQ(*pg.points[0].avg_ms, 1.234);

  auto wrk = parse_load_output(
      "Running 10s test @ http://127.0.0.1:8080/\n  Thread Stats   Avg      Stdev     Max   +/- Stdev\n"
      "    Latency   635.91us  0.89ms  12.92ms   93.69%\n  Latency Distribution\n     50%  491.00us\n"
      "     99%    4.56ms\nRequests/sec:  12345.67\nTransfer/sec:      1.00MB\n", {});
  EXPECT_EQ(wrk.format, "wrk");
  ASSERT_EQ(wrk.points.size(), 1u);
  EXPECT_NEAR(*wrk.points[0].avg_ms, 0.63591, 1e-9);
  EXPECT_NEAR(*wrk.points[0].p50_ms, 0.491, 1e-9);
  EXPECT_DOUBLE_EQ(*wrk.points[0].p99_ms, 4.56);
  EXPECT_DOUBLE_EQ(*wrk.points[0].rps, 12345.67);
}

// wrk's round in which no request completed (Go under memory.high in the VM):
// its zeros are not latencies, so only the throughput is read.
TEST(LoadOutput, ARoundWithNoRequestHasNoLatency) {
  auto wrk = parse_load_output(
      "Running 4s test @ http://127.0.0.1:8080/set\n  1 threads and 8 connections\n"
      "  Thread Stats   Avg      Stdev     Max   +/- Stdev\n    Latency     0.00us    0.00us   0.00us    -nan%\n"
      "    Req/Sec     0.00      0.00     0.00      -nan%\n  Latency Distribution\n     50%    0.00us\n"
      "     75%    0.00us\n     90%    0.00us\n     99%    0.00us\n  0 requests in 4.03s, 0.00B read\n"
      "Requests/sec:      0.00\nTransfer/sec:       0.00B\n", {});
  ASSERT_EQ(wrk.points.size(), 1u);
  EXPECT_EQ(wrk.points[0].rps, 0.0);
  EXPECT_EQ(wrk.points[0].avg_ms, std::nullopt);
  EXPECT_EQ(wrk.points[0].p50_ms, std::nullopt);
  EXPECT_EQ(wrk.points[0].p99_ms, std::nullopt);
}

TEST(LoadOutput, AnythingElseIsNotRead) {
  auto out = parse_load_output("hello\n\"x\ntps = many\nRequests/sec: lots\n,,,\n", {});
  EXPECT_EQ(out.format, "");
  EXPECT_TRUE(out.points.empty());
  EXPECT_EQ(parse_load_times("{\"t_ns\":1500000000,\"bytes\":10}\nnot json\n{\"t_ns\":-1}\n").size(), 1u);
}

// A value must be a plain finite decimal of 0 or more; others are refused
// with their line, and the row (or the field) is not read.
TEST(LoadOutput, NanInfNegativeAndHexAreRefusedWithTheirLine) {
  auto out = parse_load_output(
      "\"SET\",\"nan\"\n\"GET\",\"-5.00\"\n\"INCR\",\"0x10\"\n\"LPUSH\",\"inf\"\n\"RPUSH\",\"12abc\"\n"
      "\"SET\",\"100\",\"1\",\"0\",\"1\",\"2\",\"-3\",\"4\"\ntps = NaN (without initial connection time)\n",
      {});
  ASSERT_EQ(out.points.size(), 1u);
  EXPECT_DOUBLE_EQ(*out.points[0].rps, 100);
  EXPECT_FALSE(out.points[0].p99_ms);
  EXPECT_EQ(out.problems, (std::vector<std::string>{
                              "line 1: 'nan' is not a finite decimal number of 0 or more; not read",
                              "line 2: '-5.00' is not a finite decimal number of 0 or more; not read",
                              "line 3: '0x10' is not a finite decimal number of 0 or more; not read",
                              "line 4: 'inf' is not a finite decimal number of 0 or more; not read",
                              "line 5: '12abc' is not a finite decimal number of 0 or more; not read",
                              "2 more values refused"}));
  auto wrk = parse_load_output("    Latency   -1.00ms  0.89ms  12.92ms   93.69%\nRequests/sec:  12.5\n", {});
  ASSERT_EQ(wrk.points.size(), 1u);
  EXPECT_FALSE(wrk.points[0].avg_ms);
  EXPECT_EQ(wrk.problems.size(), 1u);
}

struct RunDirFixture : ::testing::Test {
  fs::path batch = fs::temp_directory_path() / ("cgmem-programs-" + std::to_string(::getpid()));
  void TearDown() override { fs::remove_all(batch); }

  // A --command run of `seconds` s, 1 s samples; memory.current and the high counter as given per second.
  void write_run(const std::string& name, const std::string& limits, const std::string& status, double seconds,
                 const std::vector<std::pair<uint64_t, uint64_t>>& current_high, uint64_t peak, bool load) {
    fs::path dir = batch / name;
    fs::create_directories(dir);
    std::ofstream(dir / "meta.json") << R"({"schema":1,"name":")" << name << R"(","started_mono_ns":1000000000,)"
        << R"("limits":)" << limits << R"(,"spec":{"interval_ms":1000,"cap_s":60,"load":["redis-benchmark"]},)"
        << R"("workload":{"kind":"command","argv":["redis-server"]},"host":{"hz":250,"page_size":4096},)"
        << R"("code":{"git_commit":"abc","binary_hash":"h"}})";
    std::ofstream samples(dir / "samples.jsonl");
    for (size_t i = 0; i < current_high.size(); ++i)
      samples << R"({"t_ns":)" << 1000000000 + i * 1000000000 << R"(,"memory_current":)" << current_high[i].first
              << R"(,"memory_events":{"high":)" << current_high[i].second << R"(,"max":0,"oom_kill":0},)"
              << R"("memory_stat":{"pgfault":)" << i * 128 << R"(,"thp_fault_alloc":0},)"
              << R"("memory_pressure":{"some":{"avg10":1,"avg60":1,"avg300":1,"total":2500000},"full":{"avg10":1,"avg60":1,"avg300":1,"total":1000000}},)"
              << R"("procs":[{"pid":5,"state":")" << (current_high[i].second ? "D" : "S")
              << R"(","utime_ticks":1,"stime_ticks":1,"wchan":")"
              << (current_high[i].second ? "mem_cgroup_handle_over_high" : "ep_poll") << R"("}]})" << "\n";
    std::ofstream(dir / "outcome.json") << R"({"status":")" << status << R"(","exit_code":null,"signal":9,"duration_s":)"
        << seconds << R"(,"time_to_kill_s":)" << (status == "oom_killed" ? std::to_string(seconds) : "null")
        << R"(,"events":{"high":)" << current_high.back().second << R"(,"max":0,"oom_kill":0},"peak_bytes":)" << peak
        << R"(,"ops":null,"samples":)" << current_high.size() << R"(,"errors":[]})";
    if (load) {
      std::string text = kRedisCsv;
      std::ofstream(dir / "load.stdout") << text;
      std::ofstream(dir / "load.times.jsonl") << R"({"t_ns":500000000,"bytes":)" << text.find('\n', text.find("\"SET\"")) + 1
                                              << "}\n" << R"({"t_ns":3500000000,"bytes":)" << text.size() << "}\n";
    }
  }
};

TEST_F(RunDirFixture, ProgramsSectionReadsSamplesOutcomeAndLoad) {
  constexpr uint64_t MiB = 1 << 20;
  // Unlimited: the working set, 100 MiB.
  write_run("redis-none-r1", "{}", "load_done", 4, {{10 * MiB, 0}, {50 * MiB, 0}, {90 * MiB, 0}, {100 * MiB, 0}},
            100 * MiB, true);
  // memory.high 64M: each second the counter rises by 2 sleeps (34) at 80 MiB.
  write_run("redis-high-r1", R"({"high":67108864})", "cap", 4, {{10 * MiB, 0}, {80 * MiB, 34}, {80 * MiB, 68}, {80 * MiB, 102}},
            80 * MiB, false);
  std::ofstream(batch / "ignored.txt") << "not a run";
  auto runs = read_runs({batch.string()});
  ASSERT_TRUE(runs) << runs.error().message();
  auto programs = summarize_programs(*runs, 4);
  ASSERT_EQ(programs.size(), 2u);
  const ProgramRun* none = programs[0].name == "redis-none-r1" ? &programs[0] : &programs[1];
  const ProgramRun* high = none == &programs[0] ? &programs[1] : &programs[0];
  EXPECT_EQ(none->status, "load_done");
  EXPECT_EQ(none->load.format, "redis-benchmark-csv");
  EXPECT_DOUBLE_EQ(*none->rps, (19607.84 + 9000.50) / 2);
  EXPECT_DOUBLE_EQ(*none->p99_ms, (24.431 + 120.5) / 2);
  EXPECT_EQ(none->samples_in_d, 0u);
  EXPECT_DOUBLE_EQ(*none->psi_some_s, 2.5);
  // The slices: the first point came at 0.5 s (slice 0), the second at 3.5 s (slice 3).
  ASSERT_EQ(none->slices.size(), 4u);
  EXPECT_DOUBLE_EQ(*none->slices[0].rps, 19607.84);
  EXPECT_FALSE(none->slices[1].rps);
  EXPECT_DOUBLE_EQ(*none->slices[3].p99_ms, 120.5);

  EXPECT_EQ(high->samples_in_d, 3u);
  EXPECT_EQ(high->top_wchan, "mem_cgroup_handle_over_high");
  EXPECT_DOUBLE_EQ(high->throttled_sampled_s, 3.0);
  // 80 MiB over 64 MiB at HZ=250: overage 0.25 -> ((2^18)^2 * 250 >> 34) = 1000 jiffies, clamped to 500 (2 s);
  // 2 sleeps a second would be 4 s, held to the 1 s tick: 3 ticks, 3 s.
  EXPECT_DOUBLE_EQ(high->throttled_estimated_s, 3.0);
  EXPECT_DOUBLE_EQ(*high->throttled_share, 0.75);  // 3 s of 4
  // 128 pages faulted a second, 2 sleeps a second: one sleep per charge batch.
  EXPECT_EQ(high->sleeps, 6u);
  EXPECT_EQ(high->pages_faulted_over_high, 384u);
  EXPECT_DOUBLE_EQ(*high->pages_per_sleep, 64.0);
  EXPECT_FALSE(none->pages_per_sleep);
  EXPECT_EQ(*high->working_set, 100 * MiB);
  EXPECT_EQ(high->working_set_from, "redis-none-r1");
  EXPECT_TRUE(high->verdict.starts_with("throttled")) << high->verdict;
  EXPECT_TRUE(high->load.format.empty());

  auto sections = program_sections(programs);
  ASSERT_EQ(sections.size(), 3u);
  EXPECT_EQ(sections[0].tables[0].rows.size(), 2u);
  EXPECT_NE(sections[0].paragraphs.back().find("No load results read for redis-high-r1"), std::string::npos);
  auto j = to_json(*high);
  EXPECT_EQ(j["status"], "cap");
  EXPECT_EQ(j["events"]["high"], 102);
  EXPECT_EQ(j["high"], 67108864);
  EXPECT_TRUE(j["max"].is_null());
  EXPECT_TRUE(program_sections({}).empty());
}

TEST_F(RunDirFixture, ReportWritesProgramsMdOnlyForCommandRuns) {
  write_run("redis-none-r1", "{}", "load_done", 4, {{1 << 20, 0}, {2 << 20, 0}}, 2 << 20, true);
  auto written = make_report({.dirs = {batch.string()}, .out = (batch / "report").string(), .html = false});
  ASSERT_TRUE(written) << written.error().message();
  EXPECT_TRUE(fs::exists(batch / "report" / "programs.md"));
  EXPECT_EQ(written->json["programs"].size(), 1u);
}

TEST_F(RunDirFixture, ARefusedValueNamesTheFileAndLine) {
  write_run("redis-none-r1", "{}", "load_done", 4, {{1 << 20, 0}, {2 << 20, 0}}, 2 << 20, false);
  std::ofstream(batch / "redis-none-r1" / "load.stdout") << "\"SET\",\"-5.00\"\n";
  auto runs = read_runs({batch.string()});
  ASSERT_TRUE(runs) << runs.error().message();
  auto programs = summarize_programs(*runs, 4);
  ASSERT_EQ(programs.size(), 1u);
  EXPECT_FALSE(programs[0].rps);
  std::string file = (batch / "redis-none-r1" / "load.stdout").string();
  auto said = program_sections(programs)[0].paragraphs;
  EXPECT_NE(std::find(said.begin(), said.end(),
                      "Load output not read: redis-none-r1: " + file +
                          " line 1: '-5.00' is not a finite decimal number of 0 or more; not read."),
            said.end())
      << ::testing::PrintToString(said);
}

TEST_F(RunDirFixture, ATooLargeLoadOutputSaysSoAndNamesTheFile) {
  write_run("redis-none-r1", "{}", "load_done", 4, {{1 << 20, 0}, {2 << 20, 0}}, 2 << 20, true);
  fs::path file = batch / "redis-none-r1" / "load.stdout";
  fs::resize_file(file, (uint64_t{64} << 20) + 1);  // sparse: costs no disk
  auto runs = read_runs({batch.string()});
  ASSERT_TRUE(runs) << runs.error().message();
  auto programs = summarize_programs(*runs, 4);
  ASSERT_EQ(programs.size(), 1u);
  EXPECT_EQ(programs[0].load_error,
            "the load's output is larger than 67108864 bytes: " + file.string() + " (is this the right file?)");
  std::string said = program_sections(programs)[0].paragraphs.back();
  EXPECT_EQ(said.find("none of the formats"), std::string::npos) << said;
  EXPECT_NE(said.find("larger than 67108864 bytes: " + file.string()), std::string::npos) << said;
}

// Binary bytes in load.stdout (here a test name) never fail the report:
// report.json and --json stay valid JSON, the bytes replaced.
TEST_F(RunDirFixture, BinaryLoadOutputKeepsTheReportAndItsJsonValid) {
  write_run("redis-none-r1", "{}", "load_done", 4, {{1 << 20, 0}, {2 << 20, 0}}, 2 << 20, false);
  std::ofstream(batch / "redis-none-r1" / "load.stdout") << "\"S\xff\xfe\x01T\",\"100\"\n\x00\x80\xc3\n";
  auto written = make_report({.dirs = {batch.string()}, .out = (batch / "report").string(), .html = false});
  ASSERT_TRUE(written) << written.error().message();
  std::ifstream in(batch / "report" / "report.json");
  auto j = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["programs"][0]["load_points"][0]["test"], "S\xef\xbf\xbd\xef\xbf\xbd\x01T");
  EXPECT_EQ(j["programs"][0]["load_rps"], 100);
  std::string cmd = std::string(CGMEM_BINARY) + " report " + batch.string() + " --out " + (batch / "r2").string() +
                    " --json 2>/dev/null";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string text;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) text.append(buf, n);
  EXPECT_EQ(pclose(pipe), 0);
  EXPECT_FALSE(nlohmann::json::parse(text, nullptr, false).is_discarded()) << text.substr(0, 200);
}

}  // namespace
