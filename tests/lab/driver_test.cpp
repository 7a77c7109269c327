// The run driver without a kernel: its cgroups on a fixture tree
// (fixture_cgroupfs.h), its workload a real /bin/sleep, its clock a fake one
// that jumps to each deadline, so the cap and a signal come at a known tick.
// What the kernel does to the workload is tested in the VM (lab_vm_test.cpp).
#include "lab/run_driver.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "support/fixture.h"
#include "fixture_cgroupfs.h"
#include "cgroup/lists.h"
#include "cgroup/reader.h"
#include "lab/marker.h"
#include "support/vm_out.h"

namespace cgmem::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::fixture_path;
using testing::slurp;

constexpr uint64_t kStart = 5'000'000'000;  // the fake clock's time when the workload starts
constexpr uint64_t kMs = 1'000'000;

// Jumps to each deadline at once; `after_sleep` sees the time it jumped to.
class FakeClock final : public Clock {
 public:
  uint64_t now_ns() override { return now; }
  void sleep_until(uint64_t deadline_ns, int) override {
    now = std::max(now, deadline_ns);
    if (after_sleep) after_sleep(now - kStart);
  }
  uint64_t now = kStart;
  std::function<void(uint64_t since_start)> after_sleep;
};

// The driver pins itself; a test gets back the CPUs it had.
class AffinityScope {
 public:
  AffinityScope() { ::sched_getaffinity(0, sizeof saved_, &saved_); }
  ~AffinityScope() { ::sched_setaffinity(0, sizeof saved_, &saved_); }
  unsigned some_cpu() const {
    for (unsigned cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &saved_)) return cpu;
    return 0;
  }

 private:
  cpu_set_t saved_{};
};

// The file's lines that are whole JSON, and all its lines.
std::pair<size_t, size_t> json_lines(const std::string& path) {
  std::string text = slurp(path);
  return {testing::json_lines_of(text).size(), static_cast<size_t>(std::count(text.begin(), text.end(), '\n'))};
}

// The mark the driver set on `path` through the fixture's effects (the
// real trusted.* xattr needs CAP_SYS_ADMIN, so the double keeps it).
std::optional<Mark> mark_set_on(const testing::FixtureCgroupfs& fixture, const std::string& path) {
  auto on = fixture.xattrs.find(path);
  if (on == fixture.xattrs.end() || !on->second.contains(kMarkAttr)) return std::nullopt;
  return parse_mark(on->second.at(kMarkAttr));
}

class DriverTest : public ::testing::Test {
 protected:
  DriverTest() : cgroupfs_(fixture_path("cgroup-v2-6.12-throttled/lab-run1")) {
    mount_ = tmp_.copy_fixture("cgroup-v2-6.12-throttled/root", "cgroupfs");
    fs::create_directories(mount_ + "/system.slice");  // not the driver's
    testing::spit(mount_ + "/system.slice/cgroup.procs", "1\n");
  }
  std::optional<Mark> mark_on(const std::string& path) { return mark_set_on(cgroupfs_, path); }

  DriverSetup setup() {
    RunOptions o{.name = "t1", .max = Limit::of(32 << 20), .cpu = affinity_.some_cpu(),
                 .sampler_cpu = affinity_.some_cpu(), .cap_ns = 1000 * kMs,
                 .command = {"/bin/sleep", "600"}};
    DriverSetup s{.options = o, .self_exe = "/nonexistent/cgmem", .parent = mount_, .run_dir = run_dir(),
                  .machine = {.cpus = 1}, .host = {{"kernel", "fixture"}}, .code = {{"git_commit", "abc"}}};
    s.system = {.cgroup2_mount = mount_, .cgroupfs = &cgroupfs_, .proc_root = "/proc",
                .kmsg = tmp_.path() + "/no-kmsg", .clock = &clock_, .spawner = &cgroupfs_};
    return s;
  }
  std::string run_dir() const { return tmp_.path() + "/run"; }
  std::string cgroup() const { return mount_ + "/t1"; }
  json read_json(const char* name) const { return json::parse(slurp(run_dir() + "/" + name), nullptr, false); }

  // Every process the driver spawned has ended and been reaped by it.
  void expect_children_ended() {
    ASSERT_FALSE(cgroupfs_.pids.empty());
    for (pid_t pid : cgroupfs_.pids) {
      EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1) << pid << " was not reaped";
      EXPECT_EQ(::kill(pid, 0), -1) << pid << " still runs";
    }
  }

  AffinityScope affinity_;
  testing::TempDir tmp_;
  std::string mount_;
  testing::FixtureCgroupfs cgroupfs_;
  FakeClock clock_;
};

