// The Cgroup handle on a fixture tree copied to a temp dir, with the side
// effects recorded by RecordingEffects. Real-kernel behaviour (page
// rounding, cgroup.kill, populated 0) is tested in the VM.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "cgroup/cgroup.h"
#include "cgroup/files.h"
#include "support/fixture.h"
#include "recording_effects.h"

namespace cgmem::cgroup {
namespace {

using namespace std::chrono_literals;
using testing::RecordingEffects;
using testing::slurp;
using testing::spit;
using testing::TempDir;
using Calls = std::vector<std::string>;

class HandleTest : public ::testing::Test {
 protected:
  HandleTest() : effects(testing::fixture_path("cgroup-v2-6.12-throttled/lab-run1")) {
    root_path = dir.copy_fixture("cgroup-v2-6.12-throttled/root", "root");
  }
  Cgroup root() { return Cgroup::open(root_path, effects).value(); }
  Cgroup child(const std::string& name = "run1") {
    auto made = root().create_child(name);
    EXPECT_TRUE(made.has_value()) << made.error().message();
    effects.calls.clear();
    return std::move(*made);
  }

  TempDir dir;
  RecordingEffects effects;
  std::string root_path;
};

TEST_F(HandleTest, OpensAndReadsControllers) {
  Cgroup cg = root();
  EXPECT_EQ(cg.path(), root_path);
  EXPECT_EQ(cg.controllers().value(), (std::vector<std::string>{"cpuset", "cpu", "io", "memory",
                                                                "hugetlb", "pids", "rdma", "misc"}));
  EXPECT_EQ(cg.subtree_control().value(),
            (std::vector<std::string>{"cpuset", "cpu", "io", "memory", "pids"}));
}

TEST_F(HandleTest, OpenMissingIsVanishedWordForWord) {
  auto cg = Cgroup::open(root_path + "/gone", effects);
  ASSERT_FALSE(cg.has_value());
  EXPECT_TRUE(cg.error().vanished());
  EXPECT_EQ(cg.error().message(), "open cgroup: " + root_path + "/gone: No such file or directory");
}

TEST_F(HandleTest, EnablesOnlyControllersNotEnabledYet) {
  Cgroup cg = root();
  ASSERT_TRUE(cg.enable_controllers({"memory", "io"}).has_value());
  EXPECT_EQ(effects.calls, Calls{});
  ASSERT_TRUE(cg.enable_controllers({"memory", "hugetlb", "rdma"}).has_value());
  EXPECT_EQ(effects.calls, Calls{"write cgroup.subtree_control +hugetlb +rdma"});
}

TEST_F(HandleTest, EnablingAnUnavailableControllerIsAnErrorWordForWord) {
  Cgroup run = child();
  auto ok = run.enable_controllers({"memory", "cpuset"});
  ASSERT_FALSE(ok.has_value());
  EXPECT_EQ(ok.error().message(),
            "enable the cpuset controller: " + root_path +
                "/run1/cgroup.controllers (it is not available here: enable it in the parent's "
                "cgroup.subtree_control, or run under a delegated cgroup)");
  EXPECT_EQ(effects.calls, Calls{});
}

TEST_F(HandleTest, EnableRefusedWithProcessesHasAHint) {
  Cgroup cg = root();
  effects.refusals = {{"cgroup.subtree_control", EBUSY}};
  auto ok = cg.enable_controllers({"hugetlb"});
  ASSERT_FALSE(ok.has_value());
  EXPECT_EQ(ok.error().message(),
            "write '+hugetlb': " + root_path +
                "/cgroup.subtree_control: Device or resource busy (a cgroup with processes cannot "
                "enable controllers for its children: move them to a leaf cgroup first)");
}

TEST_F(HandleTest, CreatesAChildWithTheTemplatesFiles) {
  auto run = root().create_child("run1");
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(effects.calls, Calls{"mkdir run1"});
  EXPECT_EQ(run->path(), root_path + "/run1");
  EXPECT_EQ(run->read_limit(files::kMemoryMax).value(), Limit::of(67108864));
  EXPECT_EQ(run->read_limit(files::kMemorySwapMax).value(), Limit::max());
  EXPECT_EQ(run->populated().value(), false);
}

TEST_F(HandleTest, CreatingAnExistingChildIsAnErrorWordForWord) {
  child("run1");
  auto again = root().create_child("run1");
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().message(),
            "create cgroup: " + root_path +
                "/run1: File exists (it exists already: remove it or choose another name)");
}

TEST_F(HandleTest, ChildNamesAreChecked) {
  Cgroup cg = root();
  EXPECT_EQ(cg.create_child("").error().message(),
            "bad cgroup name '' (a name is one non-empty path component)");
  EXPECT_EQ(cg.create_child("..").error().message(),
            "bad cgroup name '..' ('.' and '..' are not cgroup names)");
  EXPECT_EQ(cg.create_child(".").error().message(),
            "bad cgroup name '.' ('.' and '..' are not cgroup names)");
  EXPECT_EQ(cg.create_child("a/b").error().message(),
            "bad cgroup name 'a/b' (a name is one path component, without '/')");
  EXPECT_EQ(cg.create_child(std::string_view("a\0b", 3)).error().message(),
            "bad cgroup name 'a' (a name cannot contain a NUL byte)");
  EXPECT_TRUE(Cgroup::check_name("run..1").has_value());
  EXPECT_EQ(effects.calls, Calls{});
}

TEST_F(HandleTest, SetLimitReturnsTheValueReadBack) {
  Cgroup run = child();
  effects.round_to_pages = true;
  auto high = run.set_limit(files::kMemoryHigh, Limit::of(30198988));
  ASSERT_TRUE(high.has_value());
  EXPECT_EQ(*high, Limit::of(30195712));
  EXPECT_EQ(run.set_limit(files::kMemoryMax, Limit::max()).value(), Limit::max());
  EXPECT_EQ(effects.calls, (Calls{"write memory.high 30198988", "write memory.max max"}));
  EXPECT_EQ(slurp(run.path() + "/memory.max"), "max");
}

TEST_F(HandleTest, AMissingLimitFileNamesTheController) {
  Cgroup run = child();
  ::unlink((run.path() + "/memory.low").c_str());
  auto low = run.set_limit(files::kMemoryLow, Limit::of(1048576));
  ASSERT_FALSE(low.has_value());
  EXPECT_EQ(low.error().message(),
            "write '1048576': " + run.path() +
                "/memory.low: No such file or directory (the memory controller is not enabled in " +
                root_path + "/cgroup.subtree_control: enable it, or run under a delegated cgroup)");
}

TEST_F(HandleTest, APermissionErrorHasAHint) {
  Cgroup run = child();
  effects.refusals = {{"memory.max", EACCES}};
  EXPECT_EQ(run.set_limit(files::kMemoryMax, Limit::of(4096)).error().message(),
            "write '4096': " + run.path() +
                "/memory.max: Permission denied (run as root, or under a cgroup delegated to you)");
}

TEST_F(HandleTest, ABadLimitFileIsAnErrorNamingThePath) {
  Cgroup run = child();
  spit(run.path() + "/memory.min", "lots\n");
  EXPECT_EQ(run.read_limit(files::kMemoryMin).error().message(),
            "parse " + run.path() + "/memory.min: expected a number of bytes or 'max', got 'lots'");
}

TEST_F(HandleTest, SetIoMaxWritesOneLineAndReadsTheDeviceBack) {
  Cgroup run = child();
  IoMax want{.device = {254, 0}, .rbps = Limit::of(20971520)};
  auto got = run.set_io_max(want);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(effects.calls, Calls{"write io.max 254:0 rbps=20971520"});
  EXPECT_EQ(got->rbps, Limit::of(20971520));
  // The kernel drops the line of a device whose limits are all max.
  effects.kernel_keeps = {{"io.max", ""}};
  auto other = run.set_io_max(IoMax{.device = {8, 0}, .wbps = Limit::max()});
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->wbps, Limit::max());
  EXPECT_EQ(other->rbps, Limit::max());
}

