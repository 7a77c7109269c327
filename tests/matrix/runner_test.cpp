// The matrix runner with a launcher that records its calls and writes the
// run directory itself, as `cgmem run` would (docs/run-format.md).
#include "matrix/runner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/sha256.h"
#include "matrix/batch.h"
#include "support/temp_dir.h"

namespace cgmem::matrix {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Writes meta.json (claim_sha256 null, as the driver does) and, unless told
// otherwise, outcome.json; returns `code`.
class FakeLauncher : public Launcher {
 public:
  Result<int> launch(const std::vector<std::string>& args, const std::function<void()>& tick) override {
    calls.push_back(args);
    if (tick) tick();
    fs::path dir = args.at(4);
    fs::create_directories(dir);
    std::ofstream(dir / "meta.json") << R"({"schema":1,"name":")" << args.at(2) << R"(","claim_sha256":null})";
    if (finish) std::ofstream(dir / "outcome.json") << R"({"status":")" << status << R"("})";
    if (after) after();
    return code;
  }
  std::vector<std::vector<std::string>> calls;
  bool finish = true;
  std::string status = "cap";
  int code = 0;
  std::function<void()> after;
};

class MatrixRunner : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(tmp_ / "CLAIM.md") << "memory.high throttles, memory.max kills\n";
    std::ofstream(tmp_ / "spec.toml") << R"(
name = "t"
claim = "CLAIM.md"
reps = 2
[defaults]
cap = "2s"
[[configs]]
name = "max"
max = "32M"
[[configs]]
name = "high"
high = "28M"
[[workloads]]
name = "anon-over"
args = ["--target", "40M"]
)";
    auto spec = load_spec((tmp_ / "spec.toml").string());
    ASSERT_TRUE(spec.has_value()) << spec.error().message();
    spec_ = *spec;
    options_.out_dir = (tmp_ / "batch").string();
    options_.code = {{"git_commit", "abc"}};
  }
  Result<MatrixResult> run() { return run_matrix(spec_, options_, launcher_, progress_); }

  cgmem::testing::TempDir temp_;
  fs::path tmp_ = temp_.dir();
  MatrixSpec spec_;
  MatrixOptions options_;
  FakeLauncher launcher_;
  ProgressPrinter progress_{nullptr};
};

TEST_F(MatrixRunner, RunsEveryRunAndRecordsTheClaim) {
  auto r = run();
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r->ran, 4u);
  ASSERT_EQ(launcher_.calls.size(), 4u);
  EXPECT_EQ(launcher_.calls[0][2], "anon-over-max-r1");
  EXPECT_EQ(launcher_.calls[3][2], "anon-over-high-r2");
  std::string claim = sha256_hex("memory.high throttles, memory.max kills\n");
  auto meta = nlohmann::json::parse(read(tmp_ / "batch/anon-over-high-r2/meta.json"));
  EXPECT_EQ(meta["claim_sha256"], claim);
  auto batch = nlohmann::json::parse(read(tmp_ / "batch/batch.json"));
  EXPECT_EQ(batch["claim_sha256"], claim);
  EXPECT_EQ(batch["code"]["git_commit"], "abc");
  ASSERT_EQ(batch["runs"].size(), 4u);
  EXPECT_EQ(batch["runs"][1]["dir"], "anon-over-high-r1");
  EXPECT_EQ(batch["runs"][1]["config"], "high");
  EXPECT_EQ(batch["runs"][1]["workload"], "anon-over");
  EXPECT_EQ(batch["runs"][1]["state"], "finished");
  EXPECT_EQ(batch["runs"][1]["status"], "cap");
  EXPECT_FALSE(fs::exists(tmp_ / "batch/scratch"));  // removed: every run finished
}

TEST_F(MatrixRunner, ResumeSkipsFinishedRunsAndRerunsUnfinishedOnes) {
  launcher_.finish = false;
  launcher_.code = 1;
  ASSERT_TRUE(run().has_value());  // four runs, none wrote outcome.json
  EXPECT_TRUE(fs::exists(tmp_ / "batch/scratch"));  // kept: runs are still to do
  fs::path done = tmp_ / "batch/anon-over-max-r1";
  std::ofstream(done / "outcome.json") << R"({"status":"oom_killed"})";
  std::ofstream(tmp_ / "batch/anon-over-high-r1/stale") << "from the dead run";
  launcher_ = FakeLauncher();
  options_.resume = true;
  auto r = run();
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r->skipped, 1u);
  EXPECT_EQ(r->ran, 3u);
  EXPECT_EQ(launcher_.calls[0][2], "anon-over-high-r1");
  EXPECT_FALSE(fs::exists(tmp_ / "batch/anon-over-high-r1/stale"));
  EXPECT_EQ(r->runs[0].state, "finished before");
  EXPECT_EQ(r->runs[0].status, "oom_killed");
}

TEST_F(MatrixRunner, AnExistingBatchNeedsResume) {
  ASSERT_TRUE(run().has_value());
  auto again = run();
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().message(), "matrix: this directory already holds a batch: " + (tmp_ / "batch").string() +
                                         " (pass --resume to finish it, or --out another directory)");
}

