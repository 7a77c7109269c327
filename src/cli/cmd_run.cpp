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
#include "cli/workload_flags.h"
#include "common/size.h"
#include "lab/duration.h"
#include "lab/gc.h"
#include "lab/run_dir.h"
#include "lab/run_driver.h"
#include "run_format/run_format.h"

namespace cgmem::cli {
namespace {

constexpr uint64_t kMaxCpu = 4095;  // the kernel's NR_CPUS default ceiling

void limit_flag(CLI::App& app, const char* name, std::optional<Limit>& into, const char* help) {
  app.add_option_function<std::string>(
         name, [&into](const std::string& text) { into = limit_from(text); }, help)
      ->check(size_validator());
}

void rate_flag(CLI::App& app, const char* name, std::optional<uint64_t>& into, const char* help) {
  app.add_option_function<std::string>(
         name, [&into](const std::string& text) { into = limit_from(text, {}).bytes(); }, help)
      ->check(size_validator({}));
}

void duration_flag(CLI::App& app, const char* name, uint64_t& into, lab::Unit unit,
                   const char* help) {
  app.add_option_function<std::string>(
         name, [&into, unit](const std::string& text) { into = *lab::parse_duration(text, unit); },
         help)
      ->check(CLI::Validator(
          [unit](std::string& text) {
            auto parsed = lab::parse_duration(text, unit);
            return parsed ? std::string() : parsed.error().message();
          },
          "DURATION"));
}

void add_run_flags(CLI::App& app, lab::RunOptions& o, uint64_t& neighbour) {
  app.add_option("--name", o.name, "the run's name and its cgroup's (PARENT/NAME)")->required();
  app.add_option_function<std::string>(
      "--out", [&o](const std::string& dir) { o.out = dir; },
      "run directory (default: runs/NAME-TIMESTAMP here)");
  app.add_option_function<std::string>(
      "--parent", [&o](const std::string& dir) { o.parent = dir; },
      "cgroup to create NAME under (default: the VM's /sys/fs/cgroup/cgmem, else our own)");
  limit_flag(app, "--max", o.max, "memory.max");
  limit_flag(app, "--high", o.high, "memory.high");
  limit_flag(app, "--low", o.low, "memory.low");
  limit_flag(app, "--min", o.min, "memory.min");
  limit_flag(app, "--swap-max", o.swap_max, "memory.swap.max");
  app.add_option_function<unsigned>("--high-throttle", [&o](unsigned shift) { o.high_throttle = shift; },
                                    "memory.high.throttle, the RFC's shift 0..32 (a kernel with its patch)")
      ->check(CLI::Range(0u, 32u));
  rate_flag(app, "--io-rbps", o.io_rbps, "io.max rbps on the run directory's disk (bytes/s)");
  rate_flag(app, "--io-wbps", o.io_wbps, "io.max wbps on the run directory's disk (bytes/s)");
  app.add_option_function<unsigned>("--cpu", [&o](unsigned cpu) { o.cpu = cpu; },
                                    "the workload's CPU (default 0)")
      ->check(whole_number(0, kMaxCpu));
  app.add_option_function<unsigned>("--sampler-cpu", [&o](unsigned cpu) { o.sampler_cpu = cpu; },
                                    "the sampler's CPU (default: another one)")
      ->check(whole_number(0, kMaxCpu));
  duration_flag(app, "--interval", o.interval_ns, lab::Unit::ms, "sampler interval (default 100ms)");
  duration_flag(app, "--cap", o.cap_ns, lab::Unit::s, "stop the run after this long (default 60s)");
  duration_flag(app, "--neighbour", neighbour, lab::Unit::ms,
                "run a neighbour that allocates 64 KiB on the workload's CPU every INTERVAL");
  app.add_option_function<uint16_t>("--ready-tcp", [&o](uint16_t port) { o.ready_tcp = port; },
                                    "--command: start the load once 127.0.0.1:PORT accepts a connection")
      ->check(CLI::Range(1, 65535));
  app.add_option_function<std::string>(
         "--ready-delay", [&o](const std::string& text) { o.ready_delay_ns = *lab::parse_duration(text, lab::Unit::s); },
         "--command: start the load this long after the program (default: at once)")
      ->check(CLI::Validator(
          [](std::string& text) {
            auto parsed = lab::parse_duration(text, lab::Unit::s);
            return parsed ? std::string() : parsed.error().message();
          },
          "DURATION"));
  app.add_flag("--quiet", o.quiet, "no progress line on stderr");
  app.add_flag("--force", o.force, "allow memory.max/high below 1MiB or above RAM");
}

void print_result(const lab::RunResult& r) {
  const auto& j = r.outcome_json;
  fmt::print("{:<9}{}\n", "run dir", r.run_dir);
  std::string status(run_format::to_string(r.outcome.status));
  if (r.outcome.time_to_kill_s) status += fmt::format(" after {:.2f}s", *r.outcome.time_to_kill_s);
  else status += fmt::format(" ({:.2f}s)", r.outcome.duration_s);
  if (r.outcome.signal) status += fmt::format(", signal {}", *r.outcome.signal);
  if (r.outcome.exit_code) status += fmt::format(", exit code {}", *r.outcome.exit_code);
  fmt::print("{:<9}{}\n", "outcome", status);
  if (j["ops"].is_number())
    fmt::print("{:<9}{} ops, {} samples\n", "logged", j["ops"].get<uint64_t>(), j["samples"].get<uint64_t>());
  else
    fmt::print("{:<9}{} samples (a --command run has no op lines)\n", "logged", j["samples"].get<uint64_t>());
  if (const auto load = j.find("load"); load != j.end()) {
    std::string text = (*load)["started"].get<bool>() ? fmt::format("started at {:.2f}s", (*load)["started_s"].get<double>())
                                                      : std::string("never started");
    if ((*load)["exit_code"].is_number()) text += fmt::format(", exit code {}", (*load)["exit_code"].get<int>());
    if ((*load)["signal"].is_number()) text += fmt::format(", signal {}", (*load)["signal"].get<int>());
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

// Splits "driver options -- workload options".
std::pair<std::span<char*>, std::vector<std::string>> split_at_dashes(std::span<char*> args) {
  auto dashes = std::find_if(args.begin(), args.end(),
                             [](const char* word) { return std::string_view(word) == "--"; });
  std::vector<std::string> workload;
  if (dashes != args.end()) workload.assign(dashes + 1, args.end());
  return {args.first(static_cast<size_t>(dashes - args.begin())), workload};
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
  lab::RunOptions options;
  uint64_t neighbour = 0;
  bool json = false;
  add_run_flags(app, options, neighbour);
  bool command = false;
  app.add_flag("--json", json, "print outcome.json (with run_dir) instead of a table");
  app.add_flag("--command", command,
               "run PROG ARGS given after `--` instead of the workload; `--load -- CMD ARGS` after them "
               "starts a load generator in its own cgroup");
  auto [driver_args, workload_words] = split_at_dashes(args);
  if (int code = parse(app, driver_args); code >= 0) return code;
  if (neighbour != 0) options.neighbour_ns = neighbour;
  if (command) {
    lab::split_command_words(workload_words, options);
    if (options.command.empty())
      return print_error(fail("--command: no program after '--'", {},
                                   "e.g. cgmem run --name r --max 64M --command -- redis-server").error()),
             kUsage;
  } else {
    options.workload_args = workload_words;
  }

  auto facts = host::probe_host();
  lab::Machine machine{.cpus = std::max(facts.cpus, 1u), .mem_total_bytes = facts.mem_total_bytes};
  if (auto valid = lab::validate(options, machine); !valid) return print_error(valid.error()), kUsage;
  auto workload = command ? Result<lab::WorkloadOptions>() : parse_workload_words(options.workload_args);
  if (!workload) return print_error(workload.error()), kUsage;
  if (!facts.cgroup2_mount || (!options.parent && !facts.memory_controller_usable)) {
    print_error(fmt::format("no usable cgroup v2 memory controller here: {}; {}",
                            facts.memory_reason, facts.way_out));
    return kUnavailable;
  }
  lab::DriverSetup setup{.options = options, .workload = *workload, .self_exe = self_exe()};
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
  if (json) {
    auto out_json = result->outcome_json;
    out_json["run_dir"] = result->run_dir;
    fmt::print("{}\n", out_json.dump(2));
  } else {
    print_result(*result);
  }
  return exit_code_for(result->outcome.status);
}

}  // namespace cgmem::cli
