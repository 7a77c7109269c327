// The reader of trace.jsonl and of outcome.json's "trace" object
// (src/report/trace_read.h): each event read whole, each kind of line that
// is not valid counted as such, the bound said in the error.
#include "report/trace_read.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "support/temp_dir.h"
#include "trace_fixture.h"

namespace cgmem::report {
namespace {

namespace tr = testing::trace;

TEST(TraceRead, ReadsEachEventWhole) {
  TraceEvent e;
  ASSERT_EQ(parse_trace_line(tr::drain(-5, 400, "neighbour", "refill", 4250), e), TraceLine::event);
  EXPECT_EQ(e.t_ns, -5);
  EXPECT_EQ(e.pid, 400);
  const auto& d = std::get<StockDrain>(e.what);
  EXPECT_EQ(d.cgroup_id, 4242u);
  EXPECT_EQ(d.by_cgroup_id, 4250u);
  EXPECT_EQ(d.nr_pages, 63u);
  EXPECT_EQ(d.cause, DrainCause::refill);
  EXPECT_EQ(d.comm, "neighbour");

  ASSERT_EQ(parse_trace_line(tr::penalty(7, 311, true, 2500, 640), e), TraceLine::event);
  const auto& p = std::get<HighPenalty>(e.what);
  EXPECT_EQ(p.penalty_jiffies, 640u);
  EXPECT_EQ(p.reclaim_ns, 2500);
  EXPECT_EQ(p.passes, 17u);
  EXPECT_EQ(p.high_pages, 58982u);
  EXPECT_TRUE(p.sleeps);

  ASSERT_EQ(parse_trace_line(tr::sleep_end(9, 311, 640 * tr::kMs, 641 * tr::kMs, 3), e), TraceLine::event);
  EXPECT_EQ(std::get<HighSleep>(e.what).slept_ns, 641 * tr::kMs);
  EXPECT_EQ(std::get<HighSleep>(e.what).left_jiffies, 3u);

  ASSERT_EQ(parse_trace_line(tr::drain_all(1, 600, "cgmem", "memory_high_write", 4242), e), TraceLine::event);
  EXPECT_EQ(std::get<StockDrainAll>(e.what).caller, "memory_high_write");
  ASSERT_EQ(parse_trace_line(tr::waking(2, 311), e), TraceLine::event);
  EXPECT_EQ(std::get<SchedWaking>(e.what).target_pid, 311);
  // prev_state as a number is kept as its digits.
  ASSERT_EQ(parse_trace_line(
                R"({"t_ns":3,"cpu":1,"pid":0,"event":"sched_switch","prev_pid":0,"prev_state":2,"next_pid":311})", e),
            TraceLine::event);
  EXPECT_EQ(std::get<SchedSwitch>(e.what).prev_state, "2");
  EXPECT_EQ(std::get<SchedSwitch>(e.what).next_pid, 311);
  EXPECT_EQ(e.cpu, 1);
}

// What the schema refuses, one line each.
TEST(TraceRead, LinesThatAreNotValid) {
  auto with = [](const std::string& line, const char* key, const nlohmann::json& value) {
    auto j = nlohmann::json::parse(line);
    if (value.is_discarded())
      j.erase(key);
    else
      j[key] = value;
    return j.dump();
  };
  const std::string drain = tr::drain(1, 400, "x", "refill", 4250), pen = tr::penalty(1, 311, true);
  const nlohmann::json missing(nlohmann::json::value_t::discarded);
  std::vector<std::string> bad = {
      "not json",
      "[1,2]",
      R"({"t_ns":1,"cpu":0,"pid":1})",  // no event
      with(drain, "t_ns", 1.5),         // a fraction
      with(drain, "t_ns", "1"),         // a string
      R"({"t_ns":1e30,"cpu":0,"pid":1,"event":"sched_waking","target_pid":1,"target_comm":"a","target_cpu":0})",
      R"({"t_ns":99999999999999999999,"cpu":0,"pid":1,"event":"sched_waking","target_pid":1,"target_comm":"a","target_cpu":0})",
      with(drain, "cpu", 8192),  // past CONFIG_NR_CPUS
      with(drain, "cpu", -1),
      with(drain, "pid", 4194305),  // past PID_MAX_LIMIT
      with(drain, "cgroup_id", 0),
      with(drain, "nr_pages", 0),
      with(drain, "by_cgroup_id", -3),
      with(drain, "cause", "steal"),  // not a cause of the schema
      with(drain, "comm", 5),
      with(drain, "stock_cpu", missing),
      with(pen, "shift", 33),
      with(pen, "penalty_jiffies", 20001),  // past the 2 s clamp at HZ=10000
      with(pen, "sleeps", 1),
      with(pen, "reclaim_ns", -1),
      with(pen, "usage_pages", uint64_t{1} << 53),
      with(pen, "passes", uint64_t{1} << 32),
      with(tr::sleep_end(1, 311, 1, 1), "left_jiffies", missing),
      with(tr::switch_in(1, 311), "prev_state", nullptr),
      with(tr::waking(1, 311), "target_pid", 4194305),
  };
  for (const auto& line : bad) {
    TraceEvent e;
    EXPECT_EQ(parse_trace_line(line, e), TraceLine::bad) << line;
  }
  TraceEvent e;
  EXPECT_EQ(parse_trace_line(R"({"t_ns":1,"cpu":0,"pid":1,"event":"mm_page_alloc","order":0})", e),
            TraceLine::unknown_event);
}

// Sorted by time, stably; a truncated last line, bad lines and unknown
// events counted; other memcgs' drains counted and not kept.
TEST(TraceRead, SortsCountsAndKeepsTheRunsDrains) {
  std::string text = tr::waking(30, 1) + "\n" + tr::waking(10, 2) + "\n\n" + "{}\n" + tr::waking(10, 3) + "\n" +
                     tr::drain(5, 400, "x", "refill", 4250, 4250) + "\n" + tr::drain(6, 400, "x", "refill", 4250) +
                     "\n" + R"({"t_ns":1,"cpu":0,"pid":1,"event":"future"})" + "\n" + tr::waking(1, 4);
  TraceLog log = parse_trace(text, tr::kRunCgroup);
  EXPECT_EQ(log.lines, 7u);
  EXPECT_EQ(log.bad, 1u);
  EXPECT_EQ(log.truncated_last, 1u);
  EXPECT_EQ(log.unknown_events, 1u);
  EXPECT_EQ(log.not_kept, 1u);
  ASSERT_EQ(log.events.size(), 4u);
  std::vector<int64_t> t;
  for (const auto& e : log.events) t.push_back(e.t_ns);
  EXPECT_EQ(t, (std::vector<int64_t>{6, 10, 10, 30}));
  EXPECT_EQ(std::get<SchedWaking>(log.events[1].what).target_pid, 2);  // file order among equal times
  EXPECT_EQ(std::get<SchedWaking>(log.events[2].what).target_pid, 3);
  EXPECT_EQ(parse_trace(text).events.size(), 5u);  // without a run cgroup, every drain kept
}

TEST(TraceRead, ATraceOverTheBoundIsRefusedWithTheBound) {
  testing::TempDir tmp;
  std::string path = tmp.path() + "/trace.jsonl";
  std::ofstream(path) << tr::waking(1, 1) << "\n";
  ASSERT_TRUE(read_trace(path).has_value());
  std::filesystem::resize_file(path, kMaxTraceBytes + 1);  // sparse: costs no disk
  auto big = read_trace(path);
  ASSERT_FALSE(big.has_value());
  EXPECT_EQ(big.error().message(),
            "the run's trace.jsonl is larger than 268435456 bytes: " + path + " (is this the right file?)");
  std::string fifo = tmp.path() + "/fifo.jsonl";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto odd = read_trace(fifo);
  ASSERT_FALSE(odd.has_value());
  EXPECT_EQ(odd.error().message(), "the run's trace.jsonl is a FIFO: " + fifo + " (give the path of a regular file)");
}

TEST(TraceRead, TheOutcomesTraceFacts) {
  auto facts = parse_trace_facts(nlohmann::json::parse(R"({"events":12345,"lost":3,"lost_by_cpu":[1,2],
      "errors":["ring buffer full"],"run_cgroup_id":4242,"neighbour_cgroup_ids":[4250,-1],"driver_pid":201,
      "driver_cgroup_id":1,"cgroups":{"4242":"/claims-x","x":"/bad","1":"/","7":7},"hz":1000})"));
  EXPECT_EQ(facts.events, 12345u);
  EXPECT_EQ(facts.lost, 3u);
  EXPECT_EQ(facts.lost_by_cpu, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(facts.errors, std::vector<std::string>{"ring buffer full"});
  EXPECT_EQ(facts.run_cgroup_id, 4242u);
  EXPECT_EQ(facts.neighbour_cgroup_ids, std::vector<uint64_t>{4250});
  EXPECT_EQ(facts.driver_pid, 201);
  EXPECT_EQ(facts.cgroups, (std::map<uint64_t, std::string>{{1, "/"}, {4242, "/claims-x"}}));
  EXPECT_EQ(facts.hz, 1000);
  auto empty = parse_trace_facts(nlohmann::json::parse(R"({"lost":-1,"driver_pid":"201","hz":3})"));
  EXPECT_FALSE(empty.lost);
  EXPECT_FALSE(empty.driver_pid);
  EXPECT_FALSE(empty.hz);
  EXPECT_FALSE(empty.run_cgroup_id);
}

}  // namespace
}  // namespace cgmem::report
