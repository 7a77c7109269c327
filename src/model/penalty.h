// The kernel's memory.high throttle, integer-exact.
//
// What mm/memcontrol.c does when a task returns to user space after charging
// pages to a cgroup that is over memory.high (mem_cgroup_handle_over_high):
//
//   overage  = ((usage - high) << 20) / high           per level, in pages;
//              0 when usage <= high, high taken as >= 1
//   max      = the largest overage of the cgroup and its ancestors
//   delay    = ((max * max * HZ) >> 20 >> 14) * nr_pages / 64
//              computed once for memory and once for swap, then added
//   (RFC)    = delay >> memory.high.throttle         (0..32; not in mainline)
//   penalty  = min(delay, 2 * HZ)                      MEMCG_MAX_HIGH_DELAY_JIFFIES
//   sleeps   = penalty > HZ / 100                      else no sleep at all
//
// nr_pages is what the task charged since its last return to user space
// (a whole MEMCG_CHARGE_BATCH of 64 pages whenever the per-CPU stock was
// empty), so a sleep after one batch costs penalty(usage, 64).
//
// The kernel does this in u64 and wraps silently: overage^2 * HZ passes 2^64
// once usage is about 4096/sqrt(HZ) times high (130x at HZ=1000). This model
// computes the true value, saturating at UINT64_MAX (which the clamp turns
// into 2 * HZ), and also reports what the kernel's wrapping arithmetic gives,
// so a caller can say when the real kernel would sleep less than it means to.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "model/kernel_rules.h"

namespace cgmem::model {

// MEMCG_CHARGE_BATCH: the pages a charge takes at once into the per-CPU stock.
inline constexpr uint32_t kChargeBatch = 64;

// The HZ and page sizes a record may name (meta.json, snapshot.json, a
// kernel cache's build.json): every reader of a saved record checks them
// before the model divides by them. Below 10 the model's sleeps round to
// nothing (HZ=1 gave a sleep of 0.0 s); kernels offer 100 to 1000 on x86
// (CONFIG_HZ_100 to CONFIG_HZ_1000) and a few others elsewhere, none below 10.
inline constexpr int64_t kMinHz = 10, kMaxHz = 10000;
inline constexpr const char* kHzRange = "a CONFIG_HZ (10 to 10000)";
inline constexpr const char* kPageSizeRange = "a page size (a power of two, 4096 to 2097152)";
inline constexpr uint64_t kMinPageSize = 4096, kMaxPageSize = uint64_t{1} << 21;
constexpr bool plausible_hz(int64_t hz) { return hz >= kMinHz && hz <= kMaxHz; }
constexpr bool plausible_page_size(uint64_t bytes) {
  return bytes >= kMinPageSize && bytes <= kMaxPageSize && (bytes & (bytes - 1)) == 0;
}

// Constants of one kernel build.
struct Kernel {
  uint32_t hz = 1000;            // CONFIG_HZ: 100, 250, 300 or 1000 on x86
  uint32_t batch = kChargeBatch;  // pages
  uint64_t page_size = 4096;  // bytes
  // What changes with the version (the stock's slots, dying tasks, ...);
  // the arithmetic above does not. Debian's 6.12 unless a caller knows better.
  KernelRules rules = default_rules();
};

inline constexpr uint32_t kPrecisionShift = 20;  // MEMCG_DELAY_PRECISION_SHIFT
inline constexpr uint32_t kScalingShift = 14;    // MEMCG_DELAY_SCALING_SHIFT
inline constexpr uint32_t kMaxThrottleShift = 32;  // the RFC's memory.high.throttle range

// One level of the hierarchy (the cgroup or an ancestor), in pages.
// high == UINT64_MAX stands for "max" (the kernel's PAGE_COUNTER_MAX is
// smaller but behaves the same: usage never exceeds it).
struct Level {
  uint64_t usage = 0;
  uint64_t high = UINT64_MAX;
};

// Bytes to pages as the kernel stores them (memory.high: rounded down).
constexpr uint64_t to_pages(uint64_t bytes, const Kernel& k) { return bytes / k.page_size; }

// calculate_overage: (usage - high) / high in 2^-20 units; saturates.
uint64_t overage(uint64_t usage_pages, uint64_t high_pages);

// (usage - high) / high in percent, for people (high taken as >= 1 page
// like the kernel does); 0 when usage <= high.
double over_percent(uint64_t usage_pages, uint64_t high_pages);

// mem_find_max_overage / swap_find_max_overage over the given levels.
uint64_t max_overage(std::span<const Level> levels);

// calculate_high_delay for one overage: jiffies before the clamp; saturates.
uint64_t high_delay(uint64_t overage, uint32_t nr_pages, const Kernel& k);

struct PenaltyInput {
  std::span<const Level> memory;  // the cgroup first, then its ancestors
  std::span<const Level> swap;    // may be empty (no swap.high anywhere)
  uint32_t nr_pages = kChargeBatch;  // pages charged since the last return
  uint32_t shift = 0;             // memory.high.throttle, 0..32
};

struct Penalty {
  uint64_t memory_overage = 0;     // 2^-20 units
  uint64_t swap_overage = 0;
  uint64_t unclamped_jiffies = 0;  // memory + swap delay after the shift, before the clamp
  uint64_t jiffies = 0;            // after the clamp (what schedule_timeout gets, if it sleeps)
  bool clamped = false;            // the 2 * HZ cap applied
  bool sleeps = false;             // jiffies > HZ / 100
  bool kernel_wraps = false;       // the kernel's u64 arithmetic overflows here
  uint64_t kernel_jiffies = 0;     // what the kernel computes, wrapping included
  bool kernel_sleeps = false;      // ... and whether it then sleeps
};

// The penalty of one return to user space. shift above 32 is taken as 32.
Penalty penalty(const PenaltyInput& in, const Kernel& k);

// The common case: one cgroup, no ancestors over high, no swap.
Penalty penalty(uint64_t usage_pages, uint64_t high_pages, const Kernel& k,
                uint32_t nr_pages = kChargeBatch, uint32_t shift = 0);

// mem_cgroup_handle_over_high calls reclaim_high once, then retries
// MAX_RECLAIM_RETRIES (16) times while reclaim frees nothing, before it
// sleeps; each call raises memory.events "high" by one per level over high.
// So with nothing reclaimable and one level over high, a sleep shows as a
// rise of 17. (Reclaim that frees pages retries without sleeping.)
inline constexpr uint64_t kMaxReclaimRetries = 16;
inline constexpr uint64_t kHighEventsPerSleep = 1 + kMaxReclaimRetries;

// The sleeps behind a rise of memory.events "high" (one level over high,
// nothing reclaimable), or nullopt when the rise is not a multiple of 17
// (a return that did not sleep, or reclaim that freed something).
std::optional<uint64_t> sleeps_from_high_events(uint64_t rise);

// Jiffies to milliseconds at this HZ (exact: 1000 * j / HZ as a double).
double jiffies_to_ms(uint64_t jiffies, const Kernel& k);

}  // namespace cgmem::model
