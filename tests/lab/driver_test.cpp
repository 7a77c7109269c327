// The run driver without a kernel: its cgroups on a fixture tree
// (fixture_cgroupfs.h), its workload a real /bin/sleep, its clock a fake one
// that jumps to each deadline, so the cap and a signal come at a known tick.
// What the kernel does to the workload is tested in the VM (lab_vm_test.cpp).
#include "lab/run_driver.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <utility>

#include "support/fixture.h"
#include "fixture_cgroupfs.h"
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

// Setting trusted.* needs CAP_SYS_ADMIN; the driver refuses to run unmarked.
bool can_mark(const std::string& dir) {
  return ::setxattr(dir.c_str(), kMarkAttr, "probe", 5, 0) == 0 && ::removexattr(dir.c_str(), kMarkAttr) == 0;
}

// The file's lines that are whole JSON, and all its lines.
std::pair<size_t, size_t> json_lines(const std::string& path) {
  std::string text = slurp(path);
  return {testing::json_lines_of(text).size(), static_cast<size_t>(std::count(text.begin(), text.end(), '\n'))};
}

class DriverTest : public ::testing::Test {
 protected:
  DriverTest() : cgroupfs_(fixture_path("cgroup-v2-6.12-throttled/lab-run1")) {
    mount_ = tmp_.copy_fixture("cgroup-v2-6.12-throttled/root", "cgroupfs");
    fs::create_directories(mount_ + "/system.slice");  // not the driver's
    testing::spit(mount_ + "/system.slice/cgroup.procs", "1\n");
  }
  void SetUp() override {
    if (!can_mark(mount_)) GTEST_SKIP() << "setting " << kMarkAttr << " needs CAP_SYS_ADMIN";
  }

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
    mark = read_mark(cgroup());
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
