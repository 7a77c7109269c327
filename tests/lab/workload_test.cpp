#include "lab/workload.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <vector>

#include "lab_fixture.h"

namespace cgmem::lab {
namespace {

using testing::ThrottledTree;
constexpr uint64_t kKiB = 1024, kMiB = 1 << 20;

std::vector<nlohmann::json> lines_of(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::istringstream in(testing::slurp(path));
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

std::vector<nlohmann::json> run_in(ThrottledTree& tree, const WorkloadOptions& o) {
  auto counters = OwnCounters::open(tree.cgroup, o.set_own_high.has_value());
  EXPECT_TRUE(counters) << counters.error().message();
  std::string out = tree.tmp.path() + "/ops.jsonl";
  int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  auto code = run_workload(o, *counters, fd, [](const std::string& error) { ADD_FAILURE() << error; });
  ::close(fd);
  EXPECT_TRUE(code) << code.error().message();
  EXPECT_EQ(code.value_or(-1), 0);
  return lines_of(out);
}

TEST(Workload, GrowsToTheTargetThenChurns) {
  ThrottledTree tree;
  auto ops = run_in(tree, WorkloadOptions{.target_bytes = 2 * kMiB, .churn = 3});
  ASSERT_EQ(ops.size(), 8u + 3u);
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(ops[i]["op"], i);
    EXPECT_EQ(ops[i]["phase"], i < 8 ? "grow" : "churn");
    EXPECT_EQ(ops[i]["held_bytes"], std::min<uint64_t>(i + 1, 8) * 256 * kKiB);
    EXPECT_EQ(ops[i]["current_before"], 34140160u);  // the fixture's memory.current
    EXPECT_EQ(ops[i]["high_after"], 309u);
    EXPECT_EQ(ops[i]["pid"], ::getpid());
    EXPECT_GT(ops[i]["lat_ns"].get<uint64_t>(), 0u);
  }
  EXPECT_LT(ops[0]["t_ns"].get<uint64_t>(), ops[10]["t_ns"].get<uint64_t>());
}

TEST(Workload, ProcsSplitTheTarget) {
  ThrottledTree tree;
  auto ops = run_in(tree, WorkloadOptions{.target_bytes = 2 * kMiB, .churn = 1, .procs = 2});
  ASSERT_EQ(ops.size(), 2u * (4 + 1));
  std::set<int> pids;
  for (const auto& op : ops) pids.insert(op["pid"].get<int>());
  EXPECT_EQ(pids.size(), 2u);
  EXPECT_EQ(pids.count(::getpid()), 0u);  // the children did the work
}

TEST(Workload, SetOwnHighWritesItAndMapsOnePagePerOp) {
  ThrottledTree tree;
  auto ops = run_in(tree, WorkloadOptions{.target_bytes = 1 * kMiB, .churn = 2,
                                          .set_own_high = 28 * kMiB});
  ASSERT_EQ(ops.size(), 4u + 2u);
  EXPECT_EQ(ops[4]["phase"], "own_high");
  EXPECT_EQ(ops[4]["held_bytes"], kMiB + 4096);
  EXPECT_EQ(ops[5]["held_bytes"], kMiB + 8192);
  // One write at offset 0, as cgroupfs takes it; on the fixture's plain file
  // the old value's newline ("30195712\n") stays.
  EXPECT_EQ(testing::slurp(tree.cgroup + "/memory.high"), "29360128\n");
}

TEST(Workload, FileReadsTheTargetThenRandomChunksAndRemovesWhatItMade) {
  ThrottledTree tree;
  std::string file = tree.tmp.path() + "/data";
  auto ops = run_in(tree, WorkloadOptions{.target_bytes = 1 * kMiB, .churn = 5,
                                          .file = file, .file_size = 2 * kMiB});
  ASSERT_EQ(ops.size(), 4u + 5u);
  EXPECT_EQ(ops[3]["held_bytes"], kMiB);
  EXPECT_EQ(ops[8]["phase"], "churn");
  EXPECT_FALSE(std::filesystem::exists(file));
}

// An existing file is read as it is, never written nor removed.
TEST(Workload, FileThatExistsIsReadAndKept) {
  ThrottledTree tree;
  std::string file = tree.tmp.path() + "/theirs";
  std::string content(2 * kMiB, 'u');
  testing::spit(file, content);
  auto ops = run_in(tree, WorkloadOptions{.target_bytes = 1 * kMiB, .churn = 2,
                                          .file = file, .file_size = 2 * kMiB});
  EXPECT_EQ(ops.size(), 4u + 2u);
  EXPECT_EQ(testing::slurp(file), content);
}

Result<int> run_file(ThrottledTree& tree, const std::string& file, uint64_t file_size) {
  auto counters = OwnCounters::open(tree.cgroup, false);
  EXPECT_TRUE(counters);
  int fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  auto code = run_workload(WorkloadOptions{.target_bytes = 1 * kMiB, .file = file, .file_size = file_size},
                           *counters, fd, [](const std::string& error) { ADD_FAILURE() << error; });
  ::close(fd);
  return code;
}

TEST(Workload, FileShorterThanTheSizeIsRefusedUntouched) {
  ThrottledTree tree;
  std::string file = tree.tmp.path() + "/short";
  testing::spit(file, "precious\n");
  auto code = run_file(tree, file, 2 * kMiB);
  ASSERT_FALSE(code);
  EXPECT_EQ(code.error().message(),
            "--file exists and holds 9B, less than --file-size 2MiB: " + file +
                " (cgmem writes and removes only a file it creates: give a path that does not exist, "
                "or a file of at least --file-size)");
  EXPECT_EQ(testing::slurp(file), "precious\n");
}

TEST(Workload, FileThatIsNotRegularIsRefused) {
  ThrottledTree tree;
  auto null = run_file(tree, "/dev/null", 2 * kMiB);
  ASSERT_FALSE(null);
  EXPECT_EQ(null.error().message(), "--file is a character device: /dev/null (give the path of a regular file)");
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
  std::string fifo = tree.tmp.path() + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto piped = run_file(tree, fifo, 2 * kMiB);
  ASSERT_FALSE(piped);
  EXPECT_EQ(piped.error().message(), "--file is a FIFO: " + fifo + " (give the path of a regular file)");
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));
  auto dir = run_file(tree, tree.tmp.path(), 2 * kMiB);
  ASSERT_FALSE(dir);
  EXPECT_TRUE(std::filesystem::is_directory(tree.tmp.path()));
}

