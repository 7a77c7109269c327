// What this machine's kernel and cgroups can do for cgmem, read without
// writing anything: kernel release, HZ and where it came from, the memcg
// charge stock's slots per CPU and the patches of a kernel cgmem built, page size,
// CPUs, RAM, swap, zswap, THP, PSI, the cgroup2 mount and its controllers,
// and whether this process can use a cgroup v2 memory controller (and if
// not, why, and the way out: `cgmem vm -- ...`).
//
// The roots are parameters so tests probe fixture trees. A cgroup2 mount
// point under /sys is read under roots.sys (so /sys/fs/cgroup in a fixture's
// mountinfo means SYS/fs/cgroup).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.h"

namespace cgmem::host {

struct HostRoots {
  std::string proc = "/proc";
  std::string sys = "/sys";
  std::string boot = "/boot";
};

struct SwapDevice {
  std::string name, type;
  uint64_t size_bytes = 0, used_bytes = 0;
  int priority = 0;
};

// zswap's module parameters (SYS/module/zswap/parameters), as the kernel
// shows them; an unreadable one stays empty.
struct ZswapSettings {
  bool enabled = false;
  std::string compressor, zpool;
  std::optional<unsigned> max_pool_percent, accept_threshold_percent;
  std::optional<bool> shrinker_enabled;  // 6.8+
};

struct HostFacts {
  std::string kernel;                 // "6.12.117+deb12-cloud-amd64"; "" when unreadable
  std::optional<unsigned> hz;         // CONFIG_HZ
  std::string hz_source;              // "/boot/config-RELEASE", "/proc/config.gz" or "unknown"
  // The memcgs each CPU's charge stock caches: SYS/module/memcontrol/
  // parameters/stock_slots on a kernel with cgmem's memcg-stock-slots patch
  // (source "parameter"), else what the version implies: 1 before 6.16, 7
  // (NR_MEMCG_STOCK) from 6.16 (source "version"); nullopt and "unknown"
  // when the release cannot be read.
  std::optional<unsigned> stock_slots;
  std::string stock_slots_source;
  // The patches of a kernel cgmem built, from its release's "-cgmem-NAME"
  // ("6.12.117-cgmem-hz1000-throttle-slots" -> memory-high-throttle,
  // memcg-stock-slots); a slots suffix on 6.16 or later is left out (the
  // build skipped it: the stock is upstream). Empty for other kernels.
  std::vector<std::string> kernel_patches;
  uint64_t page_size = 0;             // of the running process (sysconf)
  unsigned cpus = 0;                  // online CPUs (SYS/devices/system/cpu/online)
  uint64_t mem_total_bytes = 0;       // MemTotal
  std::vector<SwapDevice> swaps;
  uint64_t swap_total_bytes = 0;
  std::optional<bool> zswap;          // nullopt: no zswap module
  // The swap behind the limits (host/swap.h): the devices' kind ("none",
  // "disk", "zram", "zram+disk"), the setting a run is reported by ("zswap"
  // for zswap on in front of a disk swap, else the kind), zswap's
  // parameters and vm.swappiness.
  std::string swap_kind = "none", swap_setting = "none";
  std::optional<ZswapSettings> zswap_settings;
  std::optional<unsigned> swappiness;
  std::string thp;                    // "always", "madvise", "never"; "" when unknown
  bool psi = false;                   // PROC/pressure/memory readable and well formed
  // "kvm" or "tcg": cgmem's own VM (cgmem.accel= on the kernel command
  // line); "hypervisor": some other VM (the CPU's hypervisor flag);
  // nullopt: no sign of one.
  std::optional<std::string> virtualized;

  std::optional<std::string> cgroup2_mount;       // as mounted (host path)
  std::vector<std::string> cgroup2_controllers;   // root cgroup.controllers
  std::vector<std::string> cgroup2_enabled;       // root cgroup.subtree_control
  std::optional<std::string> memory_v1_mount;     // memory bound to cgroup v1 here
  std::optional<std::string> own_cgroup;          // this process's v2 path ("0::PATH")
  std::vector<std::string> own_controllers;       // its cgroup.controllers
  bool memory_controller_usable = false;
  std::string memory_reason;          // why (not): one sentence
  std::string way_out;                // what to do when not usable; "" when usable
};

// Never fails as a whole: a fact that cannot be read stays empty, and the
// reason names what was missing.
HostFacts probe_host(const HostRoots& roots = {});

// The patches a release's "-cgmem-NAME" suffix names (HostFacts::kernel_patches).
std::vector<std::string> release_patches(std::string_view release);

// The slots per CPU of the stock: the parameter file's text when it holds
// 1..7, else the version's rule (HostFacts::stock_slots).
void probe_stock_slots(const HostRoots& roots, HostFacts& facts);

// CONFIG_HZ from the text of a kernel config; nullopt when absent.
std::optional<unsigned> config_hz(std::string_view config_text);

// "0-1,4" -> 3. nullopt on malformed text.
std::optional<unsigned> count_cpu_list(std::string_view text);

// The bracketed word of a sysfs choice file: "always [madvise] never" -> "madvise".
std::string chosen_word(std::string_view text);

// PROC/swaps: the devices (sizes in the file are KiB). Malformed lines are skipped.
std::vector<SwapDevice> parse_swaps(std::string_view text);

// What the kernel command line and /proc/cpuinfo say about a hypervisor
// (HostFacts::virtualized).
std::optional<std::string> virtualization(std::string_view cmdline, std::string_view cpuinfo);

// MemTotal from PROC/meminfo, in bytes.
std::optional<uint64_t> mem_total(std::string_view meminfo_text);

}  // namespace cgmem::host
