// The kubelet's writes by version, against the study's 241590272 and the
// KEP-2570 examples.
#include <gtest/gtest.h>

#include "managers/kubelet.h"

namespace cgmem::managers {
namespace {

constexpr int64_t k256Mi = 268435456;

KubePod one(std::optional<int64_t> request, std::optional<int64_t> limit) {
  return KubePod{.containers = {KubeContainer{.request = request, .limit = limit}}};
}

Translation run(KubeletConfig config, KubePod pod) {
  auto k = resolve_kubelet_config(config);
  EXPECT_TRUE(k) << (k ? "" : k.error().message());
  std::vector<std::string> notes;
  auto t = translate_kubelet(*k, apply_api_defaults(pod, notes));
  EXPECT_TRUE(t) << (t ? "" : t.error().message());
  if (t) t->notes.insert(t->notes.begin(), notes.begin(), notes.end());
  return t.value_or(Translation{});
}

const Assignment* high(const Translation& t) { return find(t, "container app", "memory.high"); }

TEST(Kubelet, StudyValueFor136WithTheGateOn) {
  auto t = run({.minor = 36, .memory_qos = true, .factor = 0.9}, one(0, k256Mi));
  ASSERT_NE(high(t), nullptr);
  EXPECT_TRUE(high(t)->set);
  EXPECT_EQ(high(t)->value, Limit::of(241590272));
  EXPECT_EQ(high(t)->rule,
            "floor((request 0 + factor 0.9 x (limit 268435456 - 0)) / 4096) x 4096 = 241590272");
  EXPECT_EQ(find(t, "container app", "memory.max")->value, Limit::of(k256Mi));
  EXPECT_EQ(find(t, "container app", "memory.oom.group")->value, Limit::of(1));
  EXPECT_EQ(find(t, "container app", "memory.swap.max")->value, Limit::of(0));
  EXPECT_EQ(find(t, "container app", "memory.min"), nullptr);  // policy None
  EXPECT_EQ(find(t, "pod", "memory.max")->value, Limit::of(k256Mi));
}

TEST(Kubelet, DefaultsByVersion) {
  auto v136 = run({.minor = 36}, one(0, k256Mi));  // gate off by default
  EXPECT_FALSE(high(v136)->set);
  EXPECT_EQ(high(v136)->rule, "MemoryQoS gate off (the default before 1.37): no memory.high");
  auto v137 = run({.minor = 37}, one(0, k256Mi));  // gate on, factor unset
  ASSERT_NE(high(v137), nullptr);
  EXPECT_FALSE(high(v137)->set);
  EXPECT_EQ(high(v137)->rule, "memoryThrottlingFactor not set (1.37 has no default): no memory.high");
  auto v137f = run({.minor = 37, .factor = 0.9}, one(0, k256Mi));
  EXPECT_EQ(high(v137f)->value, Limit::of(241590272));
  auto v130 = run({.minor = 30, .memory_qos = true}, one(0, k256Mi));  // default factor 0.9
  EXPECT_EQ(high(v130)->value, Limit::of(241590272));
  EXPECT_EQ(find(v130, "container app", "memory.min"), nullptr);  // request 0: nothing to protect
}

TEST(Kubelet, Alpha122UsesLimitTimesFactor) {
  auto t = run({.minor = 22, .memory_qos = true}, one(0, k256Mi));
  // int64(268435456 x 0.8) = 214748364, which the kernel keeps as 214745088.
  EXPECT_EQ(high(t)->rule, "int64(limit 268435456 x factor 0.8) = 214748364");
  EXPECT_EQ(high(t)->value, Limit::of(214745088));
  EXPECT_FALSE(find(t, "container app", "memory.oom.group")->set);  // before 1.28
}

TEST(Kubelet, LimitWithoutRequestDefaultsToGuaranteedShape) {
  auto t = run({.minor = 36, .memory_qos = true}, one(std::nullopt, k256Mi));
  EXPECT_FALSE(high(t)->set);
  EXPECT_EQ(high(t)->rule, "request = limit = 268435456: no memory.high");
  EXPECT_EQ(t.notes[0],
            "container app: a limit without a request: the API server sets the request to the "
            "limit (268435456), so no memory.high (kubernetes/kubernetes pkg/apis/core/v1/"
            "defaults.go SetDefaults_Pod())");
}

TEST(Kubelet, RequestBetweenZeroAndLimit) {
  // KEP-2570's table: limit 1000, request 500, factor 0.8 -> 900 (1Mi pages).
  auto t = run({.minor = 30, .memory_qos = true, .factor = 0.8, .page_size = 1 << 20},
               one(int64_t{500} << 20, int64_t{1000} << 20));
  EXPECT_EQ(high(t)->value, Limit::of(uint64_t{900} << 20));
  EXPECT_EQ(find(t, "container app", "memory.min")->value, Limit::of(uint64_t{500} << 20));
  EXPECT_EQ(find(t, "pod", "memory.min")->value, Limit::of(uint64_t{500} << 20));
}

TEST(Kubelet, NoLimitUsesNodeAllocatable) {
  KubeletConfig k{.minor = 36, .memory_qos = true, .capacity = int64_t{8} << 30,
                  .system_reserved = int64_t{512} << 20, .kube_reserved = int64_t{512} << 20};
  auto t = run(k, one(int64_t{1} << 30, std::nullopt));
  // floor((1Gi + 0.9 x (7Gi - 1Gi)) / 4096) x 4096
  EXPECT_EQ(high(t)->value, Limit::of(6871945216));
  EXPECT_FALSE(find(t, "container app", "memory.max")->set);
  EXPECT_FALSE(find(t, "pod", "memory.max")->set);
  auto missing = resolve_kubelet_config({.minor = 36, .memory_qos = true});
  std::vector<std::string> notes;
  auto err = translate_kubelet(*missing, one(int64_t{1} << 30, std::nullopt));
  ASSERT_FALSE(err);
  EXPECT_EQ(err.error().message(),
            "container app has no memory limit, so memory.high uses node allocatable memory (give "
            "--node-capacity (and --system-reserved, --kube-reserved))");
}

TEST(Kubelet, BestEffortGetsMemoryHighOnlyFrom137) {
  KubeletConfig k{.minor = 36, .memory_qos = true, .capacity = int64_t{4} << 30};
  EXPECT_FALSE(high(run(k, one(std::nullopt, std::nullopt)))->set);
  k.minor = 37, k.factor = 0.9;
  EXPECT_EQ(high(run(k, one(std::nullopt, std::nullopt)))->value, Limit::of(3865468928));
}

TEST(Kubelet, TieredReservation) {
  KubeletConfig k{.minor = 36, .memory_qos = true, .reservation_policy = ReservationPolicy::TieredReservation};
  auto burstable = run(k, one(int64_t{128} << 20, k256Mi));
  EXPECT_EQ(find(burstable, "container app", "memory.low")->value, Limit::of(uint64_t{128} << 20));
  EXPECT_EQ(find(burstable, "container app", "memory.min"), nullptr);
  KubePod guaranteed{.containers = {{.request = k256Mi, .limit = k256Mi, .cpu_request = 500, .cpu_limit = 500}}};
  auto g = run(k, guaranteed);
  EXPECT_EQ(find(g, "container app", "memory.min")->value, Limit::of(k256Mi));
  EXPECT_EQ(find(g, "pod", "memory.min")->value, Limit::of(k256Mi));
  EXPECT_EQ(pod_qos(guaranteed), QosClass::Guaranteed);
}

TEST(Kubelet, SwapBehaviours) {
  KubeletConfig k{.minor = 34, .swap_behavior = SwapBehavior::LimitedSwap, .capacity = int64_t{16} << 30,
                  .swap_capacity = int64_t{4} << 30};
  auto t = run(k, one(int64_t{1} << 30, int64_t{2} << 30));
  EXPECT_EQ(find(t, "container app", "memory.swap.max")->value, Limit::of(268435456));
  auto equal = run(k, one(int64_t{1} << 30, int64_t{1} << 30));
  EXPECT_EQ(find(equal, "container app", "memory.swap.max")->value, Limit::of(0));
}

TEST(Kubelet, SingleProcessOomKill) {
  auto t = run({.minor = 32, .single_process_oom_kill = true}, one(0, k256Mi));
  EXPECT_FALSE(find(t, "container app", "memory.oom.group")->set);
}

TEST(Kubelet, FeatureGates) {
  EXPECT_EQ(feature_gate({"MemoryQoS=true,NodeSwap=false"}, "NodeSwap").value(), false);
  EXPECT_EQ(feature_gate({"MemoryQoS=true"}, "NodeSwap").value(), std::nullopt);
  EXPECT_EQ(feature_gate({"Foo=true"}, "NodeSwap").error().what,
            "--feature-gate Foo=true: cgmem models MemoryQoS and NodeSwap");
  EXPECT_EQ(feature_gate({"MemoryQoS=yes"}, "MemoryQoS").error().what,
            "--feature-gate MemoryQoS=yes: the value must be true or false");
  KubeletConfig k;
  ASSERT_TRUE(apply_feature_gates({"MemoryQoS=true", "NodeSwap=false"}, k));
  EXPECT_EQ(k.memory_qos, true);
  EXPECT_EQ(k.node_swap, false);
  // NodeSwap is locked to true from 1.34: the kubelet refuses to start.
  auto locked = resolve_kubelet_config(k);
  ASSERT_FALSE(locked);
  EXPECT_EQ(locked.error().what, "cannot set feature gate NodeSwap to false, feature is locked to true");
  EXPECT_FALSE(apply_feature_gates({"NodeSwap"}, k));
}

TEST(Kubelet, NamesAsTheConfigurationSpellsThem) {
  EXPECT_EQ(name_of(QosClass::BestEffort), "BestEffort");
  EXPECT_EQ(name_of(ReservationPolicy::TieredReservation), "TieredReservation");
  EXPECT_EQ(name_of(SwapBehavior::Unset), "");
  EXPECT_EQ(name_of(SwapBehavior::LimitedSwap), "LimitedSwap");
  EXPECT_EQ(pod_qos(one(std::nullopt, std::nullopt)), QosClass::BestEffort);
  EXPECT_EQ(pod_qos(one(0, k256Mi)), QosClass::Burstable);
}

TEST(Kubelet, SubmittedPodGetsTheApiDefaultsFirst) {
  auto k = resolve_kubelet_config({.minor = 36, .memory_qos = true});
  ASSERT_TRUE(k);
  auto t = translate_submitted_pod(*k, one(std::nullopt, k256Mi));
  ASSERT_TRUE(t) << t.error().message();
  ASSERT_GE(t->notes.size(), 2u);
  EXPECT_TRUE(t->notes[0].starts_with("container app: a limit without a request")) << t->notes[0];
  EXPECT_TRUE(t->notes[1].starts_with("pod QoS class: Burstable")) << t->notes[1];
  EXPECT_FALSE(find(*t, "container app", "memory.high")->set);
}

TEST(Kubelet, BadConfigIsAnError) {
  auto over = resolve_kubelet_config({.minor = 36, .factor = 1.5});
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().message(),
            "invalid configuration: memoryThrottlingFactor 1.5 must be greater than 0 and less "
            "than or equal to 1.0");
  EXPECT_FALSE(resolve_kubelet_config({.minor = 36, .factor = 0.0}));
  EXPECT_TRUE(resolve_kubelet_config({.minor = 36, .factor = 1.0}));
  auto version = parse_kube_version("1.21");
  ASSERT_FALSE(version);
  EXPECT_EQ(version.error().message(),
            "kubelet version 1.21 is not modelled (cgmem knows 1.22 (MemoryQoS alpha) to 1.37)");
  EXPECT_EQ(parse_kube_version("v1.36.6").value(), 36);
  EXPECT_EQ(parse_kube_version("1.37").value(), 37);
  EXPECT_FALSE(parse_kube_version("1.x"));
}

TEST(Kubelet, PodYaml) {
  auto pod = parse_pod_yaml(R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      initContainers:
      - name: setup
        resources: {limits: {memory: 64Mi}}
      containers:
      - name: app
        resources:
          requests: {memory: "0", cpu: 250m}
          limits: {memory: 256Mi}
      - name: log
        resources:
          limits: {memory: 128974848}
)",
                            "web.yaml");
  ASSERT_TRUE(pod) << pod.error().message();
  ASSERT_EQ(pod->containers.size(), 3u);
  EXPECT_TRUE(pod->containers[0].init);
  EXPECT_EQ(pod->containers[1].request, 0);
  EXPECT_EQ(pod->containers[1].cpu_request, 250);
  EXPECT_EQ(pod->containers[2].limit, 128974848);
  EXPECT_EQ(pod->containers[2].request, std::nullopt);
  auto t = run({.minor = 36, .memory_qos = true}, *pod);
  EXPECT_EQ(high(t)->value, Limit::of(241590272));
  EXPECT_FALSE(find(t, "container log", "memory.high")->set);  // defaulted request = limit
  // Every container has a limit: the pod's is the sum of the app containers (init runs before).
  EXPECT_EQ(find(t, "pod web", "memory.max")->value, Limit::of(k256Mi + 128974848));
}

