// A batch on several kernels: one session per kernel, one after another,
// each a batch of its own in BATCH/LABEL, and BATCH/batch.json the index.
// The sessions here run the matrix in this process with a launcher that
// writes run directories itself, as the guest's `cgmem matrix` would.
#include "matrix/kernels.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "matrix/runner.h"
#include "support/temp_dir.h"

namespace cgmem::matrix {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

Json read_json(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return Json::parse(ss.str(), nullptr, false);
}

class WritingLauncher : public Launcher {
 public:
  Result<int> launch(const std::vector<std::string>& args, const std::function<void()>&) override {
    fs::path dir = args.at(4);
    fs::create_directories(dir);
    std::ofstream(dir / "meta.json") << R"({"schema":1,"name":")" << args.at(2) << R"(","claim_sha256":null})";
    if (interrupt_after >= 0 && launched++ >= interrupt_after) return 130;  // stopped before its outcome
    std::ofstream(dir / "outcome.json") << R"({"status":"cap"})";
    return 0;
  }
  int interrupt_after = -1;  // interrupt the run after this many (-1: none)
  int launched = 0;
};

// The guest's side of a session: `cgmem matrix --native --kernel-label L --out DIR`.
class InProcessSessions : public SessionRunner {
 public:
  explicit InProcessSessions(const MatrixSpec& spec) : spec_(spec) {}
  int run(const KernelSpec& k, const std::string& dir, bool resume) override {
    calls.push_back(k.label + (resume ? " resume" : ""));
    MatrixOptions o{.out_dir = dir, .resume = resume};
    o.plan.kernel = k.label;
    ProgressPrinter progress(nullptr);
    auto r = run_matrix(spec_, o, launcher, progress);
    if (!r) return 1;
    return r->interrupted ? 130 : 0;
  }
  std::vector<std::string> calls;
  WritingLauncher launcher;

 private:
  const MatrixSpec& spec_;
};

class MatrixKernelSessions : public ::testing::Test {
 protected:
  void SetUp() override {
    auto spec = parse_spec(R"(
name = "k"
reps = 1
[[kernels]]
name = "debian-6.12"
[[kernels]]
name = "hz1000-throttle-slots"
label = "slots7"
stock_slots = 7
[[configs]]
name = "high"
high = "28M"
[[workloads]]
name = "w"
args = ["--target", "40M"]
[[workloads]]
name = "nb8"
kernels = ["slots7"]
neighbours = 8
args = ["--target", "40M"]
)", (tmp_ / "k.toml").string());
    ASSERT_TRUE(spec.has_value()) << spec.error().message();
    spec_ = *spec;
    options_.out_dir = (tmp_ / "batch").string();
    options_.code = {{"git_commit", "abc"}};
  }
  Result<KernelBatchResult> run(InProcessSessions& sessions) {
    return run_kernel_sessions(spec_, options_, sessions, [&](const std::string& line) { said.push_back(line); });
  }