TEST_F(DriverTest, StopsAtTheCapAndSaysSo) {
  auto result = run_experiment(setup());
  ASSERT_TRUE(result.has_value()) << result.error().message();
  json outcome = read_json("outcome.json");
  EXPECT_EQ(outcome["status"], "cap");
  EXPECT_EQ(outcome["signal"], SIGKILL);
  EXPECT_EQ(outcome["duration_s"], 1.0);
  EXPECT_EQ(outcome["errors"], json::array());
  // A tick every 100 ms from 0 to 900 ms, and the last one at the cap.
  EXPECT_EQ(outcome["samples"], 11);
  EXPECT_EQ(json_lines(run_dir() + "/samples.jsonl"), std::make_pair(size_t{11}, size_t{11}));
  EXPECT_EQ(outcome, result->outcome_json);
  json meta = read_json("meta.json");
  EXPECT_EQ(meta["cgroup"], cgroup());
  EXPECT_EQ(meta["limits"]["max"], 33554432);
  EXPECT_EQ(meta["spec"]["cap_s"], 1.0);
  EXPECT_EQ(meta["workload"], (json{{"kind", "command"}, {"argv", {"/bin/sleep", "600"}}}));
  EXPECT_EQ(meta["spec"]["kernel_log"], false);
  expect_children_ended();
}

TEST_F(DriverTest, RunsTheWorkloadInTheMarkedCgroupItCreated) {
  std::optional<Mark> mark;
  std::string procs;
  clock_.after_sleep = [&](uint64_t) {
    if (mark) return;
    mark = mark_on(cgroup());
    procs = slurp(cgroup() + "/cgroup.procs");
  };
  ASSERT_TRUE(run_experiment(setup()).has_value());
  ASSERT_TRUE(mark.has_value());
  EXPECT_EQ(mark->driver, ::getpid());
  EXPECT_EQ(mark->run_dir, run_dir());
  ASSERT_EQ(cgroupfs_.pids.size(), 1u);
  EXPECT_EQ(procs, std::to_string(cgroupfs_.pids[0]));
  EXPECT_EQ(cgroupfs_.argvs, (std::vector<std::vector<std::string>>{{"/bin/sleep", "600"}}));
}

TEST_F(DriverTest, RemovesTheCgroupItCreatedAndNothingElse) {
  ASSERT_TRUE(run_experiment(setup()).has_value());
  EXPECT_EQ(cgroupfs_.removed, std::vector<std::string>{cgroup()});
  EXPECT_FALSE(fs::exists(cgroup()));
  EXPECT_EQ(slurp(mount_ + "/system.slice/cgroup.procs"), "1\n");
  EXPECT_TRUE(fs::exists(mount_ + "/cgroup.controllers"));
}

TEST_F(DriverTest, NeverRemovesACgroupOfTheSameNameItDidNotCreate) {
  fs::create_directories(cgroup());
  testing::spit(cgroup() + "/cgroup.procs", "4242\n");
  auto result = run_experiment(setup());
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().message(),
            "create cgroup: " + cgroup() + ": File exists (a cgroup of that name exists: choose another --name, "
            "or run `cgmem gc` if a killed run left it)");
  EXPECT_EQ(cgroupfs_.removed, std::vector<std::string>{});
  EXPECT_EQ(slurp(cgroup() + "/cgroup.procs"), "4242\n");
  EXPECT_FALSE(fs::exists(run_dir()));  // nothing was started: nothing left behind
  EXPECT_TRUE(cgroupfs_.pids.empty());
}

TEST_F(DriverTest, ARefusedLimitRemovesTheCgroupItHadCreated) {
  DriverSetup s = setup();
  s.options.high_throttle = 4;  // the fixture, like an unpatched kernel, has no memory.high.throttle
  auto result = run_experiment(s);
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().err, ENOENT);
  EXPECT_EQ(cgroupfs_.removed, std::vector<std::string>{cgroup()});
  EXPECT_FALSE(fs::exists(run_dir()));
  EXPECT_TRUE(cgroupfs_.pids.empty());
}

// What a neighbour cgroup looked like while the run ran.
struct SeenNeighbour {
  std::optional<Mark> mark;
  std::vector<pid_t> pids;
  bool alive = false;
};

std::map<std::string, SeenNeighbour> look_at(const std::vector<std::string>& paths,
                                            const testing::FixtureCgroupfs& fixture) {
  std::map<std::string, SeenNeighbour> seen;
  for (const auto& path : paths) {
    SeenNeighbour n{.mark = mark_set_on(fixture, path)};
    auto text = cgroup::read_text(path + "/cgroup.procs");
    if (text) n.pids = cgroup::parse_procs(*text, "cgroup.procs").value_or(n.pids);
    n.alive = n.pids.size() == 1 && ::kill(n.pids[0], 0) == 0;
    seen[path] = n;
  }
  return seen;
}

