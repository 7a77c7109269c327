#include "managers/kubelet.h"

#include "managers/kube_swap.h"

#include <charconv>
#include <cmath>
#include <fmt/format.h>

namespace cgmem::managers {
namespace {

constexpr const char* kResources =
    "kubernetes/kubernetes pkg/kubelet/kuberuntime/kuberuntime_container_linux.go";
constexpr const char* kDefaults = "kubernetes/kubernetes pkg/apis/core/v1/defaults.go SetDefaults_Pod()";

std::string bytes_text(int64_t v) { return fmt::format("{} ({})", v, format_bytes(static_cast<uint64_t>(v))); }

std::string scope_of(const KubeContainer& c) {
  return fmt::format("{} {}", c.init ? (c.sidecar ? "sidecar" : "init container") : "container", c.name);
}

// The memory.high the version computes, or nullopt with the reason.
struct High {
  std::optional<int64_t> value;
  std::string rule;
};

Result<High> memory_high(const KubeletConfig& k, const KubeContainer& c,
                         std::optional<int64_t> allocatable) {
  int64_t request = c.request.value_or(0), limit = c.limit.value_or(0);
  if (!k.factor)
    return High{std::nullopt, "memoryThrottlingFactor not set (1.37 has no default): no memory.high"};
  double f = *k.factor;
  if (k.minor >= 27 && k.minor <= 36 && request == limit)
    return High{std::nullopt, fmt::format("request = limit = {}: no memory.high", limit)};
  if (k.minor >= 37 && limit != 0 && request == limit)
    return High{std::nullopt, fmt::format("request = limit = {}: no memory.high", limit)};
  std::string base = "limit";
  int64_t L = limit;
  if (limit == 0) {
    if (!allocatable)
      return fail(fmt::format("{} has no memory limit, so memory.high uses node allocatable memory",
                              scope_of(c)),
                  {}, "give --node-capacity (and --system-reserved, --kube-reserved)");
    L = *allocatable, base = "node allocatable";
  }
  High h;
  if (k.minor <= 26) {
    h.value = static_cast<int64_t>(static_cast<double>(L) * f);
    h.rule = fmt::format("int64({} {} x factor {}) = {}", base, L, f, *h.value);
  } else {
    double x = std::floor(static_cast<double>(request) +
                          (static_cast<double>(L) - static_cast<double>(request)) * f);
    auto page = static_cast<int64_t>(k.page_size);
    h.value = static_cast<int64_t>(x / static_cast<double>(page)) * page;
    h.rule = fmt::format("floor((request {} + factor {} x ({} {} - {})) / {}) x {} = {}", request, f,
                         base, L, request, page, page, *h.value);
  }
  if (*h.value == 0 || *h.value <= request)
    return High{std::nullopt, h.rule + fmt::format(", not above the request {}: not written", request)};
  return h;
}

// memory.min / memory.low for a container or a pod, by version and policy.
void protection(const KubeletConfig& k, QosClass qos, const std::string& scope,
                int64_t request, const char* source, Translation& out) {
  if (request == 0) return;
  const Limit bytes = Limit::of(static_cast<uint64_t>(request));
  if (k.minor <= 35) {
    with_value(add(out, {.scope = scope, .file = "memory.min",
                         .rule = fmt::format("MemoryQoS: memory.min = requests.memory {}", request),
                         .source = source}),
               bytes, k.page_size);
    return;
  }
  if (k.reservation_policy != ReservationPolicy::TieredReservation) return;
  bool guaranteed = qos == QosClass::Guaranteed;
  with_value(add(out, {.scope = scope, .file = guaranteed ? "memory.min" : "memory.low",
                       .rule = fmt::format("TieredReservation, {}: {} = requests.memory {}", name_of(qos),
                                           guaranteed ? "memory.min" : "memory.low", request),
                       .source = source}),
             bytes, k.page_size);
}

// The container's memory.max: its limit, or the pod-level limit (1.34+).
void container_max(const KubeletConfig& k, const KubeContainer& c, const KubePod& pod, Translation& out) {
  Assignment max{.scope = scope_of(c), .file = "memory.max",
                 .source = std::string(kResources) + " calculateLinuxResources()"};
  if (c.limit.value_or(0) != 0) {
    with_value(max, Limit::of(static_cast<uint64_t>(*c.limit)), k.page_size);
    max.rule = fmt::format("limits.memory {}", bytes_text(*c.limit));
  } else if (k.minor >= 34 && pod.limit) {
    with_value(max, Limit::of(static_cast<uint64_t>(*pod.limit)), k.page_size);
    max.rule = fmt::format("no container limit: the pod-level limit {} (PodLevelResources)", *pod.limit);
  } else {
    max.set = false;
    max.rule = "no limits.memory: not written (max)";
  }
  add(out, std::move(max));
}

void oom_group(const KubeletConfig& k, const KubeContainer& c, Translation& out) {
  Assignment group{.scope = scope_of(c), .file = "memory.oom.group", .value = Limit::of(0), .flag = true,
                   .source = std::string(kResources) + " calculateLinuxResources()"};
  if (k.minor < 28) group.set = false, group.rule = "before 1.28 the kubelet does not set it";
  else if (k.minor >= 32 && k.single_process_oom_kill) group.set = false, group.rule = "singleProcessOOMKill: not set";
  else group.value = Limit::of(1), group.rule = "cgroup v2: kill the whole container on an OOM kill";
  add(out, std::move(group));
}

// MemoryQoS: memory.min/low and memory.high of one container.
Result<void> container_qos(const KubeletConfig& k, const KubeContainer& c, QosClass qos,
                           std::optional<int64_t> allocatable, Translation& out) {
  std::string scope = scope_of(c);
  if (!*k.memory_qos) {
    add(out, {.scope = scope, .file = "memory.high", .set = false,
              .rule = fmt::format("MemoryQoS gate off ({}): no memory.high",
                                  k.minor >= 37 ? "turned off" : "the default before 1.37"),
              .source = std::string(kResources) + " applyPlatformSpecificContainerConfig()"});
    return {};
  }
  protection(k, qos, scope, c.request.value_or(0), kResources, out);
  auto high = memory_high(k, c, allocatable);
  if (!high) return std::unexpected(high.error());
  Assignment a{.scope = scope, .file = "memory.high", .rule = high->rule,
               .source = std::string(kResources) + " generateLinuxContainerResources()"};
  if (high->value) with_value(a, Limit::of(static_cast<uint64_t>(*high->value)), k.page_size);
  else a.set = false;
  add(out, std::move(a));
  return {};
}

// The pod cgroup: memory.max (the sum of the limits, or the pod-level one)
// and, with MemoryQoS, its memory.min/low.
void pod_files(const KubeletConfig& k, const KubePod& pod, QosClass qos, Translation& out) {
  const std::string scope = pod.name.empty() ? "pod" : "pod " + pod.name;
  int64_t sum_limits = 0, sum_requests = 0, init_limit = 0, init_request = 0;
  bool all_limited = !pod.containers.empty();
  for (const auto& c : pod.containers) {
    all_limited &= c.limit.value_or(0) != 0;
    if (c.init && !c.sidecar) {  // init containers run before the others: the largest counts
      init_limit = std::max(init_limit, c.limit.value_or(0));
      init_request = std::max(init_request, c.request.value_or(0));
    } else {
      sum_limits += c.limit.value_or(0);
      sum_requests += c.request.value_or(0);
    }
  }
  Assignment max{.scope = scope, .file = "memory.max",
                 .source = "kubernetes/kubernetes pkg/kubelet/cm/helpers_linux.go ResourceConfigForPod()"};
  if (k.minor >= 34 && pod.limit) {
    with_value(max, Limit::of(static_cast<uint64_t>(*pod.limit)), k.page_size);
    max.rule = fmt::format("spec.resources.limits.memory {}", bytes_text(*pod.limit));
  } else if (all_limited) {
    int64_t total = std::max(sum_limits, init_limit);
    with_value(max, Limit::of(static_cast<uint64_t>(total)), k.page_size);
    max.rule = fmt::format("every container has a limit: the sum, {}", bytes_text(total));
  } else {
    max.set = false;
    max.rule = "a container without a limit: the pod gets none (max)";
  }
  add(out, std::move(max));
  if (*k.memory_qos)
    protection(k, qos, scope, pod.request.value_or(std::max(sum_requests, init_request)),
               "kubernetes/kubernetes pkg/kubelet/cm/helpers_linux.go ResourceConfigForPod()", out);
}

}  // namespace

Result<int> parse_kube_version(std::string_view text) {
  std::string_view v = text;
  if (v.starts_with('v')) v.remove_prefix(1);
  int major = 0, minor = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), major);
  bool ok = ec == std::errc() && p < v.data() + v.size() && *p == '.';
  if (ok) {
    auto [q, ec2] = std::from_chars(p + 1, v.data() + v.size(), minor);
    ok = ec2 == std::errc() && q != p + 1;
    if (ok && q != v.data() + v.size()) {  // a patch version: ".6"
      int patch = 0;
      auto [r, ec3] = std::from_chars(q + 1, v.data() + v.size(), patch);
      ok = *q == '.' && ec3 == std::errc() && r == v.data() + v.size();
    }
  }
  if (!ok || major != 1)
    return fail(fmt::format("kubelet version '{}' is not MAJOR.MINOR", text), {}, "e.g. --version 1.36");
  if (minor < 22 || minor > 37)
    return fail(fmt::format("kubelet version 1.{} is not modelled", minor), {},
                "cgmem knows 1.22 (MemoryQoS alpha) to 1.37");
  return minor;
}

