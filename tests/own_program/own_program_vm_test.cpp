// What the own-program boot brought back (tests/own_program/vm/run.sh):
// Redis under `cgmem run --command` with redis-benchmark as its load, with no
// limit and under a memory.max it outgrows, and the kernel's memory-controller
// selftest run on the run disk with loopback up.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kOut = CGMEM_OWN_OUT;

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

json read_json(const fs::path& path) { return json::parse(read(path), nullptr, false); }

// report.json for both runs, made on the host by this build's cgmem.
const json& report() {
  static json cached = [] {
    fs::path out = fs::temp_directory_path() / ("cgmem-own-report-" + std::to_string(::getpid()));
    std::string command = std::string(CGMEM_BINARY) + " report " + (kOut / "runs").string() + " --out " +
                          out.string() + " --format md,json > /dev/null";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    json j = read_json(out / "report.json");
    EXPECT_TRUE(fs::exists(out / "programs.md"));
    fs::remove_all(out);
    return j;
  }();
  return cached;
}

const json* program(const std::string& name) {
  for (const auto& p : report()["programs"])
    if (p["name"] == name) return &p;
  return nullptr;
}

TEST(OwnProgramVm, TheGuestHasLoopbackUp) {
  json record = read_json(kOut.string() + ".vm.json");
  EXPECT_EQ(record["guest"]["loopback"], "up") << record.dump(2);
}

TEST(OwnProgramVm, RedisWithoutLimitServesItsLoad) {
  fs::path run = kOut / "runs/redis-none";
  EXPECT_EQ(read(kOut / "redis-none.status"), "0\n") << read(kOut / "redis-none.txt");
  json outcome = read_json(run / "outcome.json");
  // Six rounds of redis-benchmark, then the load ends and the driver stops the server (or the cap came first).
  EXPECT_TRUE(outcome["status"] == "load_done" || outcome["status"] == "cap") << outcome.dump(2);
  EXPECT_EQ(outcome["events"]["oom_kill"], 0);
  EXPECT_TRUE(outcome["ops"].is_null());
  EXPECT_EQ(outcome["load"]["started"], true);
  EXPECT_FALSE(fs::exists(run / "ops.jsonl"));
  EXPECT_FALSE(read_json(run / "meta.json")["spec"]["op_lines"].get<bool>());
  const json* p = program("redis-none");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ((*p)["load_format"], "redis-benchmark-csv");
  ASSERT_GE((*p)["load_points"].size(), 1u);
  EXPECT_GT((*p)["load_rps"].get<double>(), 0);
  EXPECT_GT((*p)["load_p99_ms"].get<double>(), 0);
  EXPECT_TRUE((*p)["load_points"][0]["t_s"].is_number());  // timed through load.times.jsonl
  // 20000 keys of 2 KiB can reach ~45 MiB; whatever it reached, the server held more than 8 MiB.
  EXPECT_GT((*p)["peak_bytes"].get<uint64_t>(), 8u << 20);
}

TEST(OwnProgramVm, RedisOverMemoryMaxIsOomKilled) {
  fs::path run = kOut / "runs/redis-max";
  json outcome = read_json(run / "outcome.json");
  EXPECT_EQ(outcome["status"], "oom_killed") << outcome.dump(2) << read(run / "load.stderr");
  EXPECT_GE(outcome["events"]["oom_kill"].get<uint64_t>(), 1u);
  // memory.max holds, within the socket buffers the kernel force-charges past it
  // (TCP receive memory is charged with no limit check): 352 KiB and 708 KiB over in two boots.
  EXPECT_LE(outcome["peak_bytes"].get<uint64_t>(), (24u << 20) + (2u << 20));
  EXPECT_GT(outcome["peak_bytes"].get<uint64_t>(), 20u << 20);
  EXPECT_LT(outcome["time_to_kill_s"].get<double>(), 12);
  const json* p = program("redis-max");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ((*p)["status"], "oom_killed");
  // The model's verdict for the working set measured without a limit.
  EXPECT_EQ((*p)["working_set_from"], "redis-none");
  if ((*p)["working_set_bytes"].get<uint64_t>() > (24u << 20)) {
    EXPECT_TRUE((*p)["verdict"].get<std::string>().starts_with("OOM kill")) << (*p)["verdict"];
  }
}

// cgmem advise on the run without limits, verified by running Redis and its
// load again under the advice: it fits, is not killed, does not stall, and
// its load is served.
TEST(OwnProgramVm, RedisUnderAdvisesLimitsFitsAsPredicted) {
  EXPECT_EQ(read(kOut / "advise-redis.status"), "0\n") << read(kOut / "advise-redis.err");
  json a = read_json(kOut / "advise-redis.json");
  ASSERT_TRUE(a.is_object()) << read(kOut / "advise-redis.err");
  EXPECT_EQ(a["predictions"][0]["verdict"]["verdict"], "fits");
  EXPECT_GT(a["memory_max_bytes"].get<uint64_t>(), a["working_set_bytes"].get<uint64_t>());
  const json& v = a["verify"];
  EXPECT_EQ(v["holds"], true) << v.dump(2);
  EXPECT_TRUE(v["status"] == "load_done" || v["status"] == "cap") << v.dump(2);
  std::vector<std::string> checks;
  for (const json& c : v["checks"]) checks.push_back(c["what"]);
  EXPECT_EQ(checks, (std::vector<std::string>{"killed", "stalled share", "load"})) << v.dump(2);
  json limited = read_json(kOut / "advise-redis-verify/meta.json");
  EXPECT_EQ(limited["limits"]["max"], a["memory_max_bytes"]);
}

TEST(OwnProgramVm, KernelSelftestPassesWithLoopbackUp) {
  if (!CGMEM_SELFTEST) GTEST_SKIP() << "no /usr/src/linux-source-6.12.tar.xz at configure time: selftest not built";
  std::string log = read(kOut / "selftest/log");
  ASSERT_FALSE(log.empty()) << "no selftest/log";
  // TAP lines: "ok 11 test_memcg_sock"; "ok 10 # SKIP test_memcg_swap_max_peak" (no swap here).
  EXPECT_NE(log.find("ok 11 test_memcg_sock"), std::string::npos) << log;
  EXPECT_EQ(log.find("not ok"), std::string::npos) << log;
  EXPECT_NE(log.find("test_memcg_oom_group_score_events"), std::string::npos) << log;  // it ran to the end
  // A first run with a failure was run again (run.sh): say what failed in it.
  std::istringstream first(read(kOut / "selftest/log.1"));
  for (std::string line; std::getline(first, line);)
    if (line.starts_with("not ok")) std::cout << "selftest: the first run failed '" << line << "'; it was run once more\n";
}

}  // namespace
