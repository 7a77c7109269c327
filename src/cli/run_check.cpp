#include "cli/run_check.h"

#include <algorithm>

#include "cli/app.h"
#include "cli/workload_flags.h"
#include "common/duration.h"

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

// `Into` is uint64_t, or std::optional<uint64_t> where no flag means none.
template <typename Into>
void duration_flag(CLI::App& app, const char* name, Into& into, TimeUnit unit,
                   const char* help) {
  app.add_option_function<std::string>(
         name, [&into, unit](const std::string& text) { into = *parse_duration(text, unit); },
         help)
      ->check(duration_validator(unit));
}

}  // namespace

void add_run_flags(CLI::App& app, RunRequest& request) {
  lab::RunOptions& o = request.options;
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
  limit_flag(app, "--swap-high", o.swap_high, "memory.swap.high (its throttle adds to memory.high's; docs/model.md)");
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
  duration_flag(app, "--interval", o.interval_ns, TimeUnit::ms, "sampler interval (default 100ms)");
  duration_flag(app, "--cap", o.cap_ns, TimeUnit::s, "stop the run after this long (default 60s)");
  duration_flag(app, "--neighbour", request.neighbour_ns, TimeUnit::ms,
                "run a neighbour that allocates 64 KiB on the workload's CPU every INTERVAL (with --neighbours, each)");
  app.add_option_function<unsigned>("--neighbours", [&request](unsigned n) { request.neighbours = n; },
                                    "run N neighbours (1..64), each in its own cgroup, at --neighbour's INTERVAL "
                                    "(default 100ms), staggered across it")
      ->check(whole_number(1, lab::kMaxNeighbours));
  app.add_option_function<uint16_t>("--ready-tcp", [&o](uint16_t port) { o.ready_tcp = port; },
                                    "--command: start the load once 127.0.0.1:PORT accepts a connection")
      ->check(CLI::Range(1, 65535));
  duration_flag(app, "--ready-delay", o.ready_delay_ns, TimeUnit::s,
                "--command: start the load this long after the program (default: at once)");
  app.add_flag("--trace", o.trace,
               "record the kernel's charge-stock drains and each throttle's reclaim, penalty and sleep into "
               "trace.jsonl (cgmem's own kernel, built with --patch memcg-trace: docs/kernel.md)");
  app.add_flag("--quiet", o.quiet, "no progress line on stderr");
  app.add_flag("--force", o.force, "allow memory.max/high below 1MiB or above RAM");
  app.add_flag("--json", request.json, "print outcome.json (with run_dir) instead of a table");
  app.add_flag("--command", request.command,
               "run PROG ARGS given after `--` instead of the workload; `--load -- CMD ARGS` after them "
               "starts a load generator in its own cgroup");
}

std::pair<std::vector<std::string>, std::vector<std::string>> split_at_dashes(const std::vector<std::string>& words) {
  auto dashes = std::find(words.begin(), words.end(), "--");
  std::vector<std::string> after;
  if (dashes != words.end()) after.assign(dashes + 1, words.end());
  return {std::vector<std::string>(words.begin(), dashes), after};
}

Result<void> check_run(RunRequest& r, const std::vector<std::string>& after_dashes, const lab::Machine& machine) {
  if (r.neighbour_ns != 0) r.options.neighbour_ns = r.neighbour_ns;
  if (r.neighbours) {  // --neighbours N alone: the default interval
    r.options.neighbours = *r.neighbours;
    if (r.neighbour_ns == 0) r.options.neighbour_ns = lab::kDefaultNeighbourInterval;
  }
  if (r.command) {
    lab::split_command_words(after_dashes, r.options);
    if (r.options.command.empty())
      return fail("--command: no program after '--'", {}, "e.g. cgmem run --name r --max 64M --command -- redis-server");
  } else {
    r.options.workload_args = after_dashes;
  }
  if (auto valid = lab::validate(r.options, machine); !valid) return valid;
  if (r.command) return {};
  auto workload = parse_workload_words(r.options.workload_args, machine.page_size, machine.mem_total_bytes);
  if (!workload) return std::unexpected(workload.error());
  r.workload = *workload;
  return {};
}

Result<RunRequest> check_run_words(const std::vector<std::string>& words, const lab::Machine& machine) {
  RunRequest request;
  CLI::App app("run", "run");
  add_run_flags(app, request);
  auto [flags, after] = split_at_dashes(words);
  std::reverse(flags.begin(), flags.end());  // CLI11 takes its words last first
  try {
    app.parse(flags);
  } catch (const CLI::ParseError& e) {
    return fail(e.what());
  }
  if (auto checked = check_run(request, after, machine); !checked) return std::unexpected(checked.error());
  return request;
}

}  // namespace cgmem::cli
