// The cgroup part of the host probe (internal to probe.cpp).
#pragma once

#include "host/probe.h"

namespace cgmem::host {

// Fills facts.cgroup2_*, memory_v1_mount, own_*, memory_controller_usable,
// memory_reason and way_out.
void probe_cgroups(const HostRoots& roots, HostFacts& facts);

}  // namespace cgmem::host
