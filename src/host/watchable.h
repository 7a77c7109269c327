// Can a cgroup tree be watched (`cgmem watch`, `top`, `exporter`, `guard`)?
// Only where the cgroup v2 memory controller is on: its cgroups have
// memory.current. On a cgroup v1 or hybrid host (memory bound to v1, as on
// RHEL 8, Ubuntu 20.04 and older Kubernetes nodes) the v2 tree has none, and
// a scan finds nothing; this says why instead of an empty table. Read only.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace cgmem::host {

// The most directories looked into before giving up (a v2 tree with the
// controller on has memory.current one level below its root).
inline constexpr size_t kWatchableWalkLimit = 10'000;

// nullopt when root, or a directory under it (within max_depth levels, -1:
// all), has memory.current; else the reason, one sentence naming root, and the v1
// memory mount when there is one (HostFacts::memory_v1_mount).
std::optional<std::string> no_memory_controller(const std::string& root, int max_depth,
                                                const std::optional<std::string>& memory_v1_mount);

// What to do about it, for the error's hint.
inline constexpr const char* kNoMemoryHint =
    "cgmem watches cgroup v2 memory: boot with the unified hierarchy (systemd.unified_cgroup_hierarchy=1), "
    "give --root a cgroup2 directory with memory.current, or run it in cgmem's VM: cgmem vm -- COMMAND";

}  // namespace cgmem::host
