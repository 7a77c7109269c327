#include "cli/matrix_plan.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

#include "cli/app.h"
#include "cli/run_check.h"
#include "common/exit_codes.h"
#include "common/process.h"
#include "host/probe.h"
#include "kernel/resolve.h"
#include "matrix/batch.h"
#include "matrix/plan.h"
#include "vm/session.h"

namespace cgmem::cli {

namespace {

namespace fs = std::filesystem;

constexpr uint64_t kGuestPageSize = 4096;  // the guest is x86-64

struct CheckedRun {
  matrix::PlannedRun run;
  std::vector<std::string> args;  // `cgmem run ...` as the matrix would start it
  std::string refused;            // `cgmem run`'s message, or empty
};

std::vector<CheckedRun> check_runs(const MatrixFlags& f, const matrix::MatrixSpec& spec, const lab::Machine& machine) {
  matrix::PlanOptions o{.reps = f.reps, .seed = f.seed, .shard = f.shard};
  if (!f.order.empty()) o.shuffle = f.order == "shuffle";
  o.batch_dir = fs::absolute(f.out).lexically_normal().string();
  o.kernel = f.kernel_label;
  std::vector<CheckedRun> out;
  for (auto& run : f.kernel_label.empty() ? matrix::plan_all(spec, o) : matrix::plan(spec, o)) {
    auto args = matrix::run_arguments(run, (fs::path(matrix::kernel_batch_dir(spec, o.batch_dir, run.kernel)) / run.name).string());
    auto checked = check_run_words(std::vector<std::string>(args.begin() + 1, args.end()), machine);
    out.push_back({.run = std::move(run), .args = std::move(args),
                   .refused = checked ? std::string() : checked.error().message()});
  }
  return out;
}

// The sessions whose runs set swap_max or swap_high while the guest has no
// swap (no entry swap, no --vm-swap): "" stands for a spec of one kernel or none.
std::vector<std::string> swap_runs_without_swap(const MatrixFlags& f, const matrix::MatrixSpec& spec) {
  std::vector<std::string> out;
  if (f.vm_swap != "0") return out;
  for (const auto& run : matrix::plan_all(spec, {})) {
    const matrix::KernelSpec* k = run.kernel.empty() ? nullptr : matrix::find_kernel(spec, run.kernel);
    if (k && !k->swap.empty() && k->swap != "0") continue;
    bool sets = false;
    for (const char* key : {"swap_max", "swap_high"})
      sets |= run.flags.contains(key) && !run.flags.at(key).empty();
    std::string label = spec.kernels.size() > 1 ? run.kernel : "";
    if (sets && std::find(out.begin(), out.end(), label) == out.end()) out.push_back(label);
  }
  return out;
}

nlohmann::json plan_json(const MatrixFlags& f, const matrix::MatrixSpec& spec, const PlanTarget& t,
                         const std::vector<CheckedRun>& runs, size_t refused) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& c : runs) {
    list.push_back({{"name", c.run.name}, {"config", c.run.config}, {"workload", c.run.workload}, {"rep", c.run.rep},
                    {"cap_s", c.run.cap_s}, {"args", c.args},
                    {"refused", c.refused.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.refused)}});
    if (!c.run.kernel.empty()) list.back()["kernel"] = c.run.kernel;
  }
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : spec.kernels) {
    kernels.push_back(matrix::kernel_json(k));
    kernels.back()["runs"] = std::count_if(runs.begin(), runs.end(), [&](const CheckedRun& c) { return c.run.kernel == k.label; });
  }
  return {{"spec", spec.path}, {"kernels", kernels}, {"name", spec.name},
          {"shard", {{"index", f.shard.index}, {"count", f.shard.count}}}, {"where", t.vm ? "vm" : "native"}, {"why", t.why},
          {"kernel", t.kernel.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.kernel)},
          {"machine", {{"cpus", t.machine.cpus}, {"mem_total_bytes", t.machine.mem_total_bytes},
                       {"page_size", t.machine.page_size}, {"text", t.machine_text}}},
          {"notes", t.notes}, {"runs", list}, {"refused", refused}};
}

// "kernel LABEL: N runs in BATCH/LABEL, one session of `cgmem vm --kernel NAME --stock-slots N`".
void print_kernel(const matrix::MatrixSpec& spec, const MatrixFlags& f, const std::string& label,
                  const std::vector<CheckedRun>& runs) {
  const matrix::KernelSpec* k = matrix::find_kernel(spec, label);
  if (!k) return;
  auto n = std::count_if(runs.begin(), runs.end(), [&](const CheckedRun& c) { return c.run.kernel == label; });
  std::string dir = matrix::kernel_batch_dir(spec, fs::absolute(f.out).lexically_normal().string(), label);
  fmt::print("kernel  {}: {} run{} in {}, one session of `cgmem vm --kernel {}{}`\n", label, n, n == 1 ? "" : "s", dir,
             k->name, k->stock_slots ? fmt::format(" --stock-slots {}", *k->stock_slots) : "");
}

}  // namespace

