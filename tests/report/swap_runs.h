// Run directories with swap, written by the tests (small JSON lines), for
// the rows swap brings (tests/report/swap_test.cpp). At HZ=250, 4 KiB
// pages, memory.high 30195712 bytes (7372 pages), memory.max 32 MiB, chunks
// of 256 KiB, on a host with 512 MiB of disk swap (swappiness 60) or none:
//
//   A  anon-over-high      disk, memory.high: held 100 KiB under it over its last
//                          half, swapping 10 MiB; churn at 10 ops/s; 5 swap-in
//                          intervals of 1 s with 0.5 s of PSI some each, 15 others
//                          with 0.05 s; 30 high events; never asleep in the throttle
//   B  anon-over-high      no swap: 9.0% over, 100 sleeps (1700 high events), asleep
//                          in 18 of 21 samples, churn at 2 ops/s, PSI 0.9 s a second
//   C  anon-over-max       disk, memory.max, memory.swap.max 8 MiB, a 48 MiB target:
//                          killed at 2.5 s with swap full (swap events max 4, fail 4)
//   D  anon-over-max       no swap, memory.swap.max 8 MiB: killed at 0.4 s, at full speed
//   E  anon-over-max       disk, memory.max alone: not killed in 20 s, swap 16 MiB
//   F  anon-over-swaphigh  disk, both limits and memory.swap.high 4 MiB: 12 ops at
//                          memory.current 1% over memory.high and swap 4.25 to 7 MiB,
//                          each one sleep (rises of 17; one of 18, one of 20) of 1.03 x
//                          (the formula + half a wheel step), the formula
//                          model::penalty's with both terms
#pragma once

#include <fmt/format.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/penalty.h"
#include "model/predict.h"
#include "model/wheel.h"
#include "report/op.h"
#include "support/fixture.h"

namespace cgmem::report::swap_runs {

namespace fs = std::filesystem;
using Json = nlohmann::json;

inline constexpr uint64_t kHigh = 30195712, kMax = 33554432, kChunk = 262144, kMiB = 1048576;
inline constexpr uint64_t kSwapHigh = 4 * kMiB;
inline constexpr int64_t kSecond = 1000000000;
inline const model::Kernel kKernel{.hz = 250, .page_size = 4096};

struct FakeRun {
  std::string name;
  Json meta;
  std::vector<std::string> ops, samples;
  Json outcome;  // null: no outcome.json