TEST_F(MatrixRunner, StopsWhenTheClaimChangesDuringTheBatch) {
  std::string before = sha256_hex("memory.high throttles, memory.max kills\n");
  std::string after = sha256_hex("edited\n");
  launcher_.after = [&] { std::ofstream(tmp_ / "CLAIM.md") << "edited\n"; };
  auto r = run();
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(launcher_.calls.size(), 1u);
  EXPECT_EQ(r.error().message(), "matrix: the claim changed after the batch started (sha256 " + before + " then, " +
                                     after + " now): " + (tmp_ / "CLAIM.md").string() +
                                     " (restore the claim as it was, or start a new batch with --out)");
}

TEST_F(MatrixRunner, ResumeRefusesAChangedClaim) {
  launcher_.code = 130;
  launcher_.status = "interrupted";
  auto first = run();
  ASSERT_TRUE(first.has_value());
  EXPECT_TRUE(first->interrupted);
  EXPECT_EQ(launcher_.calls.size(), 1u);
  std::ofstream(tmp_ / "CLAIM.md") << "edited\n";
  options_.resume = true;
  auto r = run();
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message().substr(0, 53), "matrix: the claim changed since the batch started (sh");
}

// A new batch never writes into (and later removes from) a
// directory that already holds the user's files.
TEST_F(MatrixRunner, ANewBatchRefusesADirectoryWithOtherFiles) {
  fs::create_directories(tmp_ / "batch/scratch");
  std::ofstream(tmp_ / "batch/scratch/thesis.tex") << "mine";
  auto r = run();
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message(), "matrix: the batch directory exists, is not empty and holds no batch.json: " +
                                     (tmp_ / "batch").string() +
                                     " (give --out a new or empty directory: a batch removes and rewrites what is "
                                     "inside it)");
  EXPECT_TRUE(launcher_.calls.empty());
  EXPECT_EQ(read(tmp_ / "batch/scratch/thesis.tex"), "mine");
}

// Resuming removes an unfinished run's directory only when it is
// one: not a link to elsewhere, not a directory of the user's.
TEST_F(MatrixRunner, ResumeRemovesOnlyCgmemRunDirectories) {
  launcher_.finish = false;
  launcher_.code = 1;
  ASSERT_TRUE(run().has_value());
  fs::path outside = tmp_ / "outside";
  fs::create_directories(outside);
  std::ofstream(outside / "keep") << "not cgmem's";
  fs::remove_all(tmp_ / "batch/anon-over-max-r1");
  fs::create_directory_symlink(outside, tmp_ / "batch/anon-over-max-r1");
  options_.resume = true;
  launcher_ = FakeLauncher();
  auto linked = run();
  ASSERT_FALSE(linked.has_value());
  EXPECT_EQ(linked.error().message(),
            "matrix: an unfinished run's place holds something that is not a cgmem run directory: " +
                (tmp_ / "batch/anon-over-max-r1").string() + " (move it away, then rerun with --resume)");
  EXPECT_EQ(read(outside / "keep"), "not cgmem's");
  fs::remove(tmp_ / "batch/anon-over-max-r1");
  fs::create_directories(tmp_ / "batch/anon-over-max-r1");
  std::ofstream(tmp_ / "batch/anon-over-max-r1/notes.txt") << "mine";
  ASSERT_FALSE(run().has_value());
  EXPECT_EQ(read(tmp_ / "batch/anon-over-max-r1/notes.txt"), "mine");
  EXPECT_TRUE(launcher_.calls.empty());
}

TEST_F(MatrixRunner, StopsWhenRunRefusesTheSetup) {
  launcher_.finish = false;
  launcher_.code = 3;
  auto r = run();
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(launcher_.calls.size(), 1u);
  EXPECT_EQ(r.error().message(), "matrix: `cgmem run` refused anon-over-max-r1 (exit code 3); its message is above: " +
                                     (tmp_ / "batch/anon-over-max-r1").string() +
                                     " (fix the spec or the host, then rerun with --resume)");
}

// A batch resumed in the VM comes back beside the host's: its runs replace
// the host's copies, new runs join them, and the resumed copy goes.
TEST(MergeResumedBatch, ReplacesAndAddsRunsThenRemovesTheCopy) {
  testing::TempDir tmp;
  fs::path into = tmp.dir() / "batch", from = tmp.dir() / "batch.resume";
  fs::create_directories(into / "a-r1");
  fs::create_directories(from / "a-r1");
  fs::create_directories(from / "b-r1");
  std::ofstream(into / "a-r1/outcome.json") << "old";
  std::ofstream(from / "a-r1/outcome.json") << "new";
  std::ofstream(from / "b-r1/outcome.json") << "added";
  std::ofstream(into / "batch.json") << "{}";
  std::ofstream(from / "batch.json") << "{\"runs\":[]}";
  ASSERT_TRUE(merge_resumed_batch(from.string(), into.string()));
  EXPECT_EQ(read(into / "a-r1/outcome.json"), "new");
  EXPECT_EQ(read(into / "b-r1/outcome.json"), "added");
  EXPECT_EQ(read(into / "batch.json"), "{\"runs\":[]}");
  EXPECT_FALSE(fs::exists(from));
}

}  // namespace
}  // namespace cgmem::matrix
