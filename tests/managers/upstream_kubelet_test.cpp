// The kubelet's edge cases, each with the value its own source gives
// (kubernetes/kubernetes; the file and function are named per test).
#include <gtest/gtest.h>

#include "managers/kubelet.h"

namespace cgmem::managers {
namespace {

constexpr int64_t kMi = int64_t{1} << 20, kGi = int64_t{1} << 30;

KubePod one(std::optional<int64_t> request, std::optional<int64_t> limit) {
  return KubePod{.containers = {KubeContainer{.request = request, .limit = limit}}};
}

Result<Translation> run(KubeletConfig config, KubePod pod) {
  auto k = resolve_kubelet_config(config);
  if (!k) return std::unexpected(k.error());
  std::vector<std::string> notes;
  return translate_kubelet(*k, apply_api_defaults(pod, notes, k->minor));
}

const Assignment* swap(const Result<Translation>& t) {
  return t ? find(*t, "container app", "memory.swap.max") : nullptr;
}

// pkg/apis/core/v1/defaults.go defaultPodRequests(): with a pod-level limit
// and container requests, the pod request is the containers' total, not the
// pod limit; with no container request it is the pod limit.
TEST(UpstreamKubelet, DefaultPodRequests) {
  KubePod pod{.containers = {{.name = "a", .request = 256 * kMi}, {.name = "b", .request = 128 * kMi}},
              .limit = kGi};
  std::vector<std::string> notes;
  EXPECT_EQ(apply_api_defaults(pod, notes, 34).request, 384 * kMi);
  EXPECT_EQ(notes.back(),
            "pod: a pod-level limit without a pod-level request: the request defaults to 402653184 (the "
            "containers' requests) (kubernetes/kubernetes pkg/apis/core/v1/defaults.go defaultPodRequests())");
  KubePod no_requests{.containers = {{.name = "a"}}, .limit = kGi};
  EXPECT_EQ(apply_api_defaults(no_requests, notes, 34).request, kGi);
  // An init container counts with its own request when that is the largest.
  KubePod init{.containers = {{.name = "i", .request = 512 * kMi, .init = true}, {.name = "a", .request = 64 * kMi}},
               .limit = kGi};
  EXPECT_EQ(apply_api_defaults(init, notes, 34).request, 512 * kMi);
  // TieredReservation then protects the containers' total, not the limit.
  auto t = run({.minor = 36, .memory_qos = true, .reservation_policy = ReservationPolicy::TieredReservation, .capacity = 8 * kGi},
               pod);
  ASSERT_TRUE(t) << t.error().message();
  EXPECT_EQ(find(*t, "pod", "memory.low")->value, Limit::of(384 * kMi));
}

// kuberuntime_container_linux.go calcSwapForBurstablePods(): a request above
// the node's memory is an error, and ConfigureLimitedSwap() falls back to
// no swap.
TEST(UpstreamKubelet, LimitedSwapRequestAboveCapacityIsNoSwap) {
  KubeletConfig k{.minor = 34, .swap_behavior = SwapBehavior::LimitedSwap, .capacity = 16 * kGi, .swap_capacity = 4 * kGi};
  auto t = run(k, one(32 * kGi, 64 * kGi));
  ASSERT_NE(swap(t), nullptr);
  EXPECT_EQ(swap(t)->value, Limit::of(0));
  EXPECT_EQ(swap(t)->rule,
            "LimitedSwap: container request 34359738368 is larger than total node memory 17179869184: the "
            "kubelet logs \"cannot calculate swap allocation amount; disallowing swap\" and writes 0");
  // int64(1Gi / 16Gi x 4Gi) = 268435456, which is whole pages.
  EXPECT_EQ(swap(run(k, one(kGi, 2 * kGi)))->value, Limit::of(268435456));
  // int64(1000000 / 16Gi x 4Gi) = 250000: the kernel keeps 61 pages.
  auto odd = run(k, one(1000000, 2 * kGi));
  EXPECT_EQ(swap(odd)->value, Limit::of(249856));
  EXPECT_EQ(swap(odd)->caveats[0], "written as 250000; the kernel keeps whole pages");
}

// Before 1.30: the NodeSwap gate (pkg/features/kube_features.go: alpha off
// 1.22, beta off 1.28, beta on 1.30, GA locked 1.34) and the behaviours of
// those releases.
TEST(UpstreamKubelet, SwapBefore130) {
  // 1.22-1.27, gate off: containerd's memory+swap = limit.
  EXPECT_EQ(swap(run({.minor = 25}, one(kGi, 2 * kGi)))->value, Limit::of(0));
  EXPECT_FALSE(swap(run({.minor = 25}, one(kGi, std::nullopt)))->set);
  // Gate on, UnlimitedSwap: memory+swap -1.
  EXPECT_TRUE(swap(run({.minor = 25, .node_swap = true, .swap_behavior = SwapBehavior::UnlimitedSwap}, one(kGi, 2 * kGi)))
                  ->value.is_max());
  // 1.28-1.29: gate off is NoSwap (0), gate on and unset is UnlimitedSwap.
  EXPECT_EQ(swap(run({.minor = 28}, one(kGi, std::nullopt)))->value, Limit::of(0));
  EXPECT_TRUE(swap(run({.minor = 29, .node_swap = true}, one(kGi, 2 * kGi)))->value.is_max());
  KubeletConfig limited{.minor = 29, .node_swap = true, .swap_behavior = SwapBehavior::LimitedSwap, .capacity = 16 * kGi,
                        .swap_capacity = 4 * kGi};
  EXPECT_EQ(swap(run(limited, one(kGi, 2 * kGi)))->value, Limit::of(268435456));
  // 1.30+: unset is NoSwap; UnlimitedSwap is gone.
  EXPECT_EQ(swap(run({.minor = 30}, one(kGi, 2 * kGi)))->value, Limit::of(0));
  auto gone = run({.minor = 30, .swap_behavior = SwapBehavior::UnlimitedSwap}, one(kGi, 2 * kGi));
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().what,
            "invalid configuration: memorySwap.swapBehavior \"UnlimitedSwap\" must be one of: \"\", "
            "\"LimitedSwap\" or \"NoSwap\"");
  auto gate_off = run({.minor = 29, .swap_behavior = SwapBehavior::LimitedSwap}, one(kGi, 2 * kGi));
  ASSERT_FALSE(gate_off);
  EXPECT_EQ(gate_off.error().what,
            "invalid configuration: memorySwap.swapBehavior cannot be set when NodeSwap feature flag is disabled");
}

// A locked gate set to the other value stops the kubelet
// (component-base featuregate: "cannot set feature gate ... locked").
TEST(UpstreamKubelet, LockedNodeSwapGate) {
  auto t = run({.minor = 34, .node_swap = false}, one(kGi, 2 * kGi));
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().what, "cannot set feature gate NodeSwap to false, feature is locked to true");
  EXPECT_TRUE(run({.minor = 33, .node_swap = false}, one(kGi, 2 * kGi)));
}