TEST(Kubelet, PodYamlErrors) {
  auto bad = parse_pod_yaml("kind: Pod\nspec:\n  containers:\n  - name: a\n    resources:\n"
                            "      limits: {memory: 1GB}\n",
                            "p.yaml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().what,
            "containers a resources.limits.memory: invalid Kubernetes quantity '1GB': unknown suffix 'GB'");
  auto none = parse_pod_yaml("kind: ConfigMap\n", "c.yaml");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().what, "c.yaml: no pod spec found");
  EXPECT_FALSE(parse_pod_yaml("spec: [unclosed", "x.yaml"));
  // yaml-cpp 0.7's LoadAll grows without bound on a stream that starts with ','.
  auto comma = parse_pod_yaml(",ind: Pod\n", "comma.yaml");
  ASSERT_FALSE(comma);
  EXPECT_EQ(comma.error().what, "comma.yaml: no pod spec found");
}

TEST(Kubelet, PodYamlSecondDocument) {
  auto pod = parse_pod_yaml("kind: ConfigMap\n---\nkind: Pod\nmetadata: {name: b}\nspec:\n  containers:\n"
                            "  - name: x\n    resources: {limits: {memory: 1Gi}}\n",
                            "two.yaml");
  ASSERT_TRUE(pod) << pod.error().message();
  EXPECT_EQ(pod->name, "b");
  EXPECT_EQ(pod->containers[0].limit, int64_t{1} << 30);
}

}  // namespace
}  // namespace cgmem::managers
