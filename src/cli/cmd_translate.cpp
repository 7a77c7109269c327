// cgmem translate MANAGER ...: what systemd, Docker, Podman, Compose, the
// kubelet, runc, Incus, Slurm and Nomad write to memory.min/low/high/max,
// memory.swap.max and memory.oom.group, and (with --working-set) what that
// does to a program. The rules live in src/managers; this file holds the
// command and the flags every manager shares. Each manager's own flags are
// in cmd_translate_kube.cpp, cmd_translate_oci.cpp and cmd_translate_units.cpp.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <string_view>
#include <vector>

#include "cli/app.h"
#include "cli/cmd_translate.h"
#include "cli/handlers.h"
#include "common/exit_codes.h"

namespace cgmem::cli {
namespace {

struct Common {
  TranslateOutput out;
  std::string working_set, alloc_rate, host_swap;
};

struct Manager {
  const char* name;
  const char* description;
  TranslateRun (*define)(CLI::App* sub);
};

// In the order of --help and of the "unknown manager" message.
constexpr std::array<Manager, 10> kManagers = {{
    {"systemd", "MemoryMin/Low/High/Max/SwapMax/ZSwapMax= and OOMPolicy=", define_systemd},
    {"docker", "docker run / docker create memory flags", define_docker},
    {"podman", "podman run memory flags and --cgroup-conf", define_podman},
    {"compose", "a compose file's services (mem_limit, deploy.resources...)", define_compose},
    {"kubelet", "a pod's requests and limits, by Kubernetes version (1.22-1.37)", define_kubelet},
    {"runc", "an OCI spec's linux.resources.memory and unified map, as runc writes them", define_runc},
    {"crun", "the same OCI spec, as crun (podman's default runtime) writes it", define_crun},
    {"incus", "limits.memory and limits.memory.enforce", define_incus},
    {"slurm", "a job's --mem under the task/cgroup plugin, cgroup v2", define_slurm},
    {"nomad", "a task's resources.memory and memory_max", define_nomad},
}};

void add_common(CLI::App* sub, Common& c) {
  sub->add_flag("--json", c.out.json, "print JSON");
  sub->add_flag("--sources", c.out.sources, "print the source of each rule under it");
  sub->add_option("--working-set", c.working_set,
                  "bytes the program holds: adds the verdict (fits, throttled, swaps, OOM kill)")
      ->check(size_validator({}));
  sub->add_option("--alloc-rate", c.alloc_rate, "bytes per second it allocates when unthrottled")
      ->check(size_validator({}));
  sub->add_option("--host-swap", c.host_swap,
                  "swap the host can give the cgroup (disk or zram) for the verdict; default 0, a host "
                  "without swap (kubelet: --swap-capacity)")
      ->check(size_validator({}));
  sub->add_option("--hz", c.out.hz, "CONFIG_HZ for the verdict (default 1000, the study's kernel)")
      ->check(whole_number(1, 10000))->check(CLI::IsMember({100, 250, 300, 1000}));
  sub->add_option("--page-size", c.out.page_size, "page size in bytes (default 4096)")
      ->check(whole_number(1, 1u << 21))->check(CLI::IsMember({4096, 16384, 65536}));
}

// The first word that is not an option must name a manager; CLI11 alone
// would say only that an argument was not expected.
bool unknown_manager(std::span<char*> args) {
  for (const char* arg : args) {
    std::string_view word(arg);
    if (word.starts_with('-')) continue;
    std::vector<std::string_view> names;
    for (const auto& m : kManagers) {
      if (m.name == word) return false;
      names.push_back(m.name);
    }
    print_error(Error{.what = fmt::format("unknown manager '{}'; one of {}", word, fmt::join(names, ", ")),
                      .hint = "cgmem translate MANAGER --help shows a manager's flags"});
    return true;
  }
  return false;
}

}  // namespace

int run_translate(std::span<char*> args) {
  if (unknown_manager(args)) return kUsage;
  CLI::App app("What a manager writes to the cgroup v2 memory files, and what that does to a program.\n"
               "Managers: systemd, docker, podman, compose, kubelet, runc, crun, incus, slurm, nomad.",
               "translate");
  app.require_subcommand(1);
  Common common;
  std::vector<std::pair<CLI::App*, TranslateRun>> managers;
  for (const auto& m : kManagers) {
    CLI::App* sub = app.add_subcommand(m.name, m.description);
    managers.emplace_back(sub, m.define(sub));
  }
  for (auto& [sub, run] : managers) add_common(sub, common);
  if (int code = parse(app, args); code >= 0) return code;

  TranslateOutput& o = common.out;
  if (!common.working_set.empty()) o.working_set = limit_from(common.working_set, {}).bytes();
  if (!common.alloc_rate.empty()) o.alloc_rate = static_cast<double>(limit_from(common.alloc_rate, {}).bytes());
  if (!common.host_swap.empty()) o.host_swap = limit_from(common.host_swap, {}).bytes();
  for (auto& [sub, run] : managers) {
    if (!sub->parsed()) continue;
    auto t = run(o);
    if (!t) {
      print_error(t.error());
      return t.error().err != 0 ? kFailure : kUsage;  // errno: a file could not be read
    }
    print_translation(*t, o);
    return kOk;
  }
  return kUsage;  // not reached: require_subcommand(1)
}

}  // namespace cgmem::cli