TEST_F(HandleTest, AnUnknownDeviceInIoMaxHasAHint) {
  Cgroup run = child();
  effects.refusals = {{"io.max", ENODEV}};
  auto got = run.set_io_max(IoMax{.device = {0, 45}, .rbps = Limit::of(1048576)});
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().message(),
            "write '0:45 rbps=1048576': " + run.path() +
                "/io.max: No such device (io.max takes the MAJ:MIN of a whole disk the kernel "
                "knows (io_device_for(path) finds it), and byte or I/O rates as numbers or max)");
}

TEST_F(HandleTest, ReadsTheFilesTheSamplerWants) {
  auto run = Cgroup::open(dir.copy_fixture("cgroup-v2-6.12-throttled/lab-run1", "lab-run1"), effects);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->read_counter(files::kMemoryCurrent).value(), 34140160u);
  EXPECT_EQ(run->memory_events()->high, 309u);
  EXPECT_EQ(run->memory_stat()->anon, 33566720u);
  EXPECT_EQ(run->pressure(files::kMemoryPressure)->some->total_usec, 6027841u);
  EXPECT_EQ(run->procs().value(), std::vector<pid_t>{158});
  EXPECT_EQ(run->populated().value(), true);
  std::array<char, 64> buffer;
  auto reader = run->reader(files::kMemoryCurrent);
  ASSERT_TRUE(reader.has_value());
  EXPECT_EQ(reader->read(buffer).value(), "34140160\n");
}

