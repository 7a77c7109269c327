// The kubelet's memory.swap.max, by version (kube_swap.cpp has the rules).
#pragma once

#include <string>

#include "common/error.h"
#include "managers/kubelet.h"

namespace cgmem::managers {

// The container's memory.swap.max row; `qos` is the pod's QoS class.
Assignment container_swap(const KubeletConfig& config, const KubeContainer& container,
                          QosClass qos, const std::string& scope);

// The kubelet's own validation of memorySwap.swapBehavior for the version
// (with the gates resolved).
Result<void> check_swap_config(const KubeletConfig& config);

}  // namespace cgmem::managers
