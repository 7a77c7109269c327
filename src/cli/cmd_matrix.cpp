// cgmem matrix SPEC.toml: every run of a study, natively or in the VM.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <ctime>
#include <filesystem>
#include <limits>

#include "host/probe.h"
#include "cli/app.h"
#include "common/exit_codes.h"
#include "common/process.h"
#include "cli/handlers.h"
#include "cli/signals.h"
#include "cli/version.h"
#include "cli/matrix_plan.h"
#include "cli/matrix_vm.h"
#include "kernel/resolve.h"
#include "matrix/build.h"
#include "matrix/runner.h"

namespace cgmem::cli {

namespace {

namespace fs = std::filesystem;


std::string default_out(const std::string& name) {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  return fmt::format("batches/{}-{}", name, stamp);
}

// in_vm (--progress-lines): the progress lines already named each run, and
// the host prints the batch's path as the host sees it (matrix_vm.cpp).
void print_result(const matrix::MatrixResult& r, bool in_vm) {
  for (const auto& n : r.notes) fmt::print("note: {}\n", n);
  if (in_vm) {
    fmt::print("matrix: {} ran, {} finished before{}\n", r.ran, r.skipped,
               r.interrupted ? "; interrupted: rerun with --resume to finish" : "");
    return;
  }
  fmt::print("{:<36} {:<16} {:>9}\n", "run", "outcome", "seconds");
  for (const auto& run : r.runs) {
    std::string outcome = run.status.empty() ? run.state : run.status;
    if (run.state == "finished before") outcome += " (before)";
    fmt::print("{:<36} {:<16} {:>9.1f}\n", run.name, outcome, run.seconds);
  }
  fmt::print("batch {}: {} ran, {} finished before{}\n", r.batch_dir, r.ran, r.skipped,
             r.interrupted ? "; interrupted: rerun with --resume to finish" : "");
  fmt::print("next: cgmem report {}\n", r.batch_dir);
}

nlohmann::json result_json(const matrix::MatrixResult& r) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& run : r.runs)
    runs.push_back({{"name", run.name}, {"dir", run.dir}, {"config", run.config}, {"workload", run.workload},
                    {"rep", run.rep}, {"state", run.state}, {"status", run.status}, {"exit_code", run.exit_code},
                    {"seconds", run.seconds}});
  return {{"batch_dir", r.batch_dir}, {"ran", r.ran}, {"skipped", r.skipped}, {"interrupted", r.interrupted},
          {"notes", r.notes}, {"runs", runs}};
}

// --from DIR (in the VM): the batch so far, copied in by `cgmem vm --file`.
Result<void> seed_from(const std::string& from, const std::string& out) {
  std::error_code ec;
  fs::create_directories(out, ec);
  fs::copy(from, out, fs::copy_options::recursive | fs::copy_options::skip_existing, ec);
  if (ec) return fail("matrix: copy the batch so far: " + ec.message(), from);
  return {};
}

// --kernel-label picks one of the spec's kernels; natively, a spec of
// several kernels needs one (each runs in a VM session of its own).
Result<void> check_kernel_label(const MatrixFlags& f, const matrix::MatrixSpec& spec) {
  std::vector<std::string> labels;
  for (const auto& k : spec.kernels) labels.push_back(k.label);
  if (!f.kernel_label.empty() && !matrix::find_kernel(spec, f.kernel_label))
    return fail(fmt::format("matrix: --kernel-label {} is not a kernel of the spec (its labels: {})", f.kernel_label,
                            labels.empty() ? "none" : fmt::format("{}", fmt::join(labels, ", "))),
                spec.path, "give a label of its [[kernels]]");
  if (f.native && f.kernel_label.empty() && spec.kernels.size() > 1)
    return fail(fmt::format("matrix: --native: the spec lists {} kernels ({}), and this host runs one", spec.kernels.size(),
                            fmt::join(labels, ", ")),
                spec.path, "run it in the VM (one session per kernel), or pick one with --kernel NAME");
  return {};
}

