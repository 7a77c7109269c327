// The host's swap as a run is judged by it: what the devices are (zram is a
// compressed RAM disk, anything else in /proc/swaps a disk: a file or a
// partition), whether zswap sits in front of them, and vm.swappiness.
// With swap, reclaim can move a cgroup's anonymous pages out instead of only
// throttling it at memory.high, and memory.max reaches the OOM killer only
// once memory.swap.max (or the swap) is full too: the study's first limit
// ("One host, one kernel, no swap").
#pragma once

#include <string>
#include <vector>

#include "host/probe.h"

namespace cgmem::host {

// "none", "disk", "zram" or "zram+disk".
std::string swap_kind_of(const std::vector<SwapDevice>& swaps);

// "zswap" when zswap is on and a disk swap is behind it, else the kind.
std::string swap_setting_of(const std::string& kind, const std::optional<ZswapSettings>& zswap);

// Reads SYS/module/zswap/parameters/* and PROC/sys/vm/swappiness into
// `facts`, and sets its swap kind and setting from facts.swaps.
void probe_swap(const HostRoots& roots, HostFacts& facts);

}  // namespace cgmem::host
