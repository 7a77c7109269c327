// `cgmem host`: what this machine's kernel and cgroups can do, read only.
#include <fmt/format.h>

#include "host/json.h"
#include "host/probe.h"
#include "cli/app.h"
#include "common/exit_codes.h"
#include "cli/handlers.h"

namespace cgmem::cli {

namespace {

std::string joined(const std::vector<std::string>& words) {
  return words.empty() ? "(none)" : fmt::format("{}", fmt::join(words, " "));
}

std::string swap_text(const host::HostFacts& facts) {
  if (facts.swaps.empty()) return "none";
  std::string out = format_bytes(facts.swap_total_bytes) + " on";
  for (const auto& swap : facts.swaps) out += " " + swap.name;
  return out;
}

void print_table(const host::HostFacts& f) {
  auto row = [](std::string_view name, const std::string& value) {
    fmt::print("{:<20}{}\n", name, value);
  };
  row("kernel", f.kernel.empty() ? "unknown" : f.kernel);
  row("HZ", f.hz ? fmt::format("{} (from {})", *f.hz, f.hz_source) : "unknown (no kernel config found)");
  row("stock slots", f.stock_slots ? fmt::format("{} (from the {})", *f.stock_slots, f.stock_slots_source) : "unknown");
  row("page size", std::to_string(f.page_size));
  row("CPUs", f.cpus ? std::to_string(f.cpus) : "unknown (nothing read from /sys/devices/system/cpu/online)");
  row("RAM", f.mem_total_bytes ? format_bytes(f.mem_total_bytes) : "unknown (no MemTotal in /proc/meminfo)");
  row("swap", swap_text(f));
  row("zswap", f.zswap ? (*f.zswap ? "on" : "off") : "not available");
  row("THP", f.thp.empty() ? "unknown" : f.thp);
  row("PSI", f.psi ? "yes" : "no (no readable /proc/pressure/memory)");
  row("cgroup2 mount", f.cgroup2_mount.value_or("none"));
  if (f.cgroup2_mount) {
    row("  controllers", joined(f.cgroup2_controllers));
    row("  enabled", joined(f.cgroup2_enabled));
  }
  if (f.memory_v1_mount) row("memory on cgroup v1", *f.memory_v1_mount);
  row("this process", f.own_cgroup ? *f.own_cgroup + " (controllers: " + joined(f.own_controllers) + ")"
                                   : "no cgroup v2 path");
  row("memory controller", (f.memory_controller_usable ? "usable: " : "NOT usable: ") + f.memory_reason);
  if (!f.way_out.empty()) row("way out", f.way_out);
}

}  // namespace

int run_host(std::span<char*> args) {
  CLI::App app("Report what this machine's kernel and cgroups can do for cgmem (reads only).", "host");
  bool json = false;
  host::HostRoots roots;
  app.add_flag("--json", json, "print JSON");
  app.add_option("--proc", roots.proc, "read this directory as /proc")->capture_default_str()->check(CLI::ExistingDirectory);
  app.add_option("--sys", roots.sys, "read this directory as /sys")->capture_default_str()->check(CLI::ExistingDirectory);
  app.add_option("--boot", roots.boot, "read this directory as /boot (may be absent)")->capture_default_str();
  if (int code = parse(app, args); code >= 0) return code;

  host::HostFacts facts = host::probe_host(roots);
  if (json) {
    fmt::print("{}\n", host::host_facts_json(facts).dump(2));
  } else {
    print_table(facts);
  }
  return kOk;  // a report: missing things are said, not failed
}

}  // namespace cgmem::cli
