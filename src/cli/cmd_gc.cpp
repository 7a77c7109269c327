// cgmem gc: remove the cgroups a killed driver left behind.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "host/probe.h"
#include "cli/app.h"
#include "common/exit_codes.h"
#include "cli/handlers.h"
#include "lab/gc.h"

namespace cgmem::cli {

int run_gc(std::span<char*> args) {
  CLI::App app(
      "Remove the cgroups that `cgmem run` created and could not remove (its driver was killed\n"
      "with SIGKILL). Only cgroups marked as cgmem's (xattr trusted.cgmem) whose driver is gone\n"
      "are touched: their processes are killed and the cgroup removed.",
      "gc");
  std::string parent;
  bool dry_run = false, json = false;
  app.add_option("--parent", parent, "where runs were created (default: as for `cgmem run`)");
  app.add_flag("--dry-run", dry_run, "only list what would be removed");
  app.add_flag("--json", json, "print JSON");
  if (int code = parse(app, args); code >= 0) return code;
  if (parent.empty()) {
    auto facts = host::probe_host();
    if (!facts.cgroup2_mount) {
      print_error("no cgroup2 file system is mounted here; pass --parent");
      return kUnavailable;
    }
    parent = lab::default_parent(*facts.cgroup2_mount, facts.own_cgroup.value_or("/"));
  }
  auto entries = lab::collect_garbage(parent, dry_run);
  if (!entries) return print_error(entries.error()), kFailure;
  bool failed = false;
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : *entries) {
    failed = failed || e.action.starts_with("failed");
    out.push_back({{"cgroup", e.cgroup}, {"driver_pid", e.driver}, {"run_dir", e.run_dir},
                   {"action", e.action}});
  }
  if (json) {
    fmt::print("{}\n", nlohmann::json{{"parent", parent}, {"cgroups", out}}.dump(2));
  } else if (entries->empty()) {
    fmt::print("no cgroup of cgmem's under {}\n", parent);
  } else {
    fmt::print("{:<40} {:>8}  {}\n", "cgroup", "driver", "action");
    for (const auto& e : *entries) fmt::print("{:<40} {:>8}  {}\n", e.cgroup, e.driver, e.action);
  }
  return failed ? kFailure : kOk;
}

}  // namespace cgmem::cli
