// cgmem run [driver options] -- [workload options]
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "host/json.h"
#include "host/probe.h"
#include "cli/app.h"
#include "common/exit_codes.h"
#include "cli/handlers.h"
#include "cli/version.h"
#include "cli/run_check.h"
#include "common/size.h"
#include "lab/gc.h"
#include "lab/run_dir.h"
#include "lab/run_driver.h"
#include "run_format/run_format.h"

namespace cgmem::cli {
namespace {

void print_result(const lab::RunResult& r) {
  const auto& j = r.outcome_json;
  fmt::print("{:<9}{}\n", "run dir", r.run_dir);
  std::string status(run_format::to_string(r.outcome.status));
  if (r.outcome.time_to_kill_s) status += fmt::format(" after {:.2f}s", *r.outcome.time_to_kill_s);
  else status += fmt::format(" ({:.2f}s)", r.outcome.duration_s);
  if (r.outcome.signal) status += fmt::format(", signal {}", *r.outcome.signal);
  if (r.outcome.exit_code) status += fmt::format(", exit code {}", *r.outcome.exit_code);
  fmt::print("{:<9}{}\n", "outcome", status);
  namespace key = run_format::outcome_key;
  namespace load_key = run_format::load_key;
  uint64_t samples = j[key::kSamples].get<uint64_t>();
  if (j[key::kOps].is_number())
    fmt::print("{:<9}{} ops, {} samples\n", "logged", j[key::kOps].get<uint64_t>(), samples);
  else
    fmt::print("{:<9}{} samples (a --command run has no op lines)\n", "logged", samples);
  if (const auto load = j.find(key::kLoad); load != j.end()) {
    const auto& l = *load;
    std::string text = l[load_key::kStarted].get<bool>()
                           ? fmt::format("started at {:.2f}s", l[load_key::kStartedS].get<double>())
                           : std::string("never started");
    if (l[load_key::kExitCode].is_number()) text += fmt::format(", exit code {}", l[load_key::kExitCode].get<int>());
    if (l[load_key::kSignal].is_number()) text += fmt::format(", signal {}", l[load_key::kSignal].get<int>());
    fmt::print("{:<9}{} (load.stdout)\n", "load", text);
  }
  std::string events;
  for (const auto& [key, value] : j["events"].items()) events += fmt::format("{} {}  ", key, value.dump());
  fmt::print("{:<9}{}\n", "events", events);
  if (j["peak_bytes"].is_number())
    fmt::print("{:<9}{}\n", "peak", format_bytes(j["peak_bytes"].get<uint64_t>()));
  for (const auto& error : r.outcome.errors) fmt::print("{:<9}{}\n", "error", error);
}

int exit_code_for(lab::Status status) {
  if (status == lab::Status::failed) return kFailure;
  if (status == lab::Status::interrupted) return kInterrupted;
  return kOk;
}

}  // namespace

int run_run(std::span<char*> args) {
  CLI::App app(
      "Run `cgmem workload` (or, with --command, your own program) in a new cgroup PARENT/NAME\n"
      "with the given limits, sample it every --interval, and record the run directory\n"
      "(meta.json, ops.jsonl, samples.jsonl, outcome.json; docs/run-format.md). Examples:\n"
      "  cgmem run --name over --max 32M --cap 20 -- --target 40M\n"
      "  cgmem run --name redis --max 64M --command --ready-tcp 6379 -- redis-server --save '' \\\n"
      "      --load -- redis-benchmark -q -t set -n 100000 --csv   (docs/own-program.md)",
      "run");
  RunRequest request;
  add_run_flags(app, request);
  std::vector<std::string> words(args.begin(), args.end());
  auto [flags, after_dashes] = split_at_dashes(words);
  if (int code = parse(app, args.first(flags.size())); code >= 0) return code;

  auto facts = host::probe_host();
  lab::Machine machine{.cpus = std::max(facts.cpus, 1u), .mem_total_bytes = facts.mem_total_bytes,
                       .page_size = lab::page_size_here()};
  if (auto checked = check_run(request, after_dashes, machine); !checked) return print_error(checked.error()), kUsage;
  const lab::RunOptions& options = request.options;
  if (!facts.cgroup2_mount || (!options.parent && !facts.memory_controller_usable)) {
    print_error(fmt::format("no usable cgroup v2 memory controller here: {}; {}",
                            facts.memory_reason, facts.way_out));
    return kUnavailable;
  }
  lab::DriverSetup setup{.options = options, .workload = request.workload, .self_exe = self_exe()};
  setup.system.cgroup2_mount = *facts.cgroup2_mount;
  setup.parent = options.parent.value_or(
      lab::default_parent(*facts.cgroup2_mount, facts.own_cgroup.value_or("/")));
  std::string out = options.out.value_or(lab::default_run_path(".", options.name, std::time(nullptr)));
  setup.run_dir = std::filesystem::absolute(out).lexically_normal().string();
  setup.machine = machine;
  setup.host = host::host_facts_json(facts);
  setup.code = {{"version", version()}, {"git_commit", git_commit()}, {"binary_hash", binary_hash()}};
  if (!options.quiet) setup.progress = print_line_to_stderr;

  auto result = lab::run_experiment(setup);
  if (!result) return print_error(result.error()), kFailure;
  if (request.json) {
    auto out_json = result->outcome_json;
    out_json["run_dir"] = result->run_dir;
    fmt::print("{}\n", out_json.dump(2));
  } else {
    print_result(*result);
  }
  return exit_code_for(result->outcome.status);
}

}  // namespace cgmem::cli