// batch.json's "host": where the runs ran, so that `cgmem report` can tell
// the batches of a study spread over hosts apart.
nlohmann::json host_json(const host::HostFacts& h) {
  return {{"hostname", host_name()}, {"kernel", h.kernel}, {"cpus", h.cpus},
          {"hz", h.hz ? nlohmann::json(*h.hz) : nlohmann::json(nullptr)},
          {"virtualized", h.virtualized ? nlohmann::json(*h.virtualized) : nlohmann::json(nullptr)}};
}

int run_native(const MatrixFlags& f, matrix::MatrixSpec& spec) {
  if (!f.claim.empty()) spec.claim = fs::absolute(f.claim).string();
  if (!f.from.empty())
    if (auto r = seed_from(f.from, f.out); !r) return print_error(r.error()), kFailure;
  matrix::MatrixOptions o{.out_dir = f.out, .resume = f.resume};
  o.plan.reps = f.reps;
  o.plan.kernel = f.kernel_label;
  o.plan.shard = f.shard;
  if (!f.order.empty()) o.plan.shuffle = f.order == "shuffle";
  o.plan.seed = f.seed;
  o.plan.build_root = f.built.empty() ? (fs::absolute(f.out).lexically_normal() / "build").string() : f.built;
  if (f.built.empty() && matrix::has_builds(spec)) {
    o.plan.batch_dir = fs::absolute(f.out).lexically_normal().string();
    auto built = matrix::build_workloads(spec, o.plan, [](const std::string& line) { fmt::print(stderr, "cgmem matrix: {}\n", line); });
    if (!built) return print_error(built.error()), kFailure;
  }
  o.code = {{"version", version()}, {"git_commit", git_commit()}, {"binary_hash", binary_hash()}};
  o.host = host_json(host::probe_host());
  catch_stop_signals();
  matrix::ChildLauncher launcher(self_exe(), stop_flag());
  matrix::ProgressPrinter progress(stderr, f.progress_lines);
  auto result = matrix::run_matrix(spec, o, launcher, progress);
  if (!result) return print_error(result.error()), kFailure;
  if (f.json) fmt::print("{}\n", result_json(*result).dump(2));
  else print_result(*result, f.progress_lines);
  return result->interrupted || stop_requested() ? kInterrupted : kOk;
}

}  // namespace