Result<KubeletConfig> resolve_kubelet_config(KubeletConfig k) {
  if (k.factor && !(*k.factor > 0 && *k.factor <= 1.0))
    return fail(fmt::format("invalid configuration: memoryThrottlingFactor {} must be greater than 0 "
                            "and less than or equal to 1.0",
                            *k.factor));
  if (k.reservation_policy == ReservationPolicy::TieredReservation && k.minor < 36)
    return fail(fmt::format("memoryReservationPolicy is new in 1.36; 1.{} has none", k.minor));
  if (!k.memory_qos) k.memory_qos = k.minor >= 37;
  if (k.node_swap == false && k.minor >= 34)
    return fail("cannot set feature gate NodeSwap to false, feature is locked to true", {},
                "NodeSwap is GA and locked from 1.34 (pkg/features/kube_features.go): the kubelet refuses to start");
  if (!k.node_swap) k.node_swap = k.minor >= 30;
  if (!k.factor && k.minor <= 36) k.factor = k.minor <= 26 ? 0.8 : 0.9;
  if (auto r = check_swap_config(k); !r) return std::unexpected(r.error());
  return k;
}

namespace {

// AggregateContainerRequests(): the app containers' and sidecars' sum, or
// the largest init container's request if that is larger.
std::optional<int64_t> effective_requests(const KubePod& pod) {
  int64_t sum = 0, init = 0;
  bool any = false;
  for (const auto& c : pod.containers) {
    if (!c.request) continue;
    any = true;
    if (c.init && !c.sidecar) init = std::max(init, *c.request);
    else if (__builtin_add_overflow(sum, *c.request, &sum)) sum = INT64_MAX;  // validate_pod() refuses it
  }
  return any ? std::optional<int64_t>(std::max(sum, init)) : std::nullopt;
}

}  // namespace

