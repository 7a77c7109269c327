#include "host/json.h"

namespace cgmem::host {

namespace {

template <typename T>
nlohmann::json or_null(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json host_facts_json(const HostFacts& facts) {
  nlohmann::json swaps = nlohmann::json::array();
  for (const auto& swap : facts.swaps) {
    swaps.push_back({{"name", swap.name},
                     {"type", swap.type},
                     {"size_bytes", swap.size_bytes},
                     {"used_bytes", swap.used_bytes},
                     {"priority", swap.priority}});
  }
  nlohmann::json zswap_settings = nullptr;
  if (const auto& z = facts.zswap_settings)
    zswap_settings = {{"enabled", z->enabled}, {"compressor", z->compressor}, {"zpool", z->zpool},
                      {"max_pool_percent", or_null(z->max_pool_percent)},
                      {"accept_threshold_percent", or_null(z->accept_threshold_percent)},
                      {"shrinker_enabled", or_null(z->shrinker_enabled)}};
  return {
      {"kernel", facts.kernel},
      {"hz", or_null(facts.hz)},
      {"hz_source", facts.hz_source},
      {"stock_slots", or_null(facts.stock_slots)},
      {"stock_slots_source", facts.stock_slots_source},
      {"kernel_patches", facts.kernel_patches},
      {"page_size", facts.page_size},
      {"cpus", facts.cpus},
      {"mem_total_bytes", facts.mem_total_bytes},
      {"swap_total_bytes", facts.swap_total_bytes},
      {"swaps", swaps},
      {"zswap", or_null(facts.zswap)},
      {"swap_kind", facts.swap_kind},
      {"swap_setting", facts.swap_setting},
      {"zswap_settings", zswap_settings},
      {"swappiness", or_null(facts.swappiness)},
      {"thp", facts.thp.empty() ? nlohmann::json(nullptr) : nlohmann::json(facts.thp)},
      {"psi", facts.psi},
      {"virtualized", or_null(facts.virtualized)},
      {"cgroup2_mount", or_null(facts.cgroup2_mount)},
      {"cgroup2_controllers", facts.cgroup2_controllers},
      {"cgroup2_enabled", facts.cgroup2_enabled},
      {"memory_v1_mount", or_null(facts.memory_v1_mount)},
      {"own_cgroup", or_null(facts.own_cgroup)},
      {"own_controllers", facts.own_controllers},
      {"memory_controller_usable", facts.memory_controller_usable},
      {"memory_reason", facts.memory_reason},
      {"way_out", facts.way_out.empty() ? nlohmann::json(nullptr) : nlohmann::json(facts.way_out)},
  };
}

}  // namespace cgmem::host
