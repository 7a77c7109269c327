// cgmem workload: the study's allocating workload; JSON lines on stdout.
#include <unistd.h>

#include <fmt/format.h>
#include <vector>

#include "cgroup/reader.h"
#include "cli/app.h"
#include "common/exit_codes.h"
#include "cli/handlers.h"
#include "cli/workload_flags.h"
#include "lab/own_code.h"
#include "lab/own_counters.h"
#include "lab/workload.h"

namespace cgmem::cli {
namespace {

Result<std::string> counters_dir(const lab::WorkloadOptions& o) {
  if (o.cgroup_dir) return *o.cgroup_dir;
  auto mount = lab::cgroup2_mount();
  if (!mount) return std::unexpected(mount.error());
  auto text = cgroup::read_text("/proc/self/cgroup");
  if (!text) return std::unexpected(text.error());
  return lab::own_cgroup_dir(*mount, *text);
}

}  // namespace

int run_workload(std::span<char*> args) {
  CLI::App app(
      "Allocate memory the way the study's workload did, one JSON line per operation on stdout\n"
      "(op, phase, t_ns, lat_ns, cpu, pid, held_bytes, memory.current and the memory.events\n"
      "high/max counters before and after). Its output is always JSON lines; --json is accepted.",
      "workload");
  lab::WorkloadOptions options;
  bool json = false;
  add_workload_flags(app, options);
  app.add_flag("--json", json, "JSON lines on stdout (always)");
  if (int code = parse(app, args); code >= 0) return code;
  if (auto valid = lab::validate(options, lab::page_size_here(), lab::ram_here()); !valid) {
    print_error(valid.error());
    return kUsage;
  }
  if (options.own_code && !lab::adopt_own_copy()) {
    std::vector<char*> words{const_cast<char*>("workload")};
    words.insert(words.end(), args.begin(), args.end());
    auto exec = lab::exec_own_copy(words, options.own_code_bytes, print_line_to_stderr);  // returns only on failure
    print_error(exec.error());
    return kFailure;
  }
  auto dir = counters_dir(options);
  if (!dir) return print_error(dir.error()), kFailure;
  auto counters = lab::OwnCounters::open(*dir, options.set_own_high.has_value());
  if (!counters) return print_error(counters.error()), kFailure;
  auto code = lab::run_workload(options, *counters, STDOUT_FILENO, [](const std::string& message) { print_error(message); });
  if (!code) return print_error(code.error()), kFailure;
  return *code;
}

}  // namespace cgmem::cli