TEST_F(HandleTest, KillAllWritesCgroupKill) {
  Cgroup run = child();
  ASSERT_TRUE(run.kill_all().has_value());
  EXPECT_EQ(effects.calls, Calls{"write cgroup.kill 1"});
}

TEST_F(HandleTest, KillAllWithoutCgroupKillSignalsEachPidOnce) {
  Cgroup run = child();
  ::unlink((run.path() + "/cgroup.kill").c_str());
  spit(run.path() + "/cgroup.procs", "158\n161\n");
  ASSERT_TRUE(run.kill_all().has_value());
  EXPECT_EQ(effects.calls, (Calls{"write cgroup.kill 1", "kill 158 9", "kill 161 9"}));
}

TEST_F(HandleTest, WaitEmptyReturnsAtPopulatedZero) {
  Cgroup run = child();
  EXPECT_TRUE(run.wait_empty(1000ms).has_value());
}

TEST_F(HandleTest, WaitEmptyWakesWhenCgroupEventsChanges) {
  Cgroup run = child();
  spit(run.path() + "/cgroup.events", "populated 1\nfrozen 0\n");
  std::thread emptier([&] {
    std::this_thread::sleep_for(50ms);
    // In place, one byte changing, as the kernel's file never reads empty
    // (spit truncates first, and a read between would see an empty file).
    int fd = ::open((run.path() + "/cgroup.events").c_str(), O_WRONLY);
    (void)!::pwrite(fd, "0", 1, std::string_view("populated ").size());
    ::close(fd);
  });
  auto start = std::chrono::steady_clock::now();
  auto ok = run.wait_empty(5000ms);
  auto took = std::chrono::steady_clock::now() - start;
  emptier.join();
  EXPECT_TRUE(ok.has_value());
  EXPECT_LT(took, 2000ms);
}

TEST_F(HandleTest, WaitEmptyTimesOutWordForWord) {
  Cgroup run = child();
  spit(run.path() + "/cgroup.events", "populated 1\nfrozen 0\n");
  auto ok = run.wait_empty(50ms);
  ASSERT_FALSE(ok.has_value());
  EXPECT_EQ(ok.error().err, ETIMEDOUT);
  EXPECT_EQ(ok.error().message(),
            "wait for the cgroup to empty: " + run.path() +
                "/cgroup.events: Connection timed out (still populated after 50 ms: something in "
                "it survived SIGKILL (D state?))");
}

TEST_F(HandleTest, PopulatedWithoutTheKeyIsAnErrorWordForWord) {
  Cgroup run = child();
  spit(run.path() + "/cgroup.events", "frozen 0\n");
  EXPECT_EQ(run.populated().error().message(),
            "read populated: " + run.path() +
                "/cgroup.events (the file has no 'populated' key: is this a cgroup v2 directory?)");
}