  void write(const fs::path& dir) const {
    fs::create_directories(dir);
    cgmem::testing::spit((dir / "meta.json").string(), meta.dump());
    std::string o, s;
    for (const auto& line : ops) o += line + "\n";
    for (const auto& line : samples) s += line + "\n";
    cgmem::testing::spit((dir / "ops.jsonl").string(), o);
    cgmem::testing::spit((dir / "samples.jsonl").string(), s);
    if (!outcome.is_null()) cgmem::testing::spit((dir / "outcome.json").string(), outcome.dump());
  }
};

// meta.json of a run on a host with 512 MiB of disk swap, or none.
inline FakeRun fake_run(const std::string& name, bool swap, Json limits, uint64_t target) {
  Json host = {{"kernel", "6.12.57+deb12-cloud-amd64"}, {"hz", 250}, {"page_size", 4096},
               {"swap_total_bytes", swap ? 512 * kMiB : 0},  {"swap_setting", swap ? "disk" : "none"},
               {"swap_kind", swap ? "disk" : "none"},         {"zswap_settings", nullptr},
               {"swappiness", 60},                             {"virtualized", "kvm"}};
  Json meta = {{"schema", 1},
               {"name", name},
               {"started_mono_ns", 0},
               {"limits", std::move(limits)},
               {"spec", {{"cpu", 0}, {"interval_ms", 100}, {"cap_s", 20}}},
               {"workload", {{"chunk_bytes", kChunk}, {"target_bytes", target}, {"procs", 1}, {"populate", false},
                             {"file", nullptr}, {"own_code", false}, {"set_own_high", nullptr}}},
               {"host", host},
               {"code", {{"git_commit", "abc123"}, {"binary_hash", "0123"}}}};
  return {.name = name, .meta = meta};
}

// One op line in the lab's exact shape, the swap counters last when given.
inline std::string op_line(uint64_t i, const char* phase, int64_t t_ns, int64_t lat_ns, uint64_t before,
                           uint64_t after, uint64_t high_before, uint64_t high_after,
                           std::optional<OpSwap> swap = std::nullopt) {
  std::string line = fmt::format(
      "{{\"op\":{},\"phase\":\"{}\",\"pid\":100,\"cpu\":0,\"t_ns\":{},\"lat_ns\":{},\"held_bytes\":{},"
      "\"current_before\":{},\"current_after\":{},\"high_before\":{},\"high_after\":{},\"max_before\":0,"
      "\"max_after\":0",
      i, phase, t_ns, lat_ns, after, before, after, high_before, high_after);
  if (swap)
    line += fmt::format(",\"swap_before\":{},\"swap_after\":{},\"swap_high_before\":{},\"swap_high_after\":{}",
                        swap->before, swap->after, swap->high_before, swap->high_after);
  return line + "}";
}

struct SampleAt {
  int64_t t_ns = 0;
  uint64_t current = 0;
  uint64_t high_events = 0;
  std::optional<uint64_t> swap;
  std::optional<double> psi_some_us;
  bool asleep = false;  // the process in D at mem_cgroup_handle_over_high
  Json swap_events = nullptr;
};

inline std::string sample_line(const SampleAt& s) {
  Json j = {{"t_ns", s.t_ns},
            {"memory_current", s.current},
            {"memory_events", {{"high", s.high_events}, {"max", 0}, {"oom_kill", 0}}},
            {"procs", Json::array({{{"pid", 100},
                                    {"state", s.asleep ? "D" : "R"},
                                    {"wchan", s.asleep ? "mem_cgroup_handle_over_high" : "0"},
                                    {"utime_ticks", 1},
                                    {"stime_ticks", 1}}})}};
  if (s.swap) j["memory_swap_current"] = *s.swap;
  if (!s.swap_events.is_null()) j["memory_swap_events"] = s.swap_events;
  if (s.psi_some_us) j["memory_pressure"] = {{"some", {{"total", *s.psi_some_us}, {"avg10", 0}}}};
  return j.dump();
}

inline Json cap_outcome(uint64_t high_events) {
  return {{"status", "cap"}, {"duration_s", 20.0}, {"events", {{"high", high_events}, {"max", 0}, {"oom_kill", 0}}}};
}

inline Json killed_outcome(double at_s) {
  return {{"status", "oom_killed"},
          {"duration_s", at_s},
          {"time_to_kill_s", at_s},
          {"events", {{"high", 0}, {"max", 40}, {"oom_kill", 1}}}};
}

// What the tests turn to make a row fail: where A's usage is held, how
// much PSI some its swap-in intervals take, how long its churn ops are.
struct HighKnobs {
  uint64_t held = kHigh - 100 * 1024;
  double swap_in_psi_us = 0.5e6;
  int64_t churn_lat_ns = kSecond / 10;
};

// A and B: memory.high alone, a 40 MiB target.
inline FakeRun high_run(bool swap, HighKnobs knobs = {}) {
  FakeRun r = fake_run("anon-over-high-r1", swap, {{"high", kHigh}}, 40 * kMiB);
  // Churn: A 10 ops of 100 ms one after another (10 ops/s), 3 reclaim
  // passes each; B 10 ops of 500 ms, one sleep each (2 ops/s).
  int64_t lat = swap ? knobs.churn_lat_ns : kSecond / 2;
  uint64_t rise = swap ? 3 : 17;
  for (uint64_t i = 0; i < 10; ++i) {
    std::optional<OpSwap> sw;
    if (swap) sw = OpSwap{.before = 9 * kMiB, .after = 9 * kMiB};
    r.ops.push_back(op_line(i, "churn", 10 * kSecond + static_cast<int64_t>(i) * lat, lat, kHigh, kHigh, i * rise,
                            (i + 1) * rise, sw));
  }
  const uint64_t under = knobs.held, over = 8035 * 4096;  // 9.0% over
  double psi = 0;
  for (int t = 0; t <= 20; ++t) {
    SampleAt s{.t_ns = t * kSecond, .high_events = static_cast<uint64_t>(t >= 11 ? 10 : std::max(0, t - 10)) * rise};
    if (swap) {
      s.current = t < 10 ? kHigh - kMiB : under;
      s.swap = t <= 10 ? t * kMiB : (t % 2 ? 9 * kMiB : 10 * kMiB);  // falls into each odd second
      bool swap_in = t > 10 && t % 2 == 1;
      if (t > 0) psi += swap_in ? knobs.swap_in_psi_us : 0.05e6;
      s.swap_events = {{"high", 0}, {"max", 0}, {"fail", 0}};
    } else {
      s.current = t < 10 ? kHigh : over;
      s.asleep = t >= 3;  // 18 of 21
      if (t > 0) psi += 0.9e6;
      s.high_events = t < 10 ? 0 : (t == 20 ? 1700 : 170 * static_cast<uint64_t>(t - 10));
    }
    s.psi_some_us = psi;
    r.samples.push_back(sample_line(s));
  }
  r.outcome = cap_outcome(swap ? 30 : 1700);
  return r;
}

// C, D and E: memory.max, a 48 MiB target; `killed` overrides how it ended.
inline FakeRun max_run(bool swap, bool swap_max, std::optional<bool> ended_killed = std::nullopt) {
  Json limits = {{"max", kMax}};
  if (swap_max) limits["swap_max"] = 8 * kMiB;
  FakeRun r = fake_run("anon-over-max-r1", swap, limits, 48 * kMiB);
  for (uint64_t i = 0; i < 20; ++i)
    r.ops.push_back(op_line(i, "grow", static_cast<int64_t>(i) * 4000000, 3000000, i * kChunk, (i + 1) * kChunk, 0, 0,
                            swap ? std::optional(OpSwap{}) : std::nullopt));
  bool killed = ended_killed.value_or(!swap || swap_max);
  int last = !swap ? 0 : killed ? 2 : 20;
  for (int t = 0; t <= last; ++t) {
    SampleAt s{.t_ns = t * kSecond, .current = kMax - kChunk};
    if (swap) {
      s.swap = swap_max ? std::min<uint64_t>(8, 4 * t) * kMiB : std::min<uint64_t>(16, 2 * t) * kMiB;
      s.swap_events = {{"high", 0}, {"max", swap_max && t == last ? 4 : 0}, {"fail", swap_max && t == last ? 4 : 0}};
    }
    r.samples.push_back(sample_line(s));
  }
  r.outcome = !swap ? killed_outcome(0.4) : killed ? killed_outcome(2.5) : cap_outcome(0);
  return r;
}

// memory.swap.max 0 on a host with swap: nothing goes to swap, so no swap
// charge fails and memory.swap.events stays 0; killed as without swap.
inline FakeRun max_run_no_swap_room() {
  FakeRun r = fake_run("anon-over-max-r1", true, Json{{"max", kMax}, {"swap_max", 0}}, 48 * kMiB);
  for (uint64_t i = 0; i < 20; ++i)
    r.ops.push_back(op_line(i, "grow", static_cast<int64_t>(i) * 4000000, 3000000, i * kChunk, (i + 1) * kChunk, 0, 0,
                            OpSwap{}));
  for (int t = 0; t <= 2; ++t) {
    SampleAt s{.t_ns = t * kSecond, .current = kMax - kChunk, .swap = 0};
    s.swap_events = {{"high", 0}, {"max", 0}, {"fail", 0}};
    r.samples.push_back(sample_line(s));
  }
  r.outcome = killed_outcome(0.5);
  return r;
}

// F's op i (0..11): swap before it 4 MiB + (i + 1) x 256 KiB.
inline uint64_t swap_high_op_swap(uint64_t i) { return kSwapHigh + (i + 1) * kChunk; }
inline constexpr uint64_t kSwapHighOpUsage = 7446 * 4096;  // 1.0% over memory.high

// The formula's sleep for F's op i, in jiffies: the kernel's penalty with
// the memory and the swap term.
inline uint64_t swap_high_jiffies(uint64_t i) {
  model::Level memory{.usage = kSwapHighOpUsage / 4096, .high = kHigh / 4096};
  model::Level swap{.usage = swap_high_op_swap(i) / 4096, .high = kSwapHigh / 4096};
  auto p = model::penalty({.memory = {&memory, 1}, .swap = {&swap, 1}}, kKernel);
  return p.sleeps ? p.jiffies : 0;
}

// F: both limits and memory.swap.high; ops of one sleep each at 1.03 x
// (the formula + half a wheel step).
inline FakeRun swap_high_run(double late_factor = 1.03) {
  FakeRun r = fake_run("anon-over-swaphigh-r1", true, {{"high", kHigh}, {"max", kMax}, {"swap_high", kSwapHigh}},
                       48 * kMiB);
  int64_t t = kSecond;
  uint64_t counter = 0;
  for (uint64_t i = 0; i < 12; ++i) {
    uint64_t rise = i == 4 ? 18 : i == 5 ? 20 : 17;
    uint64_t j = swap_high_jiffies(i);
    auto wheel = model::wheel_sleep(j, kKernel);
    double ms = late_factor * (model::jiffies_to_ms(j, kKernel) + model::jiffies_to_ms(wheel.step_jiffies, kKernel) / 2);
    auto lat = static_cast<int64_t>(ms * 1e6);
    OpSwap sw{.before = swap_high_op_swap(i), .after = swap_high_op_swap(i) + kChunk, .high_before = counter,
              .high_after = counter + rise};
    r.ops.push_back(op_line(i, "grow", t, lat, kSwapHighOpUsage, kSwapHighOpUsage, 0, 0, sw));
    counter += rise;
    t += lat;
  }
  r.samples.push_back(sample_line({.t_ns = t, .current = kSwapHighOpUsage, .swap = 7 * kMiB}));
  r.outcome = cap_outcome(0);
  return r;
}

}  // namespace cgmem::report::swap_runs
