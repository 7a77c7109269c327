// Run directories without limits, written by the tests: a program that
// grows to its working set and holds it, or one that keeps growing (a
// leak). Samples every 100 ms of memory.current and memory.stat; grow ops
// of 256 KiB at 0.1 ms each (2.5 GiB/s unthrottled).
#pragma once

#include <fmt/format.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "support/fixture.h"

namespace cgmem::advise::testing {

inline constexpr uint64_t kMiB = 1 << 20, kChunk = 256 * 1024;

struct FakeRun {
  uint64_t working_set = 200 * kMiB;  // where it levels off (or, growing, where it ends)
  uint64_t inactive_file = 30 * kMiB; // page cache on top of it
  bool growing = false;               // still rising at the end
  int samples = 60;                   // at 100 ms
  nlohmann::json limits = nlohmann::json::object();
  std::string status = "exited";
  bool outcome = true;
  std::string kernel = "6.12.117+deb12-cloud-amd64";

  // memory.current minus page cache at sample i.
  uint64_t ws_at(int i) const {
    double x = static_cast<double>(i) / (samples - 1);
    double share = growing ? x : std::min(1.0, 4 * x);  // a steady one is full a quarter in
    return static_cast<uint64_t>(share * static_cast<double>(working_set)) / 4096 * 4096;
  }

  std::string write(const std::filesystem::path& dir) const {
    std::filesystem::create_directories(dir);
    nlohmann::json meta = {
        {"schema", 1},
        {"name", dir.filename().string()},
        {"started_mono_ns", 0},
        {"limits", limits},
        {"spec", {{"cpu", 0}, {"interval_ms", 100}, {"cap_s", 60}}},
        {"workload",
         {{"chunk_bytes", kChunk}, {"target_bytes", working_set}, {"procs", 1}, {"populate", false},
          {"file", nullptr}, {"own_code", false}, {"set_own_high", nullptr}}},
        {"host",
         {{"kernel", kernel}, {"hz", 1000}, {"page_size", 4096}, {"swap_total_bytes", 0}, {"virtualized", "tcg"}}},
        {"code", {{"git_commit", "abc123"}, {"binary_hash", "0123"}}}};
    cgmem::testing::spit((dir / "meta.json").string(), meta.dump());
    std::string samples_text, ops;
    for (int i = 0; i < samples; ++i) {
      int64_t t = 1'000'000'000 + int64_t{i} * 100'000'000;
      uint64_t ws = ws_at(i);
      samples_text += nlohmann::json{{"t_ns", t},
                                     {"memory_current", ws + inactive_file},
                                     {"memory_stat", {{"anon", ws}, {"inactive_file", inactive_file}}}}
                          .dump() +
                      "\n";
      ops += fmt::format("{{\"op\":{},\"phase\":\"grow\",\"pid\":311,\"cpu\":0,\"t_ns\":{},\"lat_ns\":100000,"
                         "\"held_bytes\":{},\"current_before\":{},\"current_after\":{},\"high_before\":0,"
                         "\"high_after\":0,\"max_before\":0,\"max_after\":0}}\n",
                         i, t, ws, ws, ws + kChunk);
    }
    cgmem::testing::spit((dir / "samples.jsonl").string(), samples_text);
    cgmem::testing::spit((dir / "ops.jsonl").string(), ops);
    if (outcome)
      cgmem::testing::spit((dir / "outcome.json").string(),
                           nlohmann::json{{"status", status},
                                          {"exit_code", 0},
                                          {"duration_s", samples / 10.0},
                                          {"peak_bytes", working_set + inactive_file},
                                          {"events", {{"oom_kill", status == "oom_killed" ? 1 : 0}}},
                                          {"errors", nlohmann::json::array()}}
                               .dump());
    return dir.string();
  }
};

}  // namespace cgmem::advise::testing
