#include "advise/settings.h"

#include <fmt/format.h>

#include <cmath>

namespace cgmem::advise {
namespace {

using nlohmann::json;

constexpr uint64_t kMiB = 1 << 20;

uint64_t mib_up(uint64_t bytes) { return (bytes + kMiB - 1) / kMiB; }

// A factor printed with 9 decimals reads back as the value.
std::string factor_text(double f) { return fmt::format("{:.9f}", f); }

Setting systemd(const Advice& a) {
  Setting s{.manager = "systemd"};
  s.lines = {"# /etc/systemd/system/UNIT.service.d/memory.conf, then systemctl daemon-reload",
             "[Service]"};
  if (a.memory_high_bytes) s.lines.push_back(fmt::format("MemoryHigh={}", *a.memory_high_bytes));
  s.lines.push_back(fmt::format("MemoryMax={}", a.memory_max_bytes));
  s.json = {{"MemoryHigh", a.memory_high_bytes ? json(*a.memory_high_bytes) : json(nullptr)},
            {"MemoryMax", a.memory_max_bytes}};
  return s;
}

Setting kubernetes(const Advice& a, const SettingsInput& in) {
  Setting s{.manager = "kubernetes"};
  const uint64_t request = std::min(in.working_set, a.memory_max_bytes);
  s.lines = {"resources:", fmt::format("  requests: {{memory: \"{}\"}}", request),
             fmt::format("  limits: {{memory: \"{}\"}}", a.memory_max_bytes)};
  s.json = {{"requests_memory", request}, {"limits_memory", a.memory_max_bytes},
            {"memory_throttling_factor", nullptr}, {"version", fmt::format("1.{}", in.kubernetes_minor)}};
  if (!a.memory_high_bytes) {
    s.caveats.push_back(in.kubernetes_minor >= 37
                            ? "no memory.high: leave memoryThrottlingFactor unset (1.37 has no default)"
                            : "no memory.high: leave the MemoryQoS feature gate off");
    return s;
  }
  auto f = throttling_factor(request, a.memory_max_bytes, *a.memory_high_bytes, in.kubernetes_minor);
  if (!f) {
    s.caveats.push_back("no memoryThrottlingFactor in (0, 1] gives this memory.high for this request and limit");
    return s;
  }
  s.json["memory_throttling_factor"] = std::stod(factor_text(*f));
  s.lines.push_back(fmt::format("# kubelet configuration, the whole node: memoryThrottlingFactor: {}", factor_text(*f)));
  if (in.kubernetes_minor <= 36)
    s.lines.push_back(fmt::format("# and the kubelet's feature gate MemoryQoS=true (alpha, off by default in 1.{})",
                                  in.kubernetes_minor));
  s.caveats.push_back("memoryThrottlingFactor is one value per node: every Burstable pod on it gets memory.high by "
                      "this factor, so pods whose margins differ cannot all get theirs");
  return s;
}

Setting docker(const Advice& a, const char* name) {
  Setting s{.manager = name};
  bool podman = std::string_view(name) == "podman";
  std::string flags = fmt::format("{} run --memory {}", name, a.memory_max_bytes);
  if (podman && a.memory_high_bytes) flags += fmt::format(" --cgroup-conf=memory.high={}", *a.memory_high_bytes);
  s.lines = {flags + " IMAGE"};
  s.json = {{"memory", a.memory_max_bytes}};
  if (podman) s.json["cgroup_conf"] = a.memory_high_bytes ? json{{"memory.high", *a.memory_high_bytes}} : json::object();
  if (!podman && a.memory_high_bytes)
    s.caveats.push_back("Docker has no flag for memory.high (--memory-reservation is memory.low): the container "
                        "gets memory.max alone");
  return s;
}

Setting compose(const Advice& a) {
  Setting s{.manager = "compose"};
  s.lines = {"services:", "  app:", fmt::format("    mem_limit: {}", a.memory_max_bytes)};
  s.json = {{"mem_limit", a.memory_max_bytes}};
  if (a.memory_high_bytes) s.caveats.push_back("Compose has no key for memory.high: the service gets memory.max alone");
  return s;
}

Setting nomad(const Advice& a, const SettingsInput& in) {
  Setting s{.manager = "nomad"};
  uint64_t max_mb = mib_up(a.memory_max_bytes), memory_mb = std::min(mib_up(in.working_set), max_mb);
  s.lines = {"resources {", fmt::format("  memory     = {}", memory_mb), fmt::format("  memory_max = {}", max_mb), "}"};
  s.json = {{"memory", memory_mb}, {"memory_max", max_mb}};
  s.caveats.push_back("Nomad takes MiB: memory_max is memory.max rounded up to a MiB");
  if (a.memory_high_bytes) s.caveats.push_back("Nomad has no memory.high: the task gets memory.max alone");
  return s;
}

Setting slurm(const Advice& a) {
  Setting s{.manager = "slurm"};
  uint64_t high = a.memory_high_bytes.value_or(a.memory_max_bytes);
  uint64_t mem_mb = mib_up(high);
  // AllowedRAMSpace in hundredths of a percent, rounded up: memory.max at or above the recommendation.
  double pct = std::ceil(static_cast<double>(a.memory_max_bytes) * 10000 / static_cast<double>(mem_mb * kMiB)) / 100;
  pct = std::max(pct, 100.0);
  s.lines = {fmt::format("sbatch --mem={}M ...", mem_mb),
             fmt::format("# cgroup.conf, the whole cluster: ConstrainRAMSpace=yes AllowedRAMSpace={:g}", pct)};
  s.json = {{"mem_mb", mem_mb}, {"constrain_ram_space", true}, {"allowed_ram_space", pct}};
  s.caveats.push_back("Slurm takes MiB: --mem is memory.high rounded up to a MiB");
  s.caveats.push_back("AllowedRAMSpace is one value for the whole cluster: every job's memory.max is its --mem times it");
  return s;
}

}  // namespace

std::optional<double> throttling_factor(uint64_t request, uint64_t limit, uint64_t high, int minor) {
  double f = 0;
  if (minor <= 26) {
    if (limit == 0) return std::nullopt;
    f = static_cast<double>(high) / static_cast<double>(limit);
  } else {
    if (limit <= request || high <= request) return std::nullopt;
    f = static_cast<double>(high - request) / static_cast<double>(limit - request);
  }
  f = std::ceil(f * 1e9) / 1e9;
  if (!(f > 0 && f <= 1)) return std::nullopt;
  return f;
}

std::vector<Setting> settings_for(const Advice& a, const SettingsInput& in) {
  return {systemd(a), kubernetes(a, in), docker(a, "docker"), docker(a, "podman"), compose(a), nomad(a, in), slurm(a)};
}

}  // namespace cgmem::advise
