// memory.swap.max of a container, by kubelet version (KEP-2400, NodeSwap):
//
//   1.22-1.27  the kubelet writes memory+swap (generateLinuxContainerConfig())
//              only with the NodeSwap gate on: UnlimitedSwap -1 (max),
//              LimitedSwap or "" = the memory limit (no swap). With the gate off (the default) it
//              passes nothing and containerd sets memory+swap = limit
//              (WithResources()). Either way: 0 with a limit, max without.
//   1.28-1.29  configureContainerSwapResources() (kubernetes/kubernetes PRs
//              118764, 120784): gate off (the default): NoSwap, 0; gate on:
//              "" or UnlimitedSwap max, LimitedSwap the share below for
//              Burstable containers, else 0.
//   1.30+      the NodeSwap gate is on (locked from 1.34), UnlimitedSwap is
//              gone (PR 122745), "" is NoSwap (0); LimitedSwap gives Burstable
//              containers whose request differs from the limit
//              int64(request / capacity x swap) (calcSwapForBurstablePods()),
//              and 0 when that function fails (capacity 0, or a request
//              above the capacity: "cannot calculate swap allocation amount;
//              disallowing swap").
#include <fmt/format.h>

#include "managers/kube_swap.h"

namespace cgmem::managers {
namespace {

constexpr const char* kLinux = "kubernetes/kubernetes pkg/kubelet/kuberuntime/kuberuntime_container_linux.go";

std::string src(const char* function) { return fmt::format("{} {}", kLinux, function); }

// calcSwapForBurstablePods(): the share of the node's swap, or the error.
Result<int64_t> calc_swap(int64_t request, int64_t capacity, int64_t swap) {
  if (capacity <= 0) return fail("total node memory is 0");
  if (request > capacity)
    return fail(fmt::format("container request {} is larger than total node memory {}", request, capacity));
  double share = static_cast<double>(request) / static_cast<double>(capacity) * static_cast<double>(swap);
  if (!(share < 9223372036854775808.0)) return fail("the swap share does not fit in int64");
  return static_cast<int64_t>(share);
}

void limited(const KubeletConfig& k, const KubeContainer& c, QosClass qos, Assignment& a) {
  int64_t request = c.request.value_or(0), limit = c.limit.value_or(0);
  a.value = Limit::of(0);
  if (qos != QosClass::Burstable || (request == 0 && limit == 0) || request == limit) {
    a.rule = fmt::format("LimitedSwap applies only to Burstable containers whose request differs "
                         "from the limit ({}): 0", name_of(qos));
    a.source = src("GetContainerSwapBehavior()");
    return;
  }
  a.source = src("calcSwapForBurstablePods()");
  int64_t cap = k.capacity.value_or(0), swap = k.swap_capacity.value_or(0);
  auto v = calc_swap(request, cap, swap);
  if (!v) {
    a.rule = fmt::format("LimitedSwap: {}: the kubelet logs \"cannot calculate swap allocation "
                         "amount; disallowing swap\" and writes 0", v.error().what);
    return;
  }
  a.value = Limit::of(static_cast<uint64_t>(*v));
  a.rule = fmt::format("LimitedSwap: int64(request {} / capacity {} x swap {}) = {}", request, cap, swap, *v);
}

void before_128(const KubeletConfig& k, const KubeContainer& c, Assignment& a) {
  bool has_limit = c.limit.value_or(0) != 0;
  a.source = src("generateLinuxContainerConfig()");
  if (*k.node_swap && k.swap_behavior == SwapBehavior::UnlimitedSwap) {
    a.value = Limit::max();
    a.rule = "NodeSwap on, UnlimitedSwap: memory+swap -1, swap.max max";
    return;
  }
  std::string why = *k.node_swap ? "NodeSwap on, LimitedSwap: memory+swap = the memory limit"
                                 : "NodeSwap off: the kubelet passes no swap limit and containerd sets "
                                   "memory+swap = the memory limit";
  if (has_limit) {
    a.value = Limit::of(0), a.rule = why + ": swap.max 0";
  } else {
    a.set = false, a.value = Limit::max();
    a.rule = why + "; no limit, so nothing is written (max)";
  }
}

}  // namespace

Assignment container_swap(const KubeletConfig& k, const KubeContainer& c, QosClass qos,
                          const std::string& scope) {
  Assignment a{.scope = scope, .file = "memory.swap.max", .value = Limit::of(0),
               .source = src("configureContainerSwapResources()")};
  const bool unset = k.swap_behavior == SwapBehavior::Unset;
  if (k.minor <= 27) {
    before_128(k, c, a);
  } else if (!*k.node_swap) {
    a.rule = "NodeSwap gate off: NoSwap, 0";
  } else if (k.swap_behavior == SwapBehavior::LimitedSwap) {
    limited(k, c, qos, a);
  } else if (k.swap_behavior == SwapBehavior::UnlimitedSwap || (k.minor <= 29 && unset)) {
    a.value = Limit::max();
    a.rule = fmt::format("{}UnlimitedSwap: max", unset ? "swapBehavior unset, 1.28-1.29 default " : "");
  } else {
    a.rule = unset ? "swapBehavior unset: NoSwap (the default from 1.30), 0" : "swapBehavior NoSwap: 0";
  }
  if (a.set) with_value(a, a.value, k.page_size);
  return a;
}

Result<void> check_swap_config(const KubeletConfig& k) {
  const SwapBehavior b = k.swap_behavior;
  const std::string where = fmt::format("kubelet 1.{}: pkg/kubelet/apis/config/validation/validation.go "
                                        "ValidateKubeletConfiguration()", k.minor);
  if (b != SwapBehavior::Unset && !*k.node_swap)
    return fail("invalid configuration: memorySwap.swapBehavior cannot be set when NodeSwap feature flag is "
                "disabled", {}, where + "; turn the gate on with --feature-gate NodeSwap=true");
  // NoSwap is new in 1.30, when UnlimitedSwap went (PR 122745).
  bool ok = k.minor <= 29 ? b != SwapBehavior::NoSwap : b != SwapBehavior::UnlimitedSwap;
  if (!ok)
    return fail(fmt::format("invalid configuration: memorySwap.swapBehavior \"{}\" must be one of: \"\", {}",
                            name_of(b), k.minor <= 29 ? "\"LimitedSwap\", or \"UnlimitedSwap\""
                                             : "\"LimitedSwap\" or \"NoSwap\""),
                {}, where);
  if (b == SwapBehavior::LimitedSwap && k.minor >= 28 && (!k.capacity || !k.swap_capacity))
    return fail("LimitedSwap needs the node's memory and swap", {}, "give --node-capacity and --swap-capacity");
  return {};
}

}  // namespace cgmem::managers
