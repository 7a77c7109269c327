#include "matrix/plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/duration.h"
#include "common/text.h"

namespace cgmem::matrix {

namespace {

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::string replace_all(std::string text, const std::string& key, const std::string& value) {
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
    text.replace(at, key.size(), value);
  return text;
}

}  // namespace

std::string substitute(const std::string& text, const std::string& batch_dir, const std::string& build) {
  std::string out = replace_all(replace_all(text, "{scratch}", scratch_dir(batch_dir)), "{batch}", batch_dir);
  return build.empty() ? out : replace_all(out, "{build}", build);
}

std::string workload_build_dir(const PlanOptions& o, const std::string& workload) {
  return (o.build_root.empty() ? o.batch_dir + "/build" : o.build_root) + "/" + workload;
}

namespace {

PlannedRun make_run(const MatrixSpec& spec, const WorkloadSpec& w, const ConfigSpec& c, int rep,
                    const PlanOptions& o) {
  PlannedRun r{.name = fmt::format("{}-{}-r{}", w.name, c.name, rep), .config = c.name, .workload = w.name, .rep = rep};
  r.flags = spec.defaults;
  for (const auto& [k, v] : c.flags) r.flags[k] = v;
  for (const auto& [k, v] : w.flags) r.flags[k] = v;
  std::erase_if(r.flags, [](const auto& kv) { return kv.second.empty(); });
  for (auto& [k, v] : r.flags)
    if (v.ends_with('%'))
      if (auto bytes = resolve_percent(r.flags, k)) v = *bytes;
  std::string build = workload_build_dir(o, w.name);
  for (const auto& a : w.args) r.workload_args.push_back(substitute(a, o.batch_dir));
  for (const auto& a : w.command) r.command.push_back(substitute(a, o.batch_dir, build));
  for (const auto& a : w.load) r.load.push_back(substitute(a, o.batch_dir, build));
  if (auto cap = r.flags.find("cap"); cap != r.flags.end()) {
    auto ns = parse_duration(cap->second, TimeUnit::s);  // checked by parse_spec
    r.cap_s = ns ? static_cast<double>(*ns) / 1e9 : 60;
  }
  return r;
}

}  // namespace

std::vector<PlannedRun> plan(const MatrixSpec& spec, const PlanOptions& o) {
  std::string kernel = o.kernel.empty() && spec.kernels.size() == 1 ? spec.kernels.front().label : o.kernel;
  auto reps_of = [&](const WorkloadSpec& w) { return w.reps.value_or(o.reps.value_or(spec.reps)); };
  int max_reps = 0;
  for (const auto& w : spec.workloads) max_reps = std::max(max_reps, reps_of(w));
  std::vector<PlannedRun> runs;
  for (int rep = 1; rep <= max_reps; ++rep) {
    for (const auto& w : spec.workloads) {
      if (rep > reps_of(w) || !runs_on(w, kernel)) continue;
      for (const auto& c : spec.configs) {
        bool wanted = w.configs.empty() || std::find(w.configs.begin(), w.configs.end(), c.name) != w.configs.end();
        if (wanted) runs.push_back(make_run(spec, w, c, rep, o));
        if (wanted) runs.back().kernel = kernel;
      }
    }
  }
  if (!o.shard.whole()) {  // before the shuffle: a part is the same whatever the order
    std::vector<PlannedRun> part;
    for (size_t place = 0; place < runs.size(); ++place)
      if (place % size_t(o.shard.count) == size_t(o.shard.index - 1)) part.push_back(std::move(runs[place]));
    runs = std::move(part);
  }
  if (o.shuffle.value_or(spec.shuffle)) {
    uint64_t state = o.seed.value_or(spec.seed);
    for (size_t i = runs.size(); i > 1; --i) std::swap(runs[i - 1], runs[splitmix64(state) % i]);
  }
  return runs;
}

std::string Shard::text() const { return fmt::format("{}/{}", index, count); }

Result<Shard> parse_shard(std::string_view text) {
  auto bad = [&] {
    return fail(fmt::format("--shard {}: give K/N, the K-th of N parts (1 <= K <= N <= 10000)", text), "",
                "e.g. --shard 1/4 ... --shard 4/4; in a Slurm array, --shard $SLURM_ARRAY_TASK_ID/N with --array=1-N");
  };
  size_t slash = text.find('/');
  if (slash == std::string_view::npos) return bad();
  auto k = to_u64(text.substr(0, slash)), n = to_u64(text.substr(slash + 1));
  if (!k || !n || *k < 1 || *n > 10000 || *k > *n) return bad();
  return Shard{.index = int(*k), .count = int(*n)};
}

std::vector<PlannedRun> plan_all(const MatrixSpec& spec, const PlanOptions& o) {
  if (spec.kernels.size() <= 1) return plan(spec, o);
  std::vector<PlannedRun> runs;
  for (const auto& k : spec.kernels) {
    PlanOptions one = o;
    one.kernel = k.label;
    one.batch_dir = kernel_batch_dir(spec, o.batch_dir, k.label);
    for (auto& r : plan(spec, one)) runs.push_back(std::move(r));
  }
  return runs;
}

std::string kernel_batch_dir(const MatrixSpec& spec, const std::string& batch_dir, const std::string& label) {
  if (spec.kernels.size() <= 1 || label.empty()) return batch_dir;
  return batch_dir + "/" + label;
}

std::string scratch_dir(const std::string& batch_dir) { return batch_dir + "/scratch"; }

std::vector<std::string> run_arguments(const PlannedRun& run, const std::string& run_dir) {
  std::vector<std::string> args = {"run", "--name", run.name, "--out", run_dir};
  for (const auto& [key, value] : run.flags) {
    args.push_back(run_flag(key));
    if (run_flag_takes_value(key)) args.push_back(value);
  }
  args.push_back("--quiet");
  if (!run.command.empty()) {
    args.push_back("--command");
    args.push_back("--");
    args.insert(args.end(), run.command.begin(), run.command.end());
    if (!run.load.empty()) {
      args.push_back("--load");
      args.push_back("--");
      args.insert(args.end(), run.load.begin(), run.load.end());
    }
    return args;
  }
  args.push_back("--");
  args.insert(args.end(), run.workload_args.begin(), run.workload_args.end());
  return args;
}

}  // namespace cgmem::matrix
