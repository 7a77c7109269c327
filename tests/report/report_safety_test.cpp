// The report is written whole or not at all, never into a
// directory of the user's, and bad run files give a clear error instead of
// a crash, a hang or a silently wrong count.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/report.h"
#include "support/run_cgmem.h"
#include "support/temp_dir.h"

namespace cgmem::report {
namespace {

namespace fs = std::filesystem;
using cgmem::testing::run_cgmem;
const std::string kBasic = std::string(CGMEM_FIXTURES) + "/runs/basic";

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ReportSafety : public ::testing::Test {
 protected:
  // A copy of one run of the basic batch, to damage.
  fs::path copy_run(const std::string& name = "anon-over-max-r1") {
    fs::path run = tmp_ / name;
    fs::copy(kBasic + "/anon-over-max-r1", run, fs::copy_options::recursive);
    return run;
  }
  // Entries of tmp_ whose names start with '.' (staging directories left).
  size_t hidden_entries() const {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(tmp_)) n += e.path().filename().string().starts_with(".");
    return n;
  }
  cgmem::testing::TempDir temp_;
  fs::path tmp_ = temp_.dir();
};

TEST_F(ReportSafety, ANewReportReplacesTheOldOneWhole) {
  fs::path out = tmp_ / "out";
  ASSERT_TRUE(make_report({.dirs = {kBasic}, .out = out.string()}));
  EXPECT_TRUE(fs::exists(out / "plots"));
  EXPECT_TRUE(fs::exists(out / kReportMarker));
  auto json_only = make_report({.dirs = {kBasic}, .out = out.string(), .markdown = false, .html = false});
  ASSERT_TRUE(json_only) << json_only.error().message();
  // Nothing of the first report is left beside the second.
  EXPECT_FALSE(fs::exists(out / "plots"));
  EXPECT_FALSE(fs::exists(out / "summary.md"));
  EXPECT_TRUE(fs::exists(out / "report.json"));
  EXPECT_EQ(hidden_entries(), 0u);
}

TEST_F(ReportSafety, RefusesAnOutputDirectoryWithOtherFiles) {
  fs::create_directories(tmp_ / "mine");
  std::ofstream(tmp_ / "mine" / "thesis.tex") << "mine";
  auto w = make_report({.dirs = {kBasic}, .out = (tmp_ / "mine").string()});
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message(), "the output directory holds files that cgmem did not write: " +
                                     (tmp_ / "mine").string() +
                                     " (give a new or empty directory; cgmem replaces only its own output)");
  EXPECT_EQ(read(tmp_ / "mine" / "thesis.tex"), "mine");
  EXPECT_EQ(hidden_entries(), 0u);
}

// A report written before the marker existed holds only report files: it
// is still replaced.
TEST_F(ReportSafety, AnUnmarkedOldReportIsReplaced) {
  fs::create_directories(tmp_ / "old" / "plots");
  std::ofstream(tmp_ / "old" / "summary.md") << "old";
  ASSERT_TRUE(make_report({.dirs = {kBasic}, .out = (tmp_ / "old").string()}));
  EXPECT_NE(read(tmp_ / "old" / "summary.md"), "old");
}

// Two reports into one --out at once: each exits 0 and what is left is one
// of the two, whole (HTML and Markdown present together, or neither).
TEST_F(ReportSafety, ConcurrentReportsLeaveOneWholeReport) {
  std::string out = (tmp_ / "out").string();
  std::string both = std::string(CGMEM_BINARY) + " report " + kBasic + " --out " + out;
  auto result = cgmem::testing::run_shell("(" + both + " --format json >/dev/null 2>&1 & " + both +
                                          " >/dev/null 2>&1; s=$?; wait $! && exit $s)");
  EXPECT_EQ(result.code, 0);
  bool html = fs::exists(fs::path(out) / "report.html");
  EXPECT_EQ(fs::exists(fs::path(out) / "summary.md"), html);
  EXPECT_EQ(fs::exists(fs::path(out) / "plots"), html);
  EXPECT_TRUE(fs::exists(fs::path(out) / "report.json"));
  EXPECT_EQ(hidden_entries(), 0u);
}

// A report stopped by SIGTERM or SIGINT while gnuplot draws (here a
// gnuplot that never ends) kills its gnuplots, removes its staging
// directory and exits 130, committing nothing.
TEST_F(ReportSafety, ASignalEndsGnuplotAndRemovesTheStaging) {
  fs::create_directories(tmp_ / "bin");
  std::ofstream(tmp_ / "bin" / "gnuplot") << "#!/bin/sh\necho $$ >> \"$GNUPLOT_PIDS\"\nexec sleep 60\n";
  fs::permissions(tmp_ / "bin" / "gnuplot", fs::perms::owner_all);
  for (const char* sig : {"TERM", "INT"}) {
    fs::path pids = tmp_ / (std::string("pids-") + sig);
    std::string cmd = "PATH=" + (tmp_ / "bin").string() + ":$PATH GNUPLOT_PIDS=" + pids.string() + " " +
                      CGMEM_BINARY + " report " + kBasic + " --out " + (tmp_ / "rep").string() +
                      " >/dev/null 2>&1 & pid=$!; i=0; while [ ! -s " + pids.string() +
                      " ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; sleep 0.3; kill -" + sig +
                      " $pid; wait $pid; echo $?";
    auto r = cgmem::testing::run_shell(cmd);
    EXPECT_EQ(r.text, "130\n") << sig;
    EXPECT_EQ(hidden_entries(), 0u) << sig;
    EXPECT_FALSE(fs::exists(tmp_ / "rep")) << sig;
    std::ifstream in(pids);
    size_t seen = 0;
    for (pid_t pid; in >> pid; ++seen) {
      bool alive = fs::exists("/proc/" + std::to_string(pid));
      EXPECT_FALSE(alive) << sig << ": gnuplot " << pid << " outlived the report";
      if (alive) kill(pid, SIGKILL);
    }
    EXPECT_GE(seen, 1u) << sig;
  }
}