// pkg/apis/core/validation ValidateResourceRequirements(): a request above
// the limit is rejected; nothing reaches the kubelet.
TEST(UpstreamKubelet, RequestAboveLimitIsRejected) {
  auto t = run({.minor = 36}, one(512 * kMi, 256 * kMi));
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().what,
            "container app resources.requests.memory 536870912: must be less than or equal to memory limit of "
            "268435456");
  KubePod pod{.containers = {{.name = "a"}}, .request = 2 * kGi, .limit = kGi};
  EXPECT_FALSE(run({.minor = 34}, pod));
}

// Sums that would wrap int64 are refused, not wrapped.
TEST(UpstreamKubelet, OverflowingSumsAreErrors) {
  constexpr int64_t kHuge = int64_t{5} << 60;
  KubePod pod{.containers = {{.name = "a", .request = kHuge, .limit = kHuge}, {.name = "b", .request = kHuge, .limit = kHuge}}};
  auto t = run({.minor = 36}, pod);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().what, "the containers' memory requests or limits add up to more than 2^63-1 bytes");
}

// 1.37's pod-level memory.high (applyPodLevelMemoryHigh) is named as not
// modelled rather than left out silently.
TEST(UpstreamKubelet, PodLevelMemoryHighIsNamed) {
  auto t = run({.minor = 37, .factor = 0.9}, one(128 * kMi, 256 * kMi));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->notes.back(),
            "not modelled: 1.37 also writes memory.high on the pod cgroup of a pod with memory limits "
            "(pkg/kubelet/cm/pod_container_manager_linux.go applyPodLevelMemoryHigh(), "
            "cm.ApplyPodLevelMemoryHigh()); the pod row above shows memory.max only");
}

}  // namespace
}  // namespace cgmem::managers