// A dangling symlink is not followed into creating its target.
TEST(Workload, FileThatIsADanglingSymlinkIsRefused) {
  ThrottledTree tree;
  std::string link = tree.tmp.path() + "/link", target = tree.tmp.path() + "/target";
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  auto code = run_file(tree, link, 2 * kMiB);
  ASSERT_FALSE(code);
  EXPECT_FALSE(std::filesystem::exists(target));
  EXPECT_TRUE(std::filesystem::is_symlink(link));
}

TEST(Workload, AMissingCgroupIsAClearError) {
  auto counters = OwnCounters::open("/nonexistent/cg", false);
  ASSERT_FALSE(counters);
  EXPECT_EQ(counters.error().hint,
            "run the workload under `cgmem run`, or point --cgroup-dir at a cgroup");
}

TEST(Workload, OwnCgroupDirFromProcSelfCgroup) {
  EXPECT_EQ(*own_cgroup_dir("/sys/fs/cgroup", "0::/cgmem/over\n"), "/sys/fs/cgroup/cgmem/over");
  EXPECT_EQ(*own_cgroup_dir("/sys/fs/cgroup", "0::/\n"), "/sys/fs/cgroup");
  EXPECT_EQ(own_cgroup_dir("/sys/fs/cgroup", "4:memory:/x\n").error().what,
            "/proc/self/cgroup has no cgroup v2 line (0::PATH)");
}

// The command end to end: --own-code execs an uncached copy that removes itself.
TEST(WorkloadCommand, OwnCodeRunsFromAnUncachedCopy) {
  ThrottledTree tree;
  std::string cmd = "cd " + tree.tmp.path() + " && " + CGMEM_BINARY +
                    " workload --target 512K --churn 1 --own-code --cgroup-dir " + tree.cgroup +
                    " > ops.jsonl 2> err.txt";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << testing::slurp(tree.tmp.path() + "/err.txt");
  EXPECT_EQ(lines_of(tree.tmp.path() + "/ops.jsonl").size(), 3u);
  std::string err = testing::slurp(tree.tmp.path() + "/err.txt");
  EXPECT_NE(err.find("own code: 0 of "), std::string::npos) << err;
  for (auto& entry : std::filesystem::directory_iterator(tree.tmp.path()))
    EXPECT_FALSE(entry.path().filename().string().starts_with(".cgmem-own-code-"));
}

// --own-code-size pads the copy past the binary; the copy walks it every op.
TEST(WorkloadCommand, OwnCodeSizePadsTheCopy) {
  ThrottledTree tree;
  uint64_t size = std::filesystem::file_size(CGMEM_BINARY) + kMiB + 100;
  std::string cmd = "cd " + tree.tmp.path() + " && " + CGMEM_BINARY + " workload --target 512K --churn 1 " +
                    "--own-code-size " + std::to_string(size) + " --cgroup-dir " + tree.cgroup +
                    " > ops.jsonl 2> err.txt";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << testing::slurp(tree.tmp.path() + "/err.txt");
  EXPECT_EQ(lines_of(tree.tmp.path() + "/ops.jsonl").size(), 3u);
  std::string err = testing::slurp(tree.tmp.path() + "/err.txt");
  EXPECT_NE(err.find(fmt::format("own code: 0 of {} pages", (size + 4095) / 4096)), std::string::npos) << err;
}

}  // namespace
}  // namespace cgmem::lab