// A report killed outright (SIGKILL) leaves its staging directory; the next
// report removes it, since it holds the marker and its pid is gone.
TEST_F(ReportSafety, TheNextReportRemovesAKilledOnesStaging) {
  fs::path stale = tmp_ / ".rep.tmp-4194305";
  fs::create_directories(stale / "plots");
  std::ofstream(stale / kReportMarker) << "written by cgmem";
  fs::path users = tmp_ / ".rep.tmp-4194306";  // no marker: not cgmem's
  fs::create_directories(users);
  ASSERT_TRUE(make_report({.dirs = {kBasic}, .out = (tmp_ / "rep").string(), .html = false}));
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(users));
}

TEST_F(ReportSafety, APageSizeOfZeroIsAnErrorNotSigfpe) {
  fs::path run = copy_run();
  std::string meta = read(run / "meta.json");
  auto at = meta.find("\"page_size\": 4096");
  ASSERT_NE(at, std::string::npos) << meta;
  meta.replace(at, 17, "\"page_size\": 0");
  std::ofstream(run / "meta.json") << meta;
  auto out = run_cgmem("report " + run.string() + " --out " + (tmp_ / "out").string());
  EXPECT_EQ(out.code, 1);
  EXPECT_EQ(out.text, "cgmem: error: meta.json: host.page_size is 0, not a page size (a power of two, 4096 to "
                      "2097152): " + (run / "meta.json").string() +
                      " (the run directory is damaged: fix the value, rerun the run or leave it out)\n");
  EXPECT_FALSE(fs::exists(tmp_ / "out"));
}

TEST_F(ReportSafety, ANegativeHzIsAnError) {
  fs::path run = copy_run();
  std::string meta = read(run / "meta.json");
  auto at = meta.find("\"hz\": 1000");
  ASSERT_NE(at, std::string::npos) << meta;
  meta.replace(at, 10, "\"hz\": -250");
  std::ofstream(run / "meta.json") << meta;
  auto w = make_report({.dirs = {run.string()}, .out = (tmp_ / "out").string()});
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().what, "meta.json: host.hz is -250, not a CONFIG_HZ (10 to 10000)");
}

TEST_F(ReportSafety, AFifoAsOpsIsRefusedNotWaitedOn) {
  fs::path run = copy_run();
  fs::remove(run / "ops.jsonl");
  ASSERT_EQ(::mkfifo((run / "ops.jsonl").c_str(), 0600), 0);
  auto out = cgmem::testing::run_shell("timeout 20 " + std::string(CGMEM_BINARY) + " report " + run.string() +
                                       " --out " + (tmp_ / "out").string() + " 2>&1");
  EXPECT_EQ(out.code, 1);  // 124 would be the timeout: it hung
  EXPECT_EQ(out.text, "cgmem: error: run file is a FIFO: " + (run / "ops.jsonl").string() +
                          " (give the path of a regular file)\n");
}

TEST_F(ReportSafety, ADirectoryAsOpsSaysSo) {
  fs::path run = copy_run();
  fs::remove(run / "ops.jsonl");
  fs::create_directory(run / "ops.jsonl");
  auto w = make_report({.dirs = {run.string()}, .out = (tmp_ / "out").string()});
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message(),
            "run file is a directory: " + (run / "ops.jsonl").string() + " (give the path of a regular file)");
}

TEST_F(ReportSafety, ARunNamedTwiceCountsOnce) {
  auto runs = read_runs({kBasic + "/anon-over-max-r1", kBasic + "/anon-over-max-r1/", kBasic});
  ASSERT_TRUE(runs) << runs.error().message();
  EXPECT_EQ(runs->size(), 4u);  // the batch's four runs, the one named thrice among them once
}

TEST_F(ReportSafety, AnInvalidOutcomeIsNotCalledMissing) {
  fs::path run = copy_run();
  std::ofstream(run / "outcome.json") << "{\"status\": ";
  auto w = make_report({.dirs = {run.string()}, .out = (tmp_ / "out").string(), .markdown = false, .html = false});
  ASSERT_TRUE(w) << w.error().message();
  std::string notes = w->json["notes"].dump();
  EXPECT_NE(notes.find("1 run with an outcome.json that could not be read (read as unfinished): anon-over-max-r1 "
                       "(read outcome.json: not a JSON object: " + (run / "outcome.json").string()),
            std::string::npos) << notes;
  EXPECT_EQ(notes.find("no outcome.json"), std::string::npos) << notes;
}

}  // namespace
}  // namespace cgmem::report