KubePod apply_api_defaults(KubePod pod, std::vector<std::string>& notes, int minor) {
  for (auto& c : pod.containers) {
    if (c.limit && !c.request) {
      c.request = c.limit;
      notes.push_back(fmt::format("{}: a limit without a request: the API server sets the request "
                                  "to the limit ({}), so no memory.high ({})",
                                  scope_of(c), *c.limit, kDefaults));
    }
    if (c.cpu_limit && !c.cpu_request) c.cpu_request = c.cpu_limit;
  }
  if (minor >= 34 && pod.limit && !pod.request) {
    auto requests = effective_requests(pod);
    pod.request = requests ? requests : pod.limit;
    notes.push_back(fmt::format("pod: a pod-level limit without a pod-level request: the request defaults to {} ({}) "
                                "(kubernetes/kubernetes pkg/apis/core/v1/defaults.go defaultPodRequests())",
                                *pod.request, requests ? "the containers' requests" : "the pod-level limit"));
  }
  return pod;
}

Result<void> validate_pod(const KubePod& pod) {
  auto check = [](const std::string& who, std::optional<int64_t> request, std::optional<int64_t> limit) -> Result<void> {
    if (!request || !limit || *request <= *limit) return {};
    return fail(fmt::format("{} resources.requests.memory {}: must be less than or equal to memory limit of {}",
                            who, *request, *limit),
                {}, "the API server rejects the pod (pkg/apis/core/validation/validation.go "
                    "ValidateResourceRequirements()); nothing is written");
  };
  int64_t limits = 0, requests = 0;
  for (const auto& c : pod.containers) {
    if (auto r = check(scope_of(c), c.request, c.limit); !r) return r;
    if (__builtin_add_overflow(limits, c.limit.value_or(0), &limits) ||
        __builtin_add_overflow(requests, c.request.value_or(0), &requests))
      return fail("the containers' memory requests or limits add up to more than 2^63-1 bytes", {},
                  "the kubelet's int64 sums cannot hold them");
  }
  return check("pod", pod.request, pod.limit);
}

