// What a user hands in for the kubelet: the names of its enum settings, the
// --feature-gate lists, and a pod as submitted (before the API server's
// defaults).
#include <fmt/format.h>

#include <algorithm>

#include "managers/input.h"
#include "managers/kubelet.h"

namespace cgmem::managers {

std::string_view name_of(QosClass qos) {
  switch (qos) {
    case QosClass::BestEffort: return "BestEffort";
    case QosClass::Burstable: return "Burstable";
    case QosClass::Guaranteed: return "Guaranteed";
  }
  return "?";
}

std::string_view name_of(ReservationPolicy policy) { return name_in(kReservationPolicyNames, policy); }
std::string_view name_of(SwapBehavior behavior) { return name_in(kSwapBehaviorNames, behavior); }

Result<std::optional<bool>> feature_gate(const std::vector<std::string>& lists, std::string_view name) {
  std::optional<bool> out;
  for (const auto& list : lists) {
    for (size_t pos = 0; pos <= list.size();) {
      size_t end = std::min(list.find(',', pos), list.size());
      std::string_view item(list.data() + pos, end - pos);
      pos = end + 1;
      auto kv = key_value(item, "--feature-gate");
      if (!kv) return std::unexpected(kv.error());
      if (kv->second != "true" && kv->second != "false")
        return fail(fmt::format("--feature-gate {}: the value must be true or false", item));
      if (kv->first != "MemoryQoS" && kv->first != "NodeSwap")
        return fail(fmt::format("--feature-gate {}: cgmem models MemoryQoS and NodeSwap", item));
      if (kv->first == name) out = kv->second == "true";
    }
  }
  return out;
}

Result<void> apply_feature_gates(const std::vector<std::string>& lists, KubeletConfig& config) {
  auto qos = feature_gate(lists, "MemoryQoS");
  if (!qos) return std::unexpected(qos.error());
  auto swap = feature_gate(lists, "NodeSwap");
  if (!swap) return std::unexpected(swap.error());
  config.memory_qos = *qos, config.node_swap = *swap;
  return {};
}

Result<Translation> translate_submitted_pod(const KubeletConfig& config, const KubePod& pod) {
  std::vector<std::string> notes;
  auto t = translate_kubelet(config, apply_api_defaults(pod, notes, config.minor));
  if (t) t->notes.insert(t->notes.begin(), notes.begin(), notes.end());
  return t;
}

}  // namespace cgmem::managers
