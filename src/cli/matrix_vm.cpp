#include "cli/matrix_vm.h"

#include <fmt/format.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <set>

#include "cli/app.h"
#include "common/exit_codes.h"
#include "common/process.h"
#include "cli/version.h"
#include "matrix/build.h"
#include "matrix/kernels.h"
#include "matrix/plan.h"
#include "run_format/run_format.h"

namespace cgmem::cli {

namespace {

namespace fs = std::filesystem;

// Every cap, plus a fifth for the driver's own work, plus 5 minutes to boot
// and copy results back.
unsigned timeout_for(const MatrixFlags& f, const matrix::MatrixSpec& spec, const matrix::KernelSpec* kernel) {
  matrix::PlanOptions o{.reps = f.reps, .shard = f.shard};
  if (kernel) o.kernel = kernel->label;
  double total = 0;
  for (const auto& run : matrix::plan(spec, o)) total += run.cap_s + 2;
  return static_cast<unsigned>(std::ceil(total * 1.2 + 300));
}

int spawn_and_wait(const std::vector<std::string>& args) {
  std::string exe = fs::read_symlink("/proc/self/exe").string();
  std::vector<std::string> argv{exe};
  argv.insert(argv.end(), args.begin(), args.end());
  auto vm = Process::start({.argv = std::move(argv), .stdin_fd = kInherit, .what = "start `cgmem vm`", .error_path = exe});
  if (!vm) {
    print_error(vm.error());
    return kFailure;
  }
  // SIGINT reaches `cgmem vm` too (same process group); it stops QEMU and returns.
  signal(SIGINT, SIG_IGN);
  int code = vm->wait();
  signal(SIGINT, SIG_DFL);
  return code;
}


}  // namespace

std::vector<std::string> vm_arguments(const MatrixFlags& f, const matrix::MatrixSpec& spec, const std::string& vm_out,
                                      const std::string& resume_from, unsigned timeout_s,
                                      const matrix::KernelSpec* kernel) {
  if (!kernel && spec.kernels.size() == 1) kernel = &spec.kernels.front();
  std::vector<std::string> vm = {"vm", "--file", spec.path};
  // A workload that is the user's program: it and its load generator come in
  // with their libraries, under the names the spec uses (docs/own-program.md).
  // Directories (a JDK) come in at their own paths, on the run disk; what
  // `build` made comes in as /vm/in/build.
  std::set<std::string> programs, trees;
  for (const auto& w : spec.workloads) {
    std::vector<std::string> wanted;
    if (w.programs) wanted = *w.programs;
    else
      for (const auto* argv : {&w.command, &w.load})
        if (!argv->empty() && !argv->front().starts_with('{')) wanted.push_back(argv->front());
    for (const auto& program : wanted)
      if (programs.insert(program).second) vm.insert(vm.end(), {"--program", program});
    for (const auto& tree : w.trees)
      if (trees.insert(tree).second) vm.insert(vm.end(), {"--tree", tree});
  }
  std::vector<std::string> inner = {"matrix", "/vm/in/" + fs::path(spec.path).filename().string(), "--native",
                                    "--progress-lines", "--out", "."};
  if (!f.built.empty()) {
    vm.insert(vm.end(), {"--file", f.built});
    inner.insert(inner.end(), {"--built", "/vm/in/" + fs::path(f.built).filename().string()});
  }
  std::string claim = !f.claim.empty() ? f.claim : spec.claim.value_or("");
  if (!claim.empty()) {
    vm.insert(vm.end(), {"--file", claim});
    inner.insert(inner.end(), {"--claim", "/vm/in/" + fs::path(claim).filename().string()});
  }
  if (!resume_from.empty()) {
    vm.insert(vm.end(), {"--file", resume_from});
    inner.insert(inner.end(), {"--resume", "--from", "/vm/in/" + fs::path(resume_from).filename().string()});
  }
  if (f.reps) inner.insert(inner.end(), {"--reps", std::to_string(*f.reps)});
  if (!f.order.empty()) inner.insert(inner.end(), {"--order", f.order});
  if (f.seed) inner.insert(inner.end(), {"--seed", std::to_string(*f.seed)});
  if (!f.shard.whole()) inner.insert(inner.end(), {"--shard", f.shard.text()});
  if (f.json) inner.push_back("--json");
  if (f.trace) inner.push_back("--trace");
  // The guest reads the spec again: it takes the same --kernel over the
  // spec's kernels, and runs this session's kernel's runs.
  if (!f.kernel.empty()) inner.insert(inner.end(), {"--kernel", f.kernel});
  if (kernel) inner.insert(inner.end(), {"--kernel-label", kernel->label});
  // The --file options go first: CLI11 2.1 lets an inner `--out` after `--`
  // reach `cgmem vm` when the last option before `--` takes many values.
  vm.insert(vm.end(), {"--out", vm_out, "--timeout", std::to_string(timeout_s), "--mem", f.vm_mem, "--disk", "2G"});
  // The session's own swap (its [[kernels]] entry) over --vm-swap.
  std::string swap = kernel && !kernel->swap.empty() ? kernel->swap : f.vm_swap;
  if (swap != "0") vm.insert(vm.end(), {"--swap", swap});
  if (kernel && !kernel->swap_kind.empty()) vm.insert(vm.end(), {"--swap-kind", kernel->swap_kind});
  if (kernel && kernel->zswap) vm.push_back("--zswap");
  std::string name = !f.kernel.empty() ? f.kernel : kernel ? kernel->name : "";
  if (!name.empty()) vm.insert(vm.end(), {"--kernel", name});
  if (kernel && kernel->stock_slots) vm.insert(vm.end(), {"--stock-slots", std::to_string(*kernel->stock_slots)});
  vm.push_back("--");
  vm.insert(vm.end(), inner.begin(), inner.end());
  return vm;
}

namespace {

// One session: the batch of `kernel` (nullptr: the spec's only one, or
// none) into `out`, resumed when --resume finds one there.
int run_session(const MatrixFlags& f, const matrix::MatrixSpec& spec, const matrix::KernelSpec* kernel, const fs::path& out) {
  bool resuming = f.resume && fs::exists(out / run_format::kBatchFile);
  if (!f.resume && fs::exists(out / run_format::kBatchFile)) {
    print_error(Error{.what = "matrix: this directory already holds a batch", .path = out.string(),
                      .hint = "pass --resume to finish it, or --out another directory"});
    return kFailure;
  }
  fs::path vm_out = out;
  if (resuming) {
    vm_out = out.string() + ".resume";
    for (int n = 2; fs::exists(vm_out); ++n) vm_out = fmt::format("{}.resume-{}", out.string(), n);
  }
  auto args = vm_arguments(f, spec, vm_out.string(), resuming ? out.string() : "", timeout_for(f, spec, kernel), kernel);
  int code = spawn_and_wait(args);
  if (resuming && fs::exists(vm_out / run_format::kBatchFile))
    if (auto merged = matrix::merge_resumed_batch(vm_out.string(), out.string()); !merged) return print_error(merged.error()), kFailure;
  return code;
}

// Each kernel's session through run_session, in BATCH/LABEL.
class VmSessions : public matrix::SessionRunner {
 public:
  VmSessions(const MatrixFlags& f, const matrix::MatrixSpec& spec) : f_(f), spec_(spec) {}
  int run(const matrix::KernelSpec& kernel, const std::string& dir, bool resume) override {
    fmt::print(stderr, "cgmem matrix: kernel {} ({}{}): {}\n", kernel.label, kernel.name,
               kernel.stock_slots ? fmt::format(", {} stock slots", *kernel.stock_slots) : "", dir);
    MatrixFlags f = f_;
    f.resume = resume;
    return run_session(f, spec_, &kernel, dir);
  }

