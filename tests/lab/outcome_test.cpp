#include "lab/outcome.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <csignal>

namespace cgmem::lab {
namespace {

// Wait statuses as waitpid encodes them.
int killed_by(int signal) { return signal; }
int exited_with(int code) { return code << 8; }

EndFacts reaped(int status, uint64_t oom_before, uint64_t oom_after) {
  return EndFacts{.started = true, .wait_status = status, .oom_kill_before = oom_before,
                  .oom_kill_after = oom_after, .started_ns = 1'000'000'000,
                  .ended_ns = 1'400'000'000};
}

TEST(Outcome, OomKillNeedsBothWitnesses) {
  auto o = classify(reaped(killed_by(SIGKILL), 0, 1));
  EXPECT_EQ(o.status, Status::oom_killed);
  EXPECT_EQ(o.signal, SIGKILL);
  EXPECT_DOUBLE_EQ(*o.time_to_kill_s, 0.4);
  EXPECT_TRUE(o.errors.empty());
}

TEST(Outcome, SigkillWithoutOomKillIsNotAnOomKill) {
  auto o = classify(reaped(killed_by(SIGKILL), 1, 1));
  EXPECT_EQ(o.status, Status::exited);
  ASSERT_EQ(o.errors.size(), 1u);
  EXPECT_EQ(o.errors[0], "the workload died of SIGKILL but memory.events oom_kill did not rise");
}

TEST(Outcome, OomKillCountedButTheWorkloadExited) {
  auto o = classify(reaped(exited_with(0), 0, 1));
  EXPECT_EQ(o.status, Status::exited);
  EXPECT_EQ(o.exit_code, 0);
  ASSERT_EQ(o.errors.size(), 1u);
  EXPECT_EQ(o.errors[0], "memory.events oom_kill rose from 0 to 1 but the workload exited with code 0");
  EXPECT_FALSE(o.time_to_kill_s);
}

TEST(Outcome, ExitedCapInterruptedFailed) {
  EXPECT_EQ(classify(reaped(exited_with(0), 0, 0)).status, Status::exited);
  EXPECT_EQ(classify(reaped(exited_with(1), 0, 0)).exit_code, 1);
  auto cap = reaped(killed_by(SIGKILL), 0, 0);
  cap.stopped_at_cap = true;
  EXPECT_EQ(classify(cap).status, Status::cap);
  auto interrupted = cap;
  interrupted.interrupted = true;
  EXPECT_EQ(classify(interrupted).status, Status::interrupted);
  EXPECT_EQ(classify(EndFacts{.errors = {"spawn failed"}}).status, Status::failed);
  EXPECT_EQ(classify(EndFacts{.errors = {"spawn failed"}}).errors.size(), 1u);
}

TEST(Outcome, LoadDoneIsNeitherCapNorExit) {
  auto done = reaped(killed_by(SIGKILL), 0, 0);
  done.load_finished = true;
  auto o = classify(done);
  EXPECT_EQ(o.status, Status::load_done);
  EXPECT_EQ(o.signal, SIGKILL);
  EXPECT_FALSE(o.time_to_kill_s);
  EXPECT_TRUE(o.errors.empty());
  EXPECT_EQ(run_format::to_string(Status::load_done), "load_done");
  done.stopped_at_cap = true;  // the cap came first
  EXPECT_EQ(classify(done).status, Status::cap);
}

TEST(Outcome, Json) {
  auto j = to_json(classify(reaped(killed_by(SIGKILL), 0, 1)));
  EXPECT_EQ(j["status"], "oom_killed");
  EXPECT_EQ(j["signal"], 9);
  EXPECT_TRUE(j["exit_code"].is_null());
  EXPECT_DOUBLE_EQ(j["time_to_kill_s"].get<double>(), 0.4);
  EXPECT_EQ(run_format::to_string(Status::cap), "cap");
}

}  // namespace
}  // namespace cgmem::lab
