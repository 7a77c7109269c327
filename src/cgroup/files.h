// The names of the cgroup v2 control files cgmem reads and writes, in one
// place. Values are file names relative to a cgroup directory (openat).
#pragma once

namespace cgmem::cgroup::files {

// Single values: a number, or "max" for the limits.
inline constexpr char kMemoryCurrent[] = "memory.current";
inline constexpr char kMemoryPeak[] = "memory.peak";
inline constexpr char kMemoryMax[] = "memory.max";
inline constexpr char kMemoryHigh[] = "memory.high";
inline constexpr char kMemoryLow[] = "memory.low";
inline constexpr char kMemoryMin[] = "memory.min";
inline constexpr char kMemorySwapCurrent[] = "memory.swap.current";
inline constexpr char kMemorySwapMax[] = "memory.swap.max";
inline constexpr char kMemorySwapHigh[] = "memory.swap.high";
inline constexpr char kMemoryZswapCurrent[] = "memory.zswap.current";  // CONFIG_ZSWAP only
inline constexpr char kMemoryOomGroup[] = "memory.oom.group";
// Only on a kernel with the RFC "memory.high.throttle" patch (cgmem kernel build
// --patch memory-high-throttle): 0 to 32, the penalty is shifted right by it.
inline constexpr char kMemoryHighThrottle[] = "memory.high.throttle";

// Flat-keyed: "key value" per line.
inline constexpr char kMemoryEvents[] = "memory.events";
inline constexpr char kMemoryEventsLocal[] = "memory.events.local";
inline constexpr char kMemoryStat[] = "memory.stat";
inline constexpr char kMemorySwapEvents[] = "memory.swap.events";
inline constexpr char kCpuStat[] = "cpu.stat";
inline constexpr char kCgroupEvents[] = "cgroup.events";

// Nested-keyed: "MAJ:MIN key=value key=value" per line.
inline constexpr char kIoStat[] = "io.stat";
inline constexpr char kIoMax[] = "io.max";

// Pressure (PSI): "some avg10=... avg60=... avg300=... total=..." and "full ...".
inline constexpr char kMemoryPressure[] = "memory.pressure";
inline constexpr char kIoPressure[] = "io.pressure";
inline constexpr char kCpuPressure[] = "cpu.pressure";

// Lists.
inline constexpr char kCgroupProcs[] = "cgroup.procs";
inline constexpr char kCgroupControllers[] = "cgroup.controllers";
inline constexpr char kCgroupSubtreeControl[] = "cgroup.subtree_control";

// Write-only.
inline constexpr char kCgroupKill[] = "cgroup.kill";
inline constexpr char kMemoryReclaim[] = "memory.reclaim";

}  // namespace cgmem::cgroup::files