 private:
  const MatrixFlags& f_;
  const matrix::MatrixSpec& spec_;
};

}  // namespace

// The workloads' builds, on the host, into a directory of their own that
// every session brings in as /vm/in/build; removed when the batch ends.
class HostBuild {
 public:
  ~HostBuild() {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  Result<std::string> run(const matrix::MatrixSpec& spec) {
    std::string base = (fs::temp_directory_path() / "cgmem-matrix-build-XXXXXX").string();
    if (!mkdtemp(base.data())) return sys_error("matrix: create a directory for the builds", base);
    dir_ = base;
    matrix::PlanOptions o{.build_root = dir_ + "/build"};
    auto built = matrix::build_workloads(spec, o, [](const std::string& line) { fmt::print(stderr, "cgmem matrix: {}\n", line); });
    if (!built) return std::unexpected(built.error());
    return o.build_root;
  }

 private:
  std::string dir_;
};

int run_matrix_in_vm(const MatrixFlags& given, const matrix::MatrixSpec& spec) {
  MatrixFlags f = given;
  fs::path out = fs::absolute(f.out).lexically_normal();
  HostBuild build;
  if (matrix::has_builds(spec)) {
    auto root = build.run(spec);
    if (!root) return print_error(root.error()), kFailure;
    f.built = *root;
  }
  int code = kOk;
  if (spec.kernels.size() <= 1) {
    code = run_session(f, spec, nullptr, out);
  } else {
    matrix::MatrixOptions o{.out_dir = out.string(), .resume = f.resume};
    o.plan.reps = f.reps;
    o.plan.shard = f.shard;
    o.code = {{"version", version()}, {"git_commit", git_commit()}, {"binary_hash", binary_hash()}};
    matrix::MatrixSpec claimed = spec;
    if (!f.claim.empty()) claimed.claim = fs::absolute(f.claim).string();
    VmSessions sessions(f, claimed);
    auto result = matrix::run_kernel_sessions(claimed, o, sessions, [](const std::string& line) {
      fmt::print(stderr, "cgmem matrix: {}\n", line);
    });
    if (!result) return print_error(result.error()), kFailure;
    code = result->exit_code;
  }
  if (fs::exists(out / run_format::kBatchFile) && !f.json) {
    fmt::print("batch {}\n", out.string());
    fmt::print("next: cgmem report {}\n", out.string());
  }
  return code;
}

}  // namespace cgmem::cli