// --neighbours 3: three cgroups of the driver's own, marked, one running
// neighbour in each by the workload's first tick; removed at the end with
// the run's cgroup, each neighbour reaped.
TEST_F(DriverTest, StartsEachNeighbourInAMarkedCgroupOfItsOwnAndRemovesThem) {
  DriverSetup s = setup();
  s.options.neighbour_ns = 100 * kMs, s.options.neighbours = 3;
  const std::vector<std::string> paths = {cgroup() + "-neighbour-1", cgroup() + "-neighbour-2",
                                          cgroup() + "-neighbour-3"};
  std::map<std::string, SeenNeighbour> seen;
  clock_.after_sleep = [&](uint64_t) {
    if (seen.empty()) seen = look_at(paths, cgroupfs_);
  };
  auto result = run_experiment(s);
  ASSERT_TRUE(result.has_value()) << result.error().message();
  ASSERT_EQ(seen.size(), 3u);
  std::set<pid_t> pids;
  for (const auto& path : paths) {
    const SeenNeighbour& n = seen[path];
    ASSERT_TRUE(n.mark.has_value()) << path;
    EXPECT_EQ(n.mark->driver, ::getpid());
    EXPECT_EQ(n.mark->run_dir, run_dir());
    ASSERT_EQ(n.pids.size(), 1u) << path;
    EXPECT_TRUE(n.alive) << path;
    pids.insert(n.pids[0]);
    EXPECT_FALSE(fs::exists(path));
    EXPECT_EQ(::waitpid(n.pids[0], nullptr, WNOHANG), -1) << path << "'s neighbour was not reaped";
  }
  EXPECT_EQ(pids.size(), 3u);
  EXPECT_EQ(cgroupfs_.removed, (std::vector<std::string>{cgroup(), paths[0], paths[1], paths[2]}));
  EXPECT_EQ(slurp(mount_ + "/system.slice/cgroup.procs"), "1\n");
  json spec = read_json("meta.json")["spec"];
  EXPECT_EQ(spec["neighbours"], 3);
  EXPECT_EQ(spec["neighbour_interval_ms"], 100.0);
  EXPECT_EQ(read_json("outcome.json")["errors"], json::array());
  expect_children_ended();
}

TEST_F(DriverTest, OneNeighbourKeepsItsCgroupName) {
  DriverSetup s = setup();
  s.options.neighbour_ns = 100 * kMs;
  std::map<std::string, SeenNeighbour> seen;
  clock_.after_sleep = [&](uint64_t) {
    if (seen.empty()) seen = look_at({cgroup() + "-neighbour"}, cgroupfs_);
  };
  ASSERT_TRUE(run_experiment(s).has_value());
  EXPECT_TRUE(seen[cgroup() + "-neighbour"].alive);
  EXPECT_EQ(cgroupfs_.removed, (std::vector<std::string>{cgroup(), cgroup() + "-neighbour"}));
  EXPECT_EQ(read_json("meta.json")["spec"]["neighbours"], 1);
}

// A cgroup of a neighbour's name that is not the driver's stops the run
// before anything starts; the driver removes what it made and only that.
TEST_F(DriverTest, NeverRemovesANeighbourCgroupItDidNotCreate) {
  std::string theirs = cgroup() + "-neighbour-2";
  fs::create_directories(theirs);
  testing::spit(theirs + "/cgroup.procs", "4242\n");
  DriverSetup s = setup();
  s.options.neighbour_ns = 100 * kMs, s.options.neighbours = 3;
  auto result = run_experiment(s);
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().err, EEXIST);
  EXPECT_EQ(cgroupfs_.removed, (std::vector<std::string>{cgroup(), cgroup() + "-neighbour-1"}));
  EXPECT_EQ(slurp(theirs + "/cgroup.procs"), "4242\n");
  EXPECT_FALSE(fs::exists(cgroup() + "-neighbour-3"));
  EXPECT_FALSE(fs::exists(run_dir()));
  EXPECT_TRUE(cgroupfs_.pids.empty());
}

class DriverSignalTest : public DriverTest, public ::testing::WithParamInterface<int> {};

// The signal comes while the driver sleeps before its 400 ms tick.
TEST_P(DriverSignalTest, AnInterruptedRunKeepsEverythingAndEndsItsChildren) {
  clock_.after_sleep = [signal = GetParam()](uint64_t since_start) {
    if (since_start == 400 * kMs) ::raise(signal);
  };
  DriverSetup s = setup();
  s.options.cap_ns = 60'000 * kMs;
  auto result = run_experiment(s);
  ASSERT_TRUE(result.has_value()) << result.error().message();
  json outcome = read_json("outcome.json");
  EXPECT_EQ(outcome["status"], "interrupted");
  EXPECT_EQ(outcome["duration_s"], 0.4);
  EXPECT_EQ(outcome["errors"], json::array());
  // Ticks at 0 to 300 ms, and the last one when the signal was seen.
  EXPECT_EQ(outcome["samples"], 5);
  EXPECT_EQ(json_lines(run_dir() + "/samples.jsonl"), std::make_pair(size_t{5}, size_t{5}));
  EXPECT_TRUE(read_json("meta.json").is_object());
  expect_children_ended();
  EXPECT_EQ(cgroupfs_.removed, std::vector<std::string>{cgroup()});
}

INSTANTIATE_TEST_SUITE_P(SigintAndSigterm, DriverSignalTest, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& info) { return info.param == SIGINT ? "Sigint" : "Sigterm"; });

}  // namespace
}  // namespace cgmem::lab
