// The kubelet (Kubernetes 1.22 to 1.37): a pod's memory requests and limits
// to the container and pod cgroup files, by version.
//
// The rules, from kubernetes/kubernetes unless noted:
//   - API defaulting (SetDefaults_Pod, pkg/apis/core/v1/defaults.go): a
//     limit without a request gets request = limit.
//   - memory.max = the limit (calculateLinuxResources,
//     pkg/kubelet/kuberuntime/kuberuntime_container_linux.go); none: max.
//   - MemoryQoS (generateLinuxContainerResources, same file), when the
//     MemoryQoS gate is on (alpha, off by default, 1.22-1.36; beta, on in
//     1.37 per kubernetes/enhancements keps/sig-node/2570-memory-qos):
//       1.22-1.26: memory.high = int64(L x factor), factor default 0.8,
//                  written when above the request; memory.min = request.
//       1.27-1.35: memory.high = floor((request + factor x (L - request)) /
//                  page) x page, factor default 0.9, written only when the
//                  request differs from the limit and the value is above the
//                  request; memory.min = request.
//       1.36:      the same memory.high; memory.min/low only with
//                  memoryReservationPolicy TieredReservation (Guaranteed:
//                  memory.min, Burstable: memory.low), default None.
//       1.37:      memoryThrottlingFactor has no default: no memory.high
//                  unless set; when set, BestEffort containers get one too.
//     L is the limit, or node allocatable = capacity - system-reserved -
//     kube-reserved (getNodeAllocatableAbsoluteImpl,
//     pkg/kubelet/cm/node_container_manager_linux.go) without one.
//   - memory.oom.group = 1 on cgroup v2 since 1.28 (calculateLinuxResources),
//     unless singleProcessOOMKill (1.32+).
//   - memory.swap.max: by version and the NodeSwap gate (kube_swap.cpp).
//   - pod memory.max = sum of the limits when every container has one
//     (ResourceConfigForPod, pkg/kubelet/cm/helpers_linux.go), or the
//     pod-level limit (spec.resources, PodLevelResources).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.h"
#include "managers/assignment.h"
#include "managers/names.h"

namespace cgmem::managers {

// GetPodQOS() (pkg/apis/core/helper/qos): the pod's class, after defaulting.
enum class QosClass { BestEffort, Burstable, Guaranteed };

// memoryReservationPolicy (1.36+, KEP-2570): which requests become
// memory.min/low.
enum class ReservationPolicy { None, TieredReservation };

// memorySwap.swapBehavior. Which names a version takes is the kubelet's own
// validation (check_swap_config() in kube_swap.h); Unset is "", the
// version's default.
enum class SwapBehavior { Unset, NoSwap, LimitedSwap, UnlimitedSwap };

// The names as the kubelet's configuration spells them.
inline constexpr NameTable<ReservationPolicy, 2> kReservationPolicyNames = {
    {{"None", ReservationPolicy::None}, {"TieredReservation", ReservationPolicy::TieredReservation}}};
inline constexpr NameTable<SwapBehavior, 4> kSwapBehaviorNames = {
    {{"", SwapBehavior::Unset},
     {"NoSwap", SwapBehavior::NoSwap},
     {"LimitedSwap", SwapBehavior::LimitedSwap},
     {"UnlimitedSwap", SwapBehavior::UnlimitedSwap}}};

std::string_view name_of(QosClass qos);
std::string_view name_of(ReservationPolicy policy);
std::string_view name_of(SwapBehavior behavior);  // "" for Unset

struct KubeContainer {
  std::string name = "app";
  std::optional<int64_t> request, limit;          // memory bytes; nullopt: not in the spec
  std::optional<int64_t> cpu_request, cpu_limit;  // millicores
  bool init = false;     // an init container (runs before the others)
  bool sidecar = false;  // an init container with restartPolicy: Always
};

struct KubePod {
  std::string name;  // metadata.name; the scope is "pod NAME" (or "pod")
  std::vector<KubeContainer> containers;
  std::optional<int64_t> request, limit;  // spec.resources (pod-level), memory
};

struct KubeletConfig {
  int minor = 36;                          // 1.minor
  std::optional<bool> memory_qos;          // --feature-gate MemoryQoS=; nullopt: the version's default
  std::optional<bool> node_swap;           // --feature-gate NodeSwap=
  std::optional<double> factor;            // memoryThrottlingFactor; nullopt: the version's default
  ReservationPolicy reservation_policy = ReservationPolicy::None;  // memoryReservationPolicy (1.36+)
  SwapBehavior swap_behavior = SwapBehavior::Unset;                // memorySwap.swapBehavior
  bool single_process_oom_kill = false;    // singleProcessOOMKill (1.32+)
  std::optional<int64_t> capacity;         // node memory capacity
  int64_t system_reserved = 0, kube_reserved = 0;
  std::optional<int64_t> swap_capacity;    // node swap
  uint64_t page_size = 4096;
};

// "1.36", "1.36.6", "v1.37.2" -> minor 36/37; 1.22 to 1.37 only.
Result<int> parse_kube_version(std::string_view text);

// Checks and fills the version's defaults; errors for a factor outside (0, 1].
Result<KubeletConfig> resolve_kubelet_config(KubeletConfig config);

// SetDefaults_Pod: request = limit where only a limit is given; with a
// pod-level limit (1.34+, PodLevelResources) and no pod-level request,
// defaultPodRequests(): the containers' effective requests if any container
// has one, else the pod-level limit. The notes say what was defaulted.
KubePod apply_api_defaults(KubePod pod, std::vector<std::string>& notes, int minor = 36);

// What the API server rejects (ValidateResourceRequirements(),
// ValidatePodResources() in pkg/apis/core/validation/validation.go): a
// memory request above its limit, for a container or the pod.
Result<void> validate_pod(const KubePod& pod);

// GetPodQOS(), after defaulting.
QosClass pod_qos(const KubePod& pod);

Result<Translation> translate_kubelet(const KubeletConfig& config, const KubePod& pod);

// A pod as submitted: apply_api_defaults() (its notes first), then
// translate_kubelet().
Result<Translation> translate_submitted_pod(const KubeletConfig& config, const KubePod& pod);

// --feature-gate lists ("MemoryQoS=true,NodeSwap=false", repeatable): the
// value of `name`, or nullopt when not given. Only the gates cgmem models.
Result<std::optional<bool>> feature_gate(const std::vector<std::string>& lists, std::string_view name);

// Both gates cgmem models from the lists into `config` (nullopt: the
// version's default, which resolve_kubelet_config() fills in).
Result<void> apply_feature_gates(const std::vector<std::string>& lists, KubeletConfig& config);

// A pod from YAML: kind Pod, a workload with spec.template (Deployment,
// StatefulSet, DaemonSet, ReplicaSet, Job) or a CronJob. Every container's
// and init container's resources, and spec.resources.
Result<KubePod> parse_pod_yaml(std::string_view text, std::string_view name);

}  // namespace cgmem::managers