PlanTarget host_target(std::string why) {
  auto facts = host::probe_host();
  PlanTarget t{.why = std::move(why)};
  t.machine = {.cpus = std::max(facts.cpus, 1u), .mem_total_bytes = facts.mem_total_bytes,
               .page_size = lab::page_size_here()};
  t.machine_text = fmt::format("this host: {} CPUs, {} of RAM", t.machine.cpus, format_bytes(t.machine.mem_total_bytes));
  return t;
}

PlanTarget guest_target(const MatrixFlags& f, const matrix::MatrixSpec& spec, std::string why) {
  PlanTarget t{.vm = true, .why = std::move(why)};
  uint64_t mem = limit_from(f.vm_mem, {}).bytes();
  t.machine = {.cpus = vm::VmOptions{}.cpus, .mem_total_bytes = vm::guest_mem_total(mem), .page_size = kGuestPageSize};
  t.machine_text = fmt::format("the guest: {} CPUs, {} of RAM (--vm-mem {} less what its kernel keeps)",
                               t.machine.cpus, format_bytes(t.machine.mem_total_bytes), f.vm_mem);
  // One kernel: its name; several: the plan lists each one's runs. An
  // unbuilt kernel is a note: the plan needs none built.
  if (spec.kernels.size() == 1) t.kernel = spec.kernels.front().name;
  for (const auto& k : spec.kernels)
    if (auto choice = kernel::resolve_kernel(k.name); !choice)
      t.notes.push_back(spec.kernels.size() == 1 ? choice.error().message()
                                                 : fmt::format("kernel {}: {}", k.label, choice.error().message()));
  for (const auto& label : swap_runs_without_swap(f, spec))
    t.notes.push_back(fmt::format("{}runs set swap_max or swap_high and the guest has no swap: pass --vm-swap SIZE{} "
                                  "(docs/matrix.md)",
                                  label.empty() ? "" : "kernel " + label + ": ",
                                  label.empty() ? "" : ", or swap = \"SIZE\" in its [[kernels]] entry"));
  return t;
}

int print_plan(const MatrixFlags& f, const matrix::MatrixSpec& spec, const PlanTarget& t) {
  auto runs = check_runs(f, spec, t.machine);
  auto refused = static_cast<size_t>(
      std::count_if(runs.begin(), runs.end(), [](const CheckedRun& c) { return !c.refused.empty(); }));
  double caps = 0;
  for (const auto& c : runs) caps += c.run.cap_s;
  if (f.json) {
    fmt::print("{}\n", plan_json(f, spec, t, runs, refused).dump(2));
  } else {
    std::string on = !t.kernel.empty() ? " on kernel " + t.kernel
                     : spec.kernels.size() > 1 && f.kernel_label.empty() ? fmt::format(" on {} kernels", spec.kernels.size())
                                                                          : "";
    std::string part = f.shard.whole() ? "" : " (shard " + f.shard.text() + ")";
    fmt::print("plan {}{}: {} runs {}{} ({}); {}\n", spec.name, part, runs.size(), t.vm ? "in the VM" : "here", on,
               t.why, t.machine_text);
    for (const auto& n : t.notes) fmt::print("note: {}\n", n);
    std::string kernel = runs.empty() ? "" : runs.front().run.kernel;
    for (size_t i = 0; i < runs.size(); ++i) {
      const CheckedRun& c = runs[i];
      if (spec.kernels.size() > 1 && (i == 0 || c.run.kernel != kernel)) print_kernel(spec, f, c.run.kernel, runs);
      kernel = c.run.kernel;
      if (c.refused.empty()) fmt::print("run     {}: cgmem {}\n", c.run.name, command_line(c.args));
      else fmt::print("refused {}: {}\n", c.run.name, c.refused);
    }
    fmt::print("plan {}: {} of {} runs would run, {} refused; caps {:.0f}s in all\n", spec.name,
               runs.size() - refused, runs.size(), refused, caps);
  }
  if (refused == 0) return kOk;
  print_error(fmt::format("matrix --plan: `cgmem run` would refuse {} of {} runs of {}", refused, runs.size(),
                          spec.path));
  return kUsage;
}

}  // namespace cgmem::cli
