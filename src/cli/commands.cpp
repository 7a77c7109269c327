#include <algorithm>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/handlers.h"

namespace cgmem::cli {

namespace {

constexpr Command kCommands[] = {
    {"version", "print cgmem's version and code identity", run_version},
    {"host", "what this machine's kernel and cgroups can do (reads only)", run_host},
    {"vm", "run a cgmem command in a VM with a real kernel (QEMU)", run_vm},
    {"kernel", "build and list cgmem's own kernels for the VM (HZ, the RFC's patch)", run_kernel},
    {"workload", "allocate memory like the study's workload, one JSON line per op", run_workload},
    {"run", "run the workload in a new cgroup with limits, sample it, record a run directory", run_run},
    {"gc", "remove cgroups that a killed `cgmem run` left behind", run_gc},
    {"matrix", "run a study's configs x workloads x repetitions, natively or in the VM", run_matrix},
    {"report", "summarize run directories and compare them with the kernel's formula", run_report},
    {"model", "predict what memory.high does: penalty, time to grow, tables", run_model},
    {"advise", "the memory.high and memory.max to set for a program, from runs of it without limits", run_advise},
    {"watch", "which cgroups are throttled, thrashing, swapping, at memory.max or killed, live (reads only)", run_watch},
    {"guard", "act on a cgroup2 subtree by a policy: kill crawlers, raise memory.high, emulate the RFC shift", run_guard},
    {"top", "a live terminal view of the cgroups under memory pressure, worst first", run_top},
    {"exporter", "serve the watch scan as Prometheus metrics (/metrics, /healthz; reads only)", run_exporter},
    {"translate", "what systemd, Docker, Kubernetes... write to the memory files, and what it does", run_translate},
};

// Levenshtein distance, for "did you mean".
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::span<const Command> commands() { return kCommands; }

std::string_view closest_command(std::string_view typed) {
  std::string_view best;
  size_t best_distance = 3;  // farther than 2 edits is not a typo
  for (const auto& command : kCommands) {
    size_t d = edit_distance(typed, command.name);
    if (command.name.starts_with(typed) && typed.size() >= 2) d = 0;
    if (d < best_distance) best = command.name, best_distance = d;
  }
  return best;
}

}  // namespace cgmem::cli
