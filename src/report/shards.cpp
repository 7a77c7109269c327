#include "report/shards.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>

#include "common/file.h"
#include "common/json_get.h"
#include "common/text.h"
#include "run_format/run_format.h"

namespace cgmem::report {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMaxBatchJson = uint64_t{16} << 20;

struct BatchRecord {
  std::string name, kernel;
  int shard_index = 0, shard_count = 0;  // 0: a whole plan
  uint64_t plan_runs = 0;
  HostGroup host;
};

std::optional<BatchRecord> read_batch(const fs::path& dir) {
  auto text = read_file((dir / run_format::kBatchFile).string(), "the batch record", kMaxBatchJson);
  if (!text) return std::nullopt;
  Json j = Json::parse(*text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  BatchRecord b{.name = get_str(j, "name").value_or("")};
  if (const Json* k = json_child(j, "kernel")) b.kernel = get_str(*k, "label").value_or("");
  if (const Json* s = json_child(j, "shard")) {
    auto index = get_i64(*s, "index"), count = get_i64(*s, "count");
    if (index && count && *count >= 1 && *count <= 10000 && *index >= 1 && *index <= *count)
      b.shard_index = int(*index), b.shard_count = int(*count);
    b.plan_runs = get_u64(*s, "plan_runs").value_or(0);
  }
  if (const Json* h = json_child(j, "host")) {
    b.host.hostname = get_str(*h, "hostname").value_or("");
    b.host.kernel = get_str(*h, "kernel").value_or("");
    b.host.virtualized = get_str(*h, "virtualized").value_or("");
    b.host.cpus = unsigned(get_u64(*h, "cpus").value_or(0));
    b.host.hz = int(get_i64(*h, "hz").value_or(0));
  }
  return b;
}

std::string ints(const std::vector<int>& v, int count) {
  std::vector<std::string> parts;
  for (int i : v) parts.push_back(fmt::format("{}/{}", i, count));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

Batches read_batches(const std::vector<Run>& runs) {
  std::map<std::string, std::optional<BatchRecord>> by_dir;
  std::map<std::string, size_t> runs_in;
  for (const auto& r : runs) {
    fs::path dir = fs::path(r.dir).lexically_normal();
    if (dir.filename().empty()) dir = dir.parent_path();
    std::string parent = dir.parent_path().string();
    if (!by_dir.contains(parent)) by_dir[parent] = read_batch(parent);
    ++runs_in[parent];
  }
  Batches out;
  std::map<std::tuple<std::string, std::string, int>, ShardSet> sets;
  std::map<std::tuple<std::string, std::string, std::string, unsigned, int>, HostGroup> hosts;
  for (const auto& [dir, record] : by_dir) {
    if (!record) continue;
    const BatchRecord& b = *record;
    const HostGroup& h = b.host;
    if (!h.hostname.empty() || !h.kernel.empty()) {
      HostGroup& g = hosts[{h.hostname, h.kernel, h.virtualized, h.cpus, h.hz}];
      if (g.batches == 0) g = h;
      ++g.batches, g.runs += runs_in[dir];
    }
    if (b.shard_count == 0) continue;
    ShardSet& s = sets[{b.name, b.kernel, b.shard_count}];
    if (s.count == 0) s = {.name = b.name, .kernel = b.kernel, .count = b.shard_count, .plan_runs = b.plan_runs};
    s.plans_differ |= s.plan_runs != b.plan_runs;
    if (std::find(s.present.begin(), s.present.end(), b.shard_index) != s.present.end()) s.twice.push_back(b.shard_index);
    else s.present.push_back(b.shard_index);
    s.runs += runs_in[dir];
  }
  for (auto& [key, s] : sets) {
    std::sort(s.present.begin(), s.present.end());
    for (int i = 1; i <= s.count; ++i)
      if (!std::binary_search(s.present.begin(), s.present.end(), i)) s.missing.push_back(i);
    out.shards.push_back(std::move(s));
  }
  for (auto& [key, g] : hosts) out.hosts.push_back(std::move(g));
  return out;
}

std::vector<std::string> batch_set_notes(const Batches& b) {
  std::vector<std::string> notes;
  for (const auto& s : b.shards) {
    // Names from batch.json, which anyone may have written: escaped before a terminal or Markdown sees them.
    std::string plan = s.kernel.empty() ? visible(s.name) : fmt::format("{} (kernel {})", visible(s.name), visible(s.kernel));
    if (!s.missing.empty())
      notes.push_back(fmt::format("Plan {} in {} shards: {} missing; this report has {} of its {} runs. "
                                  "Give the missing shards' batches too.",
                                  plan, s.count, ints(s.missing, s.count), s.runs, s.plan_runs));
    else
      notes.push_back(fmt::format("Plan {}: all {} shards, {} of its {} runs.", plan, s.count, s.runs, s.plan_runs));
    if (!s.twice.empty())
      notes.push_back(fmt::format("Plan {}: shard {} given twice; its runs are counted from every copy.", plan,
                                  ints(s.twice, s.count)));
    if (s.plans_differ)
      notes.push_back(fmt::format("Plan {}: the shards' batches were planned from different specs or --reps "
                                  "(their plan_runs differ); the parts do not split one plan.", plan));
  }
  if (b.hosts.size() > 1) {
    std::vector<std::string> parts;
    for (const auto& h : b.hosts)
      parts.push_back(fmt::format("{} (kernel {}, {} CPUs, HZ {}, {}): {} runs", h.hostname.empty() ? "?" : visible(h.hostname),
                                  h.kernel.empty() ? "?" : visible(h.kernel), h.cpus, h.hz,
                                  h.virtualized.empty() ? "native" : "VM " + visible(h.virtualized), h.runs));
    notes.push_back(fmt::format("The batches ran on {} hosts: {}.", b.hosts.size(), fmt::join(parts, "; ")));
  }
  return notes;
}

Json shards_json(const Batches& b) {
  Json out = Json::array();
  for (const auto& s : b.shards)
    out.push_back({{"name", s.name}, {"kernel", s.kernel.empty() ? Json(nullptr) : Json(s.kernel)}, {"count", s.count},
                   {"plan_runs", s.plan_runs}, {"runs", s.runs}, {"present", s.present}, {"missing", s.missing},
                   {"twice", s.twice}, {"plans_differ", s.plans_differ}});
  return out;
}

Json hosts_json(const Batches& b) {
  Json out = Json::array();
  for (const auto& h : b.hosts)
    out.push_back({{"hostname", h.hostname}, {"kernel", h.kernel}, {"cpus", h.cpus}, {"hz", h.hz},
                   {"virtualized", h.virtualized.empty() ? Json(nullptr) : Json(h.virtualized)},
                   {"batches", h.batches}, {"runs", h.runs}});
  return out;
}

}  // namespace cgmem::report