int run_matrix(std::span<char*> args) {
  CLI::App app("Run a study's matrix of configs x workloads x repetitions (docs/matrix.md).", "matrix");
  MatrixFlags f;
  app.add_option("SPEC", f.spec, "the matrix spec (TOML), e.g. examples/quick.toml")->required();
  app.add_option("--out", f.out, "the batch directory (default: batches/NAME-TIMESTAMP)");
  app.add_flag("--resume", f.resume, "finish a batch: skip runs with outcome.json, rerun the others");
  app.add_option("--reps", f.reps, "repetitions (overrides the spec's)")->check(whole_number(1, 1000));
  app.add_option("--order", f.order, "fixed (the spec's order) or shuffle")->check(CLI::IsMember({"fixed", "shuffle"}));
  app.add_option("--seed", f.seed, "the shuffle's seed")->check(whole_number(0, std::numeric_limits<int64_t>::max()));
  app.add_flag("--vm", f.vm, "run in the VM (cgmem vm) even if this host could run natively");
  app.add_flag("--native", f.native, "run here; fail if this host has no usable memory controller");
  app.add_option("--claim", f.claim, "the claim file, instead of the spec's `claim`");
  app.add_flag("--progress-lines", f.progress_lines, "a line per run, no redrawn bar (used inside the VM)")->group("");
  app.add_option("--from", f.from, "start from a copy of this batch (used inside the VM to resume)")->group("");
  app.add_option("--kernel", f.kernel,
                 "the VM's kernel: a cached name (hz1000-throttle) or a bzImage, over the spec's kernels; implies --vm");
  app.add_option("--built", f.built, "the workloads' builds are in this directory (used inside the VM)")->group("");
  app.add_option("--kernel-label", f.kernel_label, "run this kernel's runs of the spec (used inside the VM)")->group("");
  app.add_option("--vm-swap", f.vm_swap, "swap in the VM (zram where the kernel has it), for swap_max and swap_high; 0 for none; a [[kernels]] entry's swap wins")
      ->check(size_validator({}))->capture_default_str();
  app.add_option("--vm-mem", f.vm_mem, "guest RAM when running in the VM")->check(size_validator({}))->capture_default_str();
  app.add_flag("--plan", f.plan,
               "run nothing: print each run's `cgmem run`, checked as it would check it where the batch would run "
               "(in the VM: the guest's RAM and CPUs); exit 2 if any would be refused");
  app.add_flag("--json", f.json, "print the batch's runs (or the plan) as JSON");
  app.add_option("--shard", f.shard_text,
                 "run the K-th of N parts of the plan (K/N): every run is in exactly one part, the same on every "
                 "host whatever --order; `cgmem report` merges the parts' batches");
  app.add_flag("--trace", f.trace,
               "trace every run (cgmem run --trace: trace.jsonl), on cgmem's own kernel (--kernel "
               "hz1000-throttle-slots-trace), whatever the spec's trace keys say");
  if (int code = parse(app, args); code >= 0) return code;
  if (f.vm && f.native) return print_error("--vm and --native exclude each other"), kUsage;
  if (f.resume && f.out.empty()) return print_error("--resume needs --out: the batch directory to finish"), kUsage;
  if (!f.shard_text.empty()) {
    auto shard = matrix::parse_shard(f.shard_text);
    if (!shard) return print_error(shard.error()), kUsage;
    f.shard = *shard;
  }
  auto spec = matrix::load_spec(f.spec);
  if (!spec) return print_error(spec.error()), kUsage;
  if (!f.kernel.empty()) matrix::override_kernel(*spec, f.kernel);
  if (f.trace) {  // over the spec's, a workload's trace = false included
    spec->defaults["trace"] = "true";
    for (auto& c : spec->configs) c.flags["trace"] = "true";
    for (auto& w : spec->workloads) w.flags["trace"] = "true";
  }
  if (auto ok = check_kernel_label(f, *spec); !ok) return print_error(ok.error()), kUsage;
  if (f.out.empty()) f.out = default_out(spec->name);
  // The spec's own errors first: a missing claim file says so before the host's state does.
  matrix::MatrixSpec claimed = *spec;
  if (!f.claim.empty()) claimed.claim = fs::absolute(f.claim).string();
  if (auto hash = matrix::claim_hash(claimed); !hash) return print_error(hash.error()), kUsage;
  if (f.native) {
    auto host = host::probe_host();
    if (!host.memory_controller_usable) {
      print_error(fmt::format("--native: this host has no usable cgroup v2 memory controller: {}", host.memory_reason));
      return kUnavailable;
    }
    return f.plan ? print_plan(f, *spec, host_target("--native")) : run_native(f, *spec);
  }
  // A kernel named by --kernel or the spec only exists in the VM.
  std::string why = f.vm ? "--vm" : "";
  for (const auto& k : spec->kernels) {
    // An unbuilt kernel stops the batch before it starts; the plan notes it.
    if (auto choice = kernel::resolve_kernel(k.name); !choice && !f.plan) return print_error(choice.error()), kUsage;
    if (why.empty())
      why = !f.kernel.empty() ? "--kernel"
            : spec->kernels.size() == 1 ? "the spec names kernel " + k.name
                                        : fmt::format("the spec lists {} kernels", spec->kernels.size());
    f.vm = true;
  }
  if (!f.vm) {
    auto host = host::probe_host();
    if (host.memory_controller_usable)
      return f.plan ? print_plan(f, *spec, host_target("this host has a usable memory controller")) : run_native(f, *spec);
    why = "no usable cgroup v2 memory controller here: " + host.memory_reason;
    if (!f.plan)
      fmt::print(stderr, "cgmem matrix: no usable cgroup v2 memory controller here ({}); running the matrix in the VM\n",
                 host.memory_reason);
  }
  return f.plan ? print_plan(f, *spec, guest_target(f, *spec, why)) : run_matrix_in_vm(f, *spec);
}

}  // namespace cgmem::cli