  cgmem::testing::TempDir temp_;
  fs::path tmp_ = temp_.dir();
  MatrixSpec spec_;
  MatrixOptions options_;
  std::vector<std::string> said;
};

TEST_F(MatrixKernelSessions, EachKernelIsABatchOfItsOwnInItsLabelsDirectory) {
  InProcessSessions sessions(spec_);
  auto r = run(sessions);
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(sessions.calls, (std::vector<std::string>{"debian-6.12", "slots7"}));
  fs::path b = tmp_ / "batch";
  EXPECT_TRUE(fs::exists(b / "debian-6.12/w-high-r1/outcome.json"));
  EXPECT_TRUE(fs::exists(b / "slots7/w-high-r1/outcome.json"));
  EXPECT_TRUE(fs::exists(b / "slots7/nb8-high-r1/outcome.json"));
  EXPECT_FALSE(fs::exists(b / "debian-6.12/nb8-high-r1"));
  // Each kernel's batch.json records its kernel and each run's label.
  Json sub = read_json(b / "slots7/batch.json");
  EXPECT_EQ(sub["kernel"], (Json{{"label", "slots7"}, {"name", "hz1000-throttle-slots"}, {"stock_slots", 7},
                                 {"swap", nullptr}, {"swap_kind", nullptr}, {"zswap", false}}));
  EXPECT_EQ(sub["runs"][1]["dir"], "nb8-high-r1");
  EXPECT_EQ(sub["runs"][1]["kernel"], "slots7");
  EXPECT_EQ(read_json(b / "debian-6.12/batch.json")["kernel"]["stock_slots"], nullptr);
  // The index: the kernels in order, their state, every run under its kernel.
  Json index = read_json(b / "batch.json");
  ASSERT_EQ(index["kernels"].size(), 2u);
  EXPECT_EQ(index["kernels"][0]["label"], "debian-6.12");
  EXPECT_EQ(index["kernels"][0]["dir"], "debian-6.12");
  EXPECT_EQ(index["kernels"][0]["state"], "finished");
  EXPECT_EQ(index["kernels"][1]["stock_slots"], 7);
  ASSERT_EQ(index["runs"].size(), 3u);
  EXPECT_EQ(index["runs"][2]["dir"], "slots7/nb8-high-r1");
  EXPECT_EQ(index["runs"][2]["kernel"], "slots7");
  EXPECT_EQ(index["runs"][2]["status"], "cap");
  // A second batch into the same directory is refused.
  InProcessSessions again(spec_);
  auto refused = run(again);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().message(), "matrix: this directory already holds a batch: " + options_.out_dir +
                                           " (pass --resume to finish it, or --out another directory)");
  EXPECT_TRUE(again.calls.empty());
}

TEST_F(MatrixKernelSessions, AnInterruptedSessionStopsTheBatchAndResumeGoesOn) {
  InProcessSessions sessions(spec_);
  sessions.launcher.interrupt_after = 0;  // the first kernel's first run
  auto r = run(sessions);
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r->exit_code, 130);
  EXPECT_EQ(sessions.calls, (std::vector<std::string>{"debian-6.12"}));
  Json index = read_json(tmp_ / "batch/batch.json");
  EXPECT_EQ(index["kernels"][0]["state"], "stopped");
  EXPECT_EQ(index["kernels"][0]["exit_code"], 130);
  EXPECT_EQ(index["kernels"][1]["state"], "not started");
  EXPECT_FALSE(fs::exists(tmp_ / "batch/slots7"));
  options_.resume = true;
  InProcessSessions resumed(spec_);
  auto r2 = run(resumed);
  ASSERT_TRUE(r2.has_value()) << r2.error().message();
  EXPECT_EQ(r2->exit_code, 0);
  EXPECT_EQ(resumed.calls, (std::vector<std::string>{"debian-6.12 resume", "slots7"}));
  EXPECT_EQ(read_json(tmp_ / "batch/debian-6.12/w-high-r1/outcome.json")["status"], "cap");
  // Once every run of a kernel has finished, --resume boots it no more.
  InProcessSessions third(spec_);
  auto r3 = run(third);
  ASSERT_TRUE(r3.has_value());
  EXPECT_TRUE(third.calls.empty());
  EXPECT_EQ(said, (std::vector<std::string>{"kernel debian-6.12: every run finished before",
                                            "kernel slots7: every run finished before"}));
  EXPECT_EQ(read_json(tmp_ / "batch/batch.json")["kernels"][1]["state"], "finished before");
}

TEST_F(MatrixKernelSessions, ADirectoryWithOtherFilesIsRefused) {
  fs::create_directories(tmp_ / "batch");
  std::ofstream(tmp_ / "batch/notes.txt") << "mine\n";
  InProcessSessions sessions(spec_);
  auto r = run(sessions);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message(), "matrix: the batch directory exists, is not empty and holds no batch.json: " +
                                     options_.out_dir +
                                     " (give --out a new or empty directory: a batch removes and rewrites what is "
                                     "inside it)");
  EXPECT_TRUE(sessions.calls.empty());
}

}  // namespace
}  // namespace cgmem::matrix
