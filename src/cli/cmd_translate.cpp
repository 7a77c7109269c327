// cgmem translate MANAGER ...: what systemd, Docker, Podman, Compose, the
// kubelet, runc, Incus, Slurm and Nomad write to memory.min/low/high/max,
// memory.swap.max and memory.oom.group, and (with --working-set) what that
// does to a program. The rules live in src/managers; this file parses flags.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <array>
#include <string_view>

#include "cli/app.h"
#include "cli/cmd_translate.h"
#include "common/exit_codes.h"
#include "cli/handlers.h"
#include "managers/compose.h"
#include "managers/docker.h"
#include "managers/input.h"
#include "managers/kubelet.h"
#include "managers/oci.h"
#include "managers/others.h"
#include "managers/quantity.h"
#include "managers/systemd.h"

namespace cgmem::cli {
namespace {

using managers::Translation;

struct Common {
  TranslateOutput out;
  std::string working_set, alloc_rate;
};

struct Flags {
  // systemd
  std::string unit_file, ram;
  std::vector<std::string> properties;
  // docker, podman, compose
  std::string memory, reservation, swap, compose_file, service;
  bool oom_kill_disable = false;
  std::vector<std::string> cgroup_conf;
  // kubelet
  std::string version = "1.36", pod_file, limit, request, cpu_limit, cpu_request, node_capacity,
              system_reserved, kube_reserved, swap_capacity, reservation_policy = "None",
              swap_behavior;
  std::optional<double> factor;
  std::vector<std::string> gates;
  bool single_process_oom_kill = false;
  // runc
  std::string spec_file;
  std::vector<std::string> unified;
  // incus
  std::string limits_memory, enforce = "hard", limits_memory_swap;
  // slurm
  std::string mem, cgroup_conf_file;
  uint64_t real_memory = 0;
  std::vector<std::string> slurm_settings;
  // nomad
  std::string driver = "docker";
  int64_t nomad_memory = 300, memory_max = 0, memory_hard_limit = 0;
};

uint64_t this_machines_ram() {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(size) : 0;
}

// --ram, or this machine's RAM with a note saying so.
std::optional<uint64_t> ram_for(const Flags& f, Translation* note_to, bool needed) {
  if (!f.ram.empty()) return limit_from(f.ram, {}).bytes();
  if (!needed) return std::nullopt;
  uint64_t ram = this_machines_ram();
  if (note_to) note_to->notes.push_back(fmt::format("percentages are of this machine's RAM, {} bytes; "
                                                    "--ram BYTES for another",
                                                    ram));
  return ram ? std::optional<uint64_t>(ram) : std::nullopt;
}

Result<std::optional<int64_t>> quantity_flag(const std::string& text, const char* flag, int scale = 0) {
  if (text.empty()) return std::optional<int64_t>();
  auto v = managers::parse_quantity_scaled(text, scale);
  if (!v) {
    v.error().what = fmt::format("{}: {}", flag, v.error().what);
    return std::unexpected(v.error());
  }
  return std::optional<int64_t>(*v);
}

Result<std::optional<int64_t>> docker_flag(const std::string& text, const char* flag, bool minus_one) {
  if (text.empty()) return std::optional<int64_t>();
  auto v = managers::parse_docker_size(text, minus_one);
  if (!v) {
    v.error().what = fmt::format("{} {}: {}", flag, text, v.error().what);
    return std::unexpected(v.error());
  }
  return std::optional<int64_t>(*v);
}

Result<Translation> systemd(const Flags& f, const TranslateOutput& o) {
  managers::SystemdInput in{.page_size = o.page_size};
  if (!f.unit_file.empty()) {
    auto text = managers::read_input_file(f.unit_file);
    if (!text) return std::unexpected(text.error());
    auto unit = managers::parse_unit_file(*text, f.unit_file);
    if (!unit) return std::unexpected(unit.error());
    in.unit = *unit;
  }
  bool percent = false;
  for (const auto& p : f.properties) {
    auto prop = managers::parse_property_assignment(p);
    if (!prop) return std::unexpected(prop.error());
    in.unit.properties.push_back(*prop);
  }
  for (const auto& p : in.unit.properties) percent |= managers::parse_permyriad(p.value).has_value();
  Translation notes;
  in.ram = ram_for(f, &notes, percent);
  auto t = managers::translate_systemd(in);
  if (t) t->notes.insert(t->notes.end(), notes.notes.begin(), notes.notes.end());
  return t;
}

Result<managers::DockerInput> docker_input(const Flags& f) {
  managers::DockerInput in{.oom_kill_disable = f.oom_kill_disable};
  auto memory = docker_flag(f.memory, "--memory", false);
  auto reservation = docker_flag(f.reservation, "--memory-reservation", false);
  auto swap = docker_flag(f.swap, "--memory-swap", true);
  for (auto* r : {&memory, &reservation, &swap})
    if (!*r) return std::unexpected(r->error());
  in.memory = *memory, in.reservation = *reservation, in.swap = *swap;
  for (const auto& kv : f.cgroup_conf) {
    auto pair = managers::key_value(kv, "--cgroup-conf");
    if (!pair) return std::unexpected(pair.error());
    in.cgroup_conf.push_back(*pair);
  }
  return in;
}

Result<Translation> kubelet(const Flags& f, const TranslateOutput& o) {
  auto minor = managers::parse_kube_version(f.version);
  if (!minor) return std::unexpected(minor.error());
  managers::KubeletConfig k{.minor = *minor, .factor = f.factor,
                            .reservation_policy = f.reservation_policy,
                            .swap_behavior = f.swap_behavior,
                            .single_process_oom_kill = f.single_process_oom_kill,
                            .page_size = o.page_size};
  auto qos = managers::feature_gate(f.gates, "MemoryQoS");
  auto swap = managers::feature_gate(f.gates, "NodeSwap");
  if (!qos) return std::unexpected(qos.error());
  if (!swap) return std::unexpected(swap.error());
  k.memory_qos = *qos, k.node_swap = *swap;
  auto capacity = quantity_flag(f.node_capacity, "--node-capacity");
  auto sys = quantity_flag(f.system_reserved, "--system-reserved");
  auto kube = quantity_flag(f.kube_reserved, "--kube-reserved");
  auto swap_cap = quantity_flag(f.swap_capacity, "--swap-capacity");
  for (auto* r : {&capacity, &sys, &kube, &swap_cap})
    if (!*r) return std::unexpected(r->error());
  k.capacity = *capacity, k.swap_capacity = *swap_cap;
  k.system_reserved = sys->value_or(0), k.kube_reserved = kube->value_or(0);
  auto config = managers::resolve_kubelet_config(k);
  if (!config) return std::unexpected(config.error());

  managers::KubePod pod;
  if (!f.pod_file.empty()) {
    if (!f.limit.empty() || !f.request.empty())
      return fail("--pod and --limit/--request do not go together", {}, "the pod file has the resources");
    auto text = managers::read_input_file(f.pod_file);
    if (!text) return std::unexpected(text.error());
    auto parsed = managers::parse_pod_yaml(*text, f.pod_file);
    if (!parsed) return std::unexpected(parsed.error());
    pod = *parsed;
  } else {
    managers::KubeContainer c;
    auto limit = quantity_flag(f.limit, "--limit");
    auto request = quantity_flag(f.request, "--request");
    auto cpu_limit = quantity_flag(f.cpu_limit, "--cpu-limit", 3);
    auto cpu_request = quantity_flag(f.cpu_request, "--cpu-request", 3);
    for (auto* r : {&limit, &request, &cpu_limit, &cpu_request})
      if (!*r) return std::unexpected(r->error());
    c.limit = *limit, c.request = *request, c.cpu_limit = *cpu_limit, c.cpu_request = *cpu_request;
    pod.containers.push_back(c);
  }
  std::vector<std::string> notes;
  pod = managers::apply_api_defaults(pod, notes, config->minor);
  auto t = managers::translate_kubelet(*config, pod);
  if (t) t->notes.insert(t->notes.begin(), notes.begin(), notes.end());
  return t;
}

Result<Translation> runc(const Flags& f, const TranslateOutput& o) {
  managers::OciMemory m;
  if (!f.spec_file.empty()) {
    auto text = managers::read_input_file(f.spec_file);
    if (!text) return std::unexpected(text.error());
    auto spec = managers::parse_oci_spec(*text);
    if (!spec) return std::unexpected(spec.error());
    m = *spec;
  }
  auto limit = managers::oci_number(f.limit, "--limit");
  auto reservation = managers::oci_number(f.reservation, "--reservation");
  auto swap = managers::oci_number(f.swap, "--swap");
  for (auto* r : {&limit, &reservation, &swap})
    if (!*r) return std::unexpected(r->error());
  if (*limit) m.limit = *limit;
  if (*reservation) m.reservation = *reservation;
  if (*swap) m.swap = *swap;
  for (const auto& kv : f.unified) {
    auto pair = managers::key_value(kv, "--unified");
    if (!pair) return std::unexpected(pair.error());
    m.unified.push_back(*pair);
  }
  return managers::translate_runc(m, o.page_size);
}

Result<Translation> slurm(const Flags& f, const TranslateOutput& o) {
  managers::SlurmInput in{.real_memory_mb = f.real_memory};
  if (!f.mem.empty()) {
    auto mb = managers::parse_slurm_mem(f.mem);
    if (!mb) return std::unexpected(mb.error());
    in.job_mb = *mb;
  }
  if (!f.cgroup_conf_file.empty()) {
    auto text = managers::read_input_file(f.cgroup_conf_file);
    if (!text) return std::unexpected(text.error());
    if (auto r = managers::apply_slurm_conf(*text, in.conf); !r) return std::unexpected(r.error());
  }
  for (const auto& s : f.slurm_settings)
    if (auto r = managers::apply_slurm_conf(s, in.conf); !r) return std::unexpected(r.error());
  return managers::translate_slurm(in, o.page_size);
}

void add_common(CLI::App* sub, Common& c) {
  sub->add_flag("--json", c.out.json, "print JSON");
  sub->add_flag("--sources", c.out.sources, "print the source of each rule under it");
  sub->add_option("--working-set", c.working_set,
                  "bytes the program holds: adds the verdict (fits, throttled, OOM kill)")
      ->check(size_validator({}));
  sub->add_option("--alloc-rate", c.alloc_rate, "bytes per second it allocates when unthrottled")
      ->check(size_validator({}));
  sub->add_option("--hz", c.out.hz, "CONFIG_HZ for the verdict (default 1000, the study's kernel)")
      ->check(whole_number(1, 10000))->check(CLI::IsMember({100, 250, 300, 1000}));
  sub->add_option("--page-size", c.out.page_size, "page size in bytes (default 4096)")
      ->check(whole_number(1, 1u << 21))->check(CLI::IsMember({4096, 16384, 65536}));
}

struct Subcommands {
  CLI::App *systemd, *docker, *podman, *compose, *kubelet, *runc, *incus, *slurm, *nomad;
};

void docker_flags(CLI::App* sub, Flags& f) {
  sub->add_option("-m,--memory", f.memory, "memory limit (256m, 1g)");
  sub->add_option("--memory-reservation", f.reservation, "memory soft limit (memory.low on cgroup v2)");
  sub->add_option("--memory-swap", f.swap, "memory plus swap; -1 for unlimited");
  sub->add_flag("--oom-kill-disable", f.oom_kill_disable, "disable the OOM killer (no effect on cgroup v2)");
}

void kubelet_flags(CLI::App* kl, Flags& f) {
  kl->add_option("--version", f.version, "Kubernetes version, 1.22 to 1.37 (default 1.36)");
  kl->add_option("--pod", f.pod_file, "a Pod (or Deployment, StatefulSet, Job...) YAML file");
  kl->add_option("--limit", f.limit, "limits.memory of one container (256Mi, 1G, 1e9)");
  kl->add_option("--request", f.request, "requests.memory (unset with a limit: defaulted to the limit)");
  kl->add_option("--cpu-limit", f.cpu_limit, "limits.cpu (decides the Guaranteed class)");
  kl->add_option("--cpu-request", f.cpu_request, "requests.cpu");
  kl->add_option("--factor", f.factor, "memoryThrottlingFactor, in (0, 1] (default by version)");
  kl->add_option("--feature-gate", f.gates, "MemoryQoS=true|false, NodeSwap=true|false");
  kl->add_option("--memory-reservation-policy", f.reservation_policy, "None or TieredReservation (1.36+)");
  kl->add_option("--swap-behavior", f.swap_behavior,
                 "memorySwap.swapBehavior: NoSwap or LimitedSwap (1.30+), LimitedSwap or UnlimitedSwap "
                 "(before 1.30); default: the version's");
  kl->add_option("--node-capacity", f.node_capacity, "node memory capacity (for containers without a limit)");
  kl->add_option("--system-reserved", f.system_reserved, "system-reserved memory");
  kl->add_option("--kube-reserved", f.kube_reserved, "kube-reserved memory");
  kl->add_option("--swap-capacity", f.swap_capacity, "node swap (LimitedSwap)");
  kl->add_flag("--single-process-oom-kill", f.single_process_oom_kill, "singleProcessOOMKill (1.32+)");
}

void other_flags(const Subcommands& s, Flags& f) {
  s.runc->add_option("--spec", f.spec_file, "config.json");
  s.runc->add_option("--limit", f.limit, "memory.limit in bytes, -1 unlimited");
  s.runc->add_option("--reservation", f.reservation, "memory.reservation in bytes");
  s.runc->add_option("--swap", f.swap, "memory.swap (memory plus swap) in bytes, -1 unlimited");
  s.runc->add_option("--unified", f.unified, "FILE=VALUE in the unified map, e.g. memory.high=241590272");
  s.incus->add_option("--limits-memory", f.limits_memory, "limits.memory (2GiB, 512MB, 25%)")->required();
  s.incus->add_option("--enforce", f.enforce, "limits.memory.enforce: hard (default) or soft");
  s.incus->add_option("--limits-memory-swap", f.limits_memory_swap,
                      "limits.memory.swap: true (default), false, or a size of swap (hard mode)");
  s.incus->add_option("--ram", f.ram, "host RAM in bytes, for N% (default: this machine's)")->check(size_validator({}));
  s.slurm->add_option("--mem", f.mem, "the job's memory (MB, or K/M/G/T)");
  s.slurm->add_option("--real-memory", f.real_memory, "the node's RealMemory in MB")->required();
  s.slurm->add_option("--cgroup-conf", f.cgroup_conf_file, "cgroup.conf");
  s.slurm->add_option("-p,--set", f.slurm_settings, "Key=Value as in cgroup.conf (after the file)");
  s.nomad->add_option("--driver", f.driver, "docker (default), exec or raw_exec");
  s.nomad->add_option("--memory", f.nomad_memory, "resources.memory in MB (default 300)");
  s.nomad->add_option("--memory-max", f.memory_max, "resources.memory_max in MB; -1: no hard limit");
  s.nomad->add_option("--memory-hard-limit", f.memory_hard_limit, "docker plugin memory_hard_limit in MB");
}

Subcommands define(CLI::App& app, Flags& f) {
  Subcommands s{
      app.add_subcommand("systemd", "MemoryMin/Low/High/Max/SwapMax/ZSwapMax= and OOMPolicy="),
      app.add_subcommand("docker", "docker run / docker create memory flags"),
      app.add_subcommand("podman", "podman run memory flags and --cgroup-conf"),
      app.add_subcommand("compose", "a compose file's services (mem_limit, deploy.resources...)"),
      app.add_subcommand("kubelet", "a pod's requests and limits, by Kubernetes version (1.22-1.37)"),
      app.add_subcommand("runc", "an OCI spec's linux.resources.memory and unified map"),
      app.add_subcommand("incus", "limits.memory and limits.memory.enforce"),
      app.add_subcommand("slurm", "a job's --mem under the task/cgroup plugin, cgroup v2"),
      app.add_subcommand("nomad", "a task's resources.memory and memory_max")};
  s.systemd->add_option("unit-file", f.unit_file, "a unit file ([Service], [Scope] or [Slice])");
  s.systemd->add_option("-p,--property", f.properties, "Name=Value, as systemd-run -p (after the file)");
  s.systemd->add_option("--ram", f.ram, "physical RAM in bytes, for N% (default: this machine's)")
      ->check(size_validator({}));
  docker_flags(s.docker, f);
  docker_flags(s.podman, f);
  s.podman->add_option("--cgroup-conf", f.cgroup_conf, "KEY=VALUE written to the cgroup, e.g. memory.high=241590272");
  s.compose->add_option("file", f.compose_file, "compose.yaml")->required();
  s.compose->add_option("--service", f.service, "only this service");
  kubelet_flags(s.kubelet, f);
  other_flags(s, f);
  return s;
}

Result<Translation> compose(const Flags& f, const TranslateOutput& o) {
  auto text = managers::read_input_file(f.compose_file);
  if (!text) return std::unexpected(text.error());
  auto services = managers::parse_compose_yaml(*text, f.compose_file);
  if (!services) return std::unexpected(services.error());
  return managers::translate_compose(*services, f.service, o.page_size);
}

Result<Translation> incus(const Flags& f, const TranslateOutput& o) {
  managers::IncusInput in{.limits_memory = f.limits_memory, .enforce = f.enforce,
                          .limits_memory_swap = f.limits_memory_swap};
  Translation notes;
  in.ram = ram_for(f, &notes, f.limits_memory.ends_with('%'));
  auto t = managers::translate_incus(in, o.page_size);
  if (t) t->notes.insert(t->notes.end(), notes.notes.begin(), notes.notes.end());
  return t;
}

Result<Translation> dispatch(const Subcommands& s, const Flags& f, const TranslateOutput& o) {
  if (s.systemd->parsed()) return systemd(f, o);
  if (s.docker->parsed() || s.podman->parsed()) {
    auto in = docker_input(f);
    if (!in) return std::unexpected(in.error());
    return s.docker->parsed() ? managers::translate_docker(*in, o.page_size)
                              : managers::translate_podman(*in, o.page_size);
  }
  if (s.compose->parsed()) return compose(f, o);
  if (s.kubelet->parsed()) return kubelet(f, o);
  if (s.runc->parsed()) return runc(f, o);
  if (s.incus->parsed()) return incus(f, o);
  if (s.slurm->parsed()) return slurm(f, o);
  return managers::translate_nomad({.driver = f.driver, .memory_mb = f.nomad_memory,
                                    .memory_max_mb = f.memory_max,
                                    .memory_hard_limit_mb = f.memory_hard_limit},
                                   o.page_size);
}

constexpr std::array<std::string_view, 9> kManagers = {"systemd", "docker",  "podman", "compose", "kubelet",
                                                       "runc",    "incus",   "slurm",  "nomad"};

// The first word that is not an option must name a manager; CLI11 alone
// would say only that an argument was not expected.
bool unknown_manager(std::span<char*> args) {
  for (const char* arg : args) {
    std::string_view word(arg);
    if (word.starts_with('-')) continue;
    for (auto m : kManagers)
      if (m == word) return false;
    print_error(Error{.what = fmt::format("unknown manager '{}'; one of {}", word, fmt::join(kManagers, ", ")),
                      .hint = "cgmem translate MANAGER --help shows a manager's flags"});
    return true;
  }
  return false;
}

}  // namespace

int run_translate(std::span<char*> args) {
  if (unknown_manager(args)) return kUsage;
  CLI::App app("What a manager writes to the cgroup v2 memory files, and what that does to a program.\n"
               "Managers: systemd, docker, podman, compose, kubelet, runc, incus, slurm, nomad.",
               "translate");
  app.require_subcommand(1);
  Common common;
  Flags f;
  Subcommands subs = define(app, f);
  for (auto* sub : app.get_subcommands({})) add_common(sub, common);
  if (int code = parse(app, args); code >= 0) return code;

  TranslateOutput& o = common.out;
  if (!common.working_set.empty()) o.working_set = limit_from(common.working_set, {}).bytes();
  if (!common.alloc_rate.empty()) o.alloc_rate = static_cast<double>(limit_from(common.alloc_rate, {}).bytes());
  auto t = dispatch(subs, f, o);
  if (!t) {
    print_error(t.error());
    return t.error().err != 0 ? kFailure : kUsage;  // errno: a file could not be read
  }
  print_translation(*t, o);
  return kOk;
}

}  // namespace cgmem::cli
