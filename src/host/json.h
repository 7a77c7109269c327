// HostFacts as JSON: what `cgmem host --json` prints and what a run's
// meta.json records under "host".
#pragma once

#include <nlohmann/json.hpp>

#include "host/probe.h"

namespace cgmem::host {

// Keys: kernel, hz (null when unknown), hz_source, stock_slots (null when
// unknown), stock_slots_source ("parameter", "version", "unknown"),
// kernel_patches, page_size, cpus,
// mem_total_bytes, swap_total_bytes, swaps [{name, type, size_bytes,
// used_bytes, priority}], zswap (null when no module), swap_kind, swap_setting,
// zswap_settings, swappiness (host/swap.h), thp, psi,
// cgroup2_mount (null when none), cgroup2_controllers, cgroup2_enabled,
// memory_v1_mount, own_cgroup, own_controllers, memory_controller_usable,
// memory_reason, way_out (null when usable).
nlohmann::json host_facts_json(const HostFacts& facts);

}  // namespace cgmem::host
