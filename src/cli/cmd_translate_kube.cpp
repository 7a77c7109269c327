// cgmem translate kubelet: the kubelet's configuration and one container's
// resources (or a pod file) as flags. The rules are in src/managers.
#include <fmt/format.h>

#include <memory>

#include "cli/app.h"
#include "cli/cmd_translate.h"
#include "managers/input.h"
#include "managers/kubelet.h"
#include "managers/quantity.h"

namespace cgmem::cli {
namespace {

using managers::Translation;

struct KubeletFlags {
  // factor, reservation policy, swap behaviour and singleProcessOOMKill are
  // stored straight into the config; the rest is text until parsed.
  managers::KubeletConfig config;
  std::string version = "1.36";
  std::vector<std::string> gates;
  std::string node_capacity, system_reserved, kube_reserved, swap_capacity;
  std::string pod_file, limit, request, cpu_limit, cpu_request;
};

// A quantity flag; the error names the flag. `scale` 3 reads CPU millicores.
Result<std::optional<int64_t>> quantity_flag(const std::string& text, const char* flag, int scale = 0) {
  if (text.empty()) return std::optional<int64_t>();
  auto v = managers::parse_quantity_scaled(text, scale);
  if (!v) {
    v.error().what = fmt::format("{}: {}", flag, v.error().what);
    return std::unexpected(v.error());
  }
  return std::optional<int64_t>(*v);
}

Result<managers::KubeletConfig> config_from(const KubeletFlags& f, uint64_t page_size) {
  managers::KubeletConfig k = f.config;
  k.page_size = page_size;
  auto minor = managers::parse_kube_version(f.version);
  if (!minor) return std::unexpected(minor.error());
  k.minor = *minor;
  if (auto r = managers::apply_feature_gates(f.gates, k); !r) return std::unexpected(r.error());
  auto capacity = quantity_flag(f.node_capacity, "--node-capacity");
  auto sys = quantity_flag(f.system_reserved, "--system-reserved");
  auto kube = quantity_flag(f.kube_reserved, "--kube-reserved");
  auto swap_cap = quantity_flag(f.swap_capacity, "--swap-capacity");
  for (auto* r : {&capacity, &sys, &kube, &swap_cap})
    if (!*r) return std::unexpected(r->error());
  k.capacity = *capacity, k.swap_capacity = *swap_cap;
  k.system_reserved = sys->value_or(0), k.kube_reserved = kube->value_or(0);
  return managers::resolve_kubelet_config(k);
}

// The pod file, or one container from --limit/--request/--cpu-*.
Result<managers::KubePod> pod_from(const KubeletFlags& f) {
  if (!f.pod_file.empty()) {
    if (!f.limit.empty() || !f.request.empty())
      return fail("--pod and --limit/--request do not go together", {}, "the pod file has the resources");
    auto text = managers::read_input_file(f.pod_file);
    if (!text) return std::unexpected(text.error());
    return managers::parse_pod_yaml(*text, f.pod_file);
  }
  auto limit = quantity_flag(f.limit, "--limit");
  auto request = quantity_flag(f.request, "--request");
  auto cpu_limit = quantity_flag(f.cpu_limit, "--cpu-limit", 3);
  auto cpu_request = quantity_flag(f.cpu_request, "--cpu-request", 3);
  for (auto* r : {&limit, &request, &cpu_limit, &cpu_request})
    if (!*r) return std::unexpected(r->error());
  managers::KubeContainer c{.request = *request, .limit = *limit, .cpu_request = *cpu_request,
                            .cpu_limit = *cpu_limit};
  return managers::KubePod{.containers = {c}};
}

Result<Translation> kubelet(const KubeletFlags& f, const TranslateOutput& o) {
  auto config = config_from(f, o.page_size);
  if (!config) return std::unexpected(config.error());
  auto pod = pod_from(f);
  if (!pod) return std::unexpected(pod.error());
  return managers::translate_submitted_pod(*config, *pod);
}

}  // namespace

TranslateRun define_kubelet(CLI::App* kl) {
  auto f = std::make_shared<KubeletFlags>();
  kl->add_option("--version", f->version, "Kubernetes version, 1.22 to 1.37 (default 1.36)");
  kl->add_option("--pod", f->pod_file, "a Pod (or Deployment, StatefulSet, Job...) YAML file");
  kl->add_option("--limit", f->limit, "limits.memory of one container (256Mi, 1G, 1e9)");
  kl->add_option("--request", f->request, "requests.memory (unset with a limit: defaulted to the limit)");
  kl->add_option("--cpu-limit", f->cpu_limit, "limits.cpu (decides the Guaranteed class)");
  kl->add_option("--cpu-request", f->cpu_request, "requests.cpu");
  kl->add_option("--factor", f->config.factor, "memoryThrottlingFactor, in (0, 1] (default by version)");
  kl->add_option("--feature-gate", f->gates, "MemoryQoS=true|false, NodeSwap=true|false");
  kl->add_option("--memory-reservation-policy", f->config.reservation_policy, "None or TieredReservation (1.36+)")
      ->transform(one_of_names(managers::kReservationPolicyNames));
  kl->add_option("--swap-behavior", f->config.swap_behavior,
                 "memorySwap.swapBehavior: NoSwap or LimitedSwap (1.30+), LimitedSwap or UnlimitedSwap "
                 "(before 1.30); default: the version's")
      ->transform(one_of_names(managers::kSwapBehaviorNames));
  kl->add_option("--node-capacity", f->node_capacity, "node memory capacity (for containers without a limit)");
  kl->add_option("--system-reserved", f->system_reserved, "system-reserved memory");
  kl->add_option("--kube-reserved", f->kube_reserved, "kube-reserved memory");
  kl->add_option("--swap-capacity", f->swap_capacity, "node swap (LimitedSwap)");
  kl->add_flag("--single-process-oom-kill", f->config.single_process_oom_kill, "singleProcessOOMKill (1.32+)");
  return [f](const TranslateOutput& o) { return kubelet(*f, o); };
}

}  // namespace cgmem::cli
