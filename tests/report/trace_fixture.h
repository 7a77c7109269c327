// Traced run directories built in the test: meta.json, ops.jsonl,
// outcome.json with its "trace" object, and trace.jsonl from event lines
// written as the trace writer writes them (src/report/trace_event.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace cgmem::testing::trace {

using nlohmann::json;

constexpr int64_t kMs = 1000000;  // ns
constexpr uint64_t kRunCgroup = 4242, kNeighbourCgroup = 4250, kDriverCgroup = 1;
constexpr int32_t kDriverPid = 201;

inline json head(int64_t t, int cpu, int pid, const char* event) {
  return {{"t_ns", t}, {"cpu", cpu}, {"pid", pid}, {"event", event}};
}

inline std::string drain(int64_t t, int pid, const char* comm, const char* cause, uint64_t by,
                         uint64_t cgroup = kRunCgroup, int cpu = 0) {
  json j = head(t, cpu, pid, "stock_drain");
  j.update({{"stock_cpu", cpu},
            {"cgroup_id", cgroup},
            {"nr_pages", 63},
            {"cause", cause},
            {"by_cgroup_id", by},
            {"comm", comm}});
  return j.dump();
}

inline std::string drain_all(int64_t t, int pid, const char* comm, const char* caller, uint64_t cgroup) {
  json j = head(t, 0, pid, "stock_drain_all");
  j.update({{"cgroup_id", cgroup}, {"caller", caller}, {"comm", comm}});
  return j.dump();
}

inline std::string penalty(int64_t t, int pid, bool sleeps, int64_t reclaim_ns = 2 * kMs, uint64_t jiffies = 100) {
  json j = head(t, 0, pid, "high_penalty");
  j.update({{"cgroup_id", kRunCgroup},
            {"comm", "cgmem"},
            {"nr_pages", 64},
            {"usage_pages", 61000},
            {"high_pages", 58982},
            {"passes", 17},
            {"reclaimed_pages", 0},
            {"reclaim_ns", reclaim_ns},
            {"summed_jiffies", jiffies},
            {"shift", 0},
            {"shifted_jiffies", jiffies},
            {"penalty_jiffies", sleeps ? jiffies : 5},
            {"sleeps", sleeps}});
  return j.dump();
}

inline std::string sleep_end(int64_t t, int pid, int64_t planned_ns, int64_t slept_ns, uint64_t left = 0) {
  json j = head(t, 0, pid, "high_sleep");
  j.update({{"cgroup_id", kRunCgroup},
            {"penalty_jiffies", planned_ns / kMs},
            {"planned_ns", planned_ns},
            {"slept_ns", slept_ns},
            {"left_jiffies", left}});
  return j.dump();
}

inline std::string waking(int64_t t, int target, const char* comm = "cgmem") {
  json j = head(t, 0, 0, "sched_waking");
  j.update({{"target_pid", target}, {"target_comm", comm}, {"target_cpu", 0}});
  return j.dump();
}

inline std::string switch_in(int64_t t, int next, int prev = 0) {
  json j = head(t, 0, prev, "sched_switch");
  j.update({{"prev_pid", prev}, {"prev_state", "S"}, {"next_pid", next}});
  return j.dump();
}

// One throttle sleep of `pid` decided at t: reclaim_ns before it, the
// penalty `planned` starting 0.1 ms after the decision, the timer firing
// `timer` after the penalty, the task on the CPU `wake` later and the
// sleep's end `rest` after that. Appends its lines.
inline void sleep(std::vector<std::string>& lines, int64_t t, int pid, int64_t planned, int64_t timer, int64_t wake,
                  int64_t rest, int64_t reclaim_ns = 2 * kMs) {
  int64_t start = t + kMs / 10;
  int64_t woken = start + planned + timer, ran = woken + wake, end = ran + rest;
  lines.push_back(penalty(t, pid, true, reclaim_ns, static_cast<uint64_t>(planned / kMs)));
  lines.push_back(waking(woken, pid));
  lines.push_back(switch_in(ran, pid));
  lines.push_back(sleep_end(end, pid, planned, end - start));
}

// A run directory: meta.json's parts, ops of each pid, outcome.json's trace object.
struct Run {
  std::filesystem::path dir;
  json meta = {
      {"schema", 1},
      {"started_mono_ns", 1000000000},
      {"limits", {{"high", 241590272}, {"max", "max"}}},
      {"spec",
       {{"cpu", 0},
        {"sampler_cpu", 1},
        {"sampler_shares_cpu", false},
        {"interval_ms", 100},
        {"cap_s", 20},
        {"neighbour_interval_ms", nullptr},
        {"neighbours", 0},
        {"trace", true}}},
      {"workload", {{"chunk_bytes", 262144}, {"target_bytes", 335544320}, {"procs", 1}}},
      {"host", {{"kernel", "6.12.117-cgmem-trace"}, {"hz", 1000}, {"page_size", 4096}, {"virtualized", nullptr}}},
      {"code", {{"git_commit", "abc"}, {"binary_hash", "h"}}}};
  json trace_facts = {{"events", 0},
                      {"lost", 0},
                      {"lost_by_cpu", {0, 0}},
                      {"errors", json::array()},
                      {"run_cgroup_id", kRunCgroup},
                      {"neighbour_cgroup_ids", json::array()},
                      {"driver_pid", kDriverPid},
                      {"driver_cgroup_id", kDriverCgroup},
                      {"cgroups", {{"4242", "/claims-x"}, {"4250", "/claims-x-neighbour-1"}, {"1", "/"}}},
                      {"hz", 1000}};
  std::vector<std::pair<int, int>> ops;  // (pid, ops)
  int64_t ops_from_ns = 10000 * kMs;     // the first op's start, since the run's: after the sleeps by default
  std::vector<std::string> lines;        // trace.jsonl
  bool with_outcome = true;

  Run(const std::filesystem::path& batch, const std::string& name) : dir(batch / name) { meta["name"] = name; }

  void write() const {
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "meta.json") << meta.dump();
    std::ofstream out_ops(dir / "ops.jsonl");
    int op = 0;
    for (const auto& [pid, n] : ops)
      for (int i = 0; i < n; ++i, ++op)
        out_ops << json{{"op", op},
                        {"phase", "grow"},
                        {"pid", pid},
                        {"cpu", 0},
                        {"t_ns", meta["started_mono_ns"].get<int64_t>() + ops_from_ns + int64_t{op} * 10 * kMs},
                        {"lat_ns", kMs},
                        {"held_bytes", 0},
                        {"current_before", 0},
                        {"current_after", 0},
                        {"high_before", 0},
                        {"high_after", 0},
                        {"max_before", 0},
                        {"max_after", 0}}
                       .dump()
                << "\n";
    std::ofstream out_trace(dir / "trace.jsonl");
    for (const auto& l : lines) out_trace << l << "\n";
    if (!with_outcome) return;
    json facts = trace_facts;
    facts["events"] = lines.size();
    std::ofstream(dir / "outcome.json") << json{
        {"status", "cap"},
        {"duration_s", 20},
        {"errors", json::array()},
        {"events", {{"high", 0}, {"max", 0}, {"oom_kill", 0}}},
        {"trace", facts}}.dump();
  }
};

}  // namespace cgmem::testing::trace