QosClass pod_qos(const KubePod& pod) {
  bool any = false, guaranteed = true;
  for (const auto& c : pod.containers) {
    any |= c.request.value_or(0) || c.limit.value_or(0) || c.cpu_request.value_or(0) ||
           c.cpu_limit.value_or(0);
    guaranteed &= c.limit.value_or(0) && c.cpu_limit.value_or(0) && c.request == c.limit &&
                  c.cpu_request == c.cpu_limit;
  }
  if (!any) return QosClass::BestEffort;
  return guaranteed ? QosClass::Guaranteed : QosClass::Burstable;
}

Result<Translation> translate_kubelet(const KubeletConfig& k, const KubePod& pod) {
  if (auto r = validate_pod(pod); !r) return std::unexpected(r.error());
  Translation out{.manager = fmt::format("kubelet 1.{}", k.minor)};
  if (k.swap_capacity) out.host_swap = static_cast<uint64_t>(std::max<int64_t>(0, *k.swap_capacity));
  const QosClass qos = pod_qos(pod);
  out.notes.push_back(fmt::format("pod QoS class: {}; MemoryQoS gate {}{}", name_of(qos),
                                  *k.memory_qos ? "on" : "off",
                                  k.factor ? fmt::format(", memoryThrottlingFactor {}", *k.factor)
                                           : ", memoryThrottlingFactor unset"));
  std::optional<int64_t> allocatable;
  if (k.capacity) allocatable = std::max<int64_t>(0, *k.capacity - k.system_reserved - k.kube_reserved);
  for (const auto& c : pod.containers) {
    container_max(k, c, pod, out);
    add(out, container_swap(k, c, qos, scope_of(c)));
    oom_group(k, c, out);
    if (auto r = container_qos(k, c, qos, allocatable, out); !r) return std::unexpected(r.error());
  }
  pod_files(k, pod, qos, out);
  if (k.minor <= 35 && *k.memory_qos)
    out.notes.push_back("MemoryQoS also sets memory.min on the QoS-level cgroups (kubepods, "
                        "kubepods/burstable) to the sum of the requests");
  if (k.minor >= 37 && *k.memory_qos && k.factor)
    out.notes.push_back("not modelled: 1.37 also writes memory.high on the pod cgroup of a pod with memory "
                        "limits (pkg/kubelet/cm/pod_container_manager_linux.go applyPodLevelMemoryHigh(), "
                        "cm.ApplyPodLevelMemoryHigh()); the pod row above shows memory.max only");
  return out;
}

}  // namespace cgmem::managers
