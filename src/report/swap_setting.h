// A run's swap setting, from meta.json's host facts (run.h HostSwap): with
// swap, without it, or not recorded (a run from before cgmem wrote
// host.swap_setting). The claims on swap read their runs and the runs they
// compare with through these, and the headings name the setting with them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/run.h"

namespace cgmem::report {

// The run recorded its swap setting, and it is some swap (disk, zram,
// zswap, zram+disk).
bool with_swap(const Meta& m);

// The run had no swap: host.swap_setting "none", or, in a run recorded
// before the setting was, host.swap_total_bytes 0.
bool without_swap(const Meta& m);

// "disk swap 512MiB, swappiness 60", "zswap (zstd, zsmalloc) on disk swap
// 512MiB", "zram swap 256MiB", "no swap"; "" when the setting was not recorded.
std::string swap_text(const HostSwap& swap);

// report.json's swap facts: setting, kind, total_bytes, swappiness,
// zswap_settings (null when not recorded), or null when no setting was recorded.
nlohmann::json swap_json(const HostSwap& swap);

}  // namespace cgmem::report