TEST_F(HandleTest, RemoveAndRecreateIsANewCgroup) {
  Cgroup run = child();
  EXPECT_TRUE(run.is_same());
  ASSERT_TRUE(run.remove().has_value());
  EXPECT_EQ(effects.calls, Calls{"rmdir run1"});
  EXPECT_FALSE(run.is_same());
  Cgroup again = child();
  EXPECT_FALSE(run.is_same());  // same path, another directory
  EXPECT_TRUE(again.is_same());
}

TEST_F(HandleTest, RemoveBusyIsAnErrorWordForWord) {
  Cgroup run = child();
  effects.remove_errno = EBUSY;
  EXPECT_EQ(run.remove().error().message(),
            "remove cgroup: " + run.path() +
                ": Device or resource busy (it still has processes or child cgroups: kill_all and "
                "wait_empty first, and remove the children)");
}

TEST_F(HandleTest, SpawnOnAFixtureForksAndWritesThePid) {
  Cgroup run = child();
  std::string out_path = dir.path() + "/out";
  int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  SpawnMethod method{};
  auto pid = run.spawn({.argv = {"echo", "hello"}, .stdout_fd = out}, &method);
  ::close(out);
  ASSERT_TRUE(pid.has_value()) << pid.error().message();
  int status = 0;
  ASSERT_EQ(::waitpid(*pid, &status, 0), *pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  // A temp dir is not a cgroup2 directory: clone3 says EBADF, fork takes over.
  EXPECT_EQ(method, SpawnMethod::fork_and_move);
  EXPECT_EQ(slurp(run.path() + "/cgroup.procs"), std::to_string(*pid));
  EXPECT_EQ(slurp(out_path), "hello\n");
}

TEST_F(HandleTest, SpawnOfAMissingProgramIsAnErrorWordForWord) {
  Cgroup run = child();
  auto pid = run.spawn({.argv = {"/nonexistent/program"}});
  ASSERT_FALSE(pid.has_value());
  EXPECT_EQ(pid.error().message(),
            "spawn /nonexistent/program: exec: " + run.path() + ": No such file or directory");
}

TEST_F(HandleTest, SpawnWithoutCgroupProcsIsAnErrorWordForWord) {
  Cgroup run = child();
  ::unlink((run.path() + "/cgroup.procs").c_str());
  auto pid = run.spawn({.argv = {"true"}});
  ASSERT_FALSE(pid.has_value());
  EXPECT_EQ(pid.error().message(),
            "spawn true: open: " + run.path() + "/cgroup.procs: No such file or directory");
  EXPECT_EQ(run.spawn({}).error().message(), "spawn: no command given");
}

TEST_F(HandleTest, AVanishedCgroupIsNoDataOneLayerUp) {
  Cgroup run = child();
  std::filesystem::remove_all(run.path());  // removed behind our back, fd still open
  auto events = run.memory_events();
  ASSERT_FALSE(events.has_value());
  EXPECT_TRUE(events.error().vanished());
  EXPECT_EQ(events.error().message(),
            "open: " + run.path() + "/memory.events: No such file or directory");
  EXPECT_TRUE(run.memory_stat().error().vanished());
  EXPECT_TRUE(run.pressure(files::kMemoryPressure).error().vanished());
  EXPECT_TRUE(run.procs().error().vanished());
  EXPECT_TRUE(run.read_counter(files::kMemoryCurrent).error().vanished());
}

TEST_F(HandleTest, AMalformedFileIsAnErrorNotVanished) {
  Cgroup run = child();
  spit(run.path() + "/memory.events", "nonsense\n");
  auto events = run.memory_events();
  ASSERT_FALSE(events.has_value());
  EXPECT_FALSE(events.error().vanished());
  EXPECT_EQ(events.error().message(),
            "parse " + run.path() + "/memory.events: no known key in 'nonsense'");
}

TEST_F(HandleTest, MoveWritesThePid) {
  Cgroup run = child();
  ASSERT_TRUE(run.move(4321).has_value());
  EXPECT_EQ(effects.calls, Calls{"write cgroup.procs 4321"});
  EXPECT_EQ(run.procs().value(), std::vector<pid_t>{4321});
}

}  // namespace
}  // namespace cgmem::cgroup
