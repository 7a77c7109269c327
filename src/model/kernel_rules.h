// The rules of memory.high's throttle that change with the kernel version,
// read from mm/memcontrol.c of Debian's 6.1 (6.1.192) and 6.12 (6.12.117)
// and of mainline 6.18 (docs/kernel.md, "Rules by kernel version", has the
// table with the functions and commits):
//
//   per-CPU charge stock   one memcg per CPU before 6.16 (__refill_stock
//                          drains it for any other memcg); NR_MEMCG_STOCK = 7
//                          slots from 6.16 ("memcg: multi-memcg percpu charge
//                          cache"), a random slot drained when all 7 are taken.
//                          cgmem's patched 6.12 takes the count at boot
//                          (memcontrol.stock_slots=1..7).
//   MEMCG_CHARGE_BATCH     64 pages from 6.0 ("memcg: increase
//                          MEMCG_CHARGE_BATCH to 64"), 32 before.
//   events per sleep       1 + MAX_RECLAIM_RETRIES = 17 reclaim_high passes,
//                          each one MEMCG_HIGH event per level over high, in
//                          6.1, 6.12 and 6.18 alike.
//   dying tasks            from 6.8 mem_cgroup_handle_over_high leaves at
//                          once for a task with a fatal signal or PF_EXITING
//                          (task_is_dying): no reclaim, no event, no sleep.
//   O_NONBLOCK limit write from 6.16 memory_high_write / memory_max_write
//                          skip their synchronous reclaim for a file opened
//                          with O_NONBLOCK ("memcg: introduce non-blocking
//                          limit setting option").
//
// Pure: a version comes in as text (uname -r, meta.json's kernel), nothing
// is read here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cgmem::model {

struct KernelVersion {
  uint32_t major = 6, minor = 12;
  friend constexpr auto operator<=>(const KernelVersion&, const KernelVersion&) = default;
};

// "6.12.117+deb12-cloud-amd64", "6.12.117-cgmem-hz1000-throttle-slots",
// "6.16", "6.1.0-37-amd64" -> major.minor; nullopt when the text does not
// start with two dot-separated numbers.
std::optional<KernelVersion> parse_kernel_version(std::string_view release);
std::string version_text(KernelVersion v);  // "6.12"

// NR_MEMCG_STOCK's range: cgmem's patch takes 1..7, mainline has 7.
inline constexpr uint32_t kMinStockSlots = 1, kMaxStockSlots = 7;

// Where a version's rules first apply.
inline constexpr KernelVersion kMultiStock{6, 16};       // NR_MEMCG_STOCK = 7
inline constexpr KernelVersion kBatch64{6, 0};           // MEMCG_CHARGE_BATCH 32 -> 64
inline constexpr KernelVersion kDyingNotThrottled{6, 8};  // task_is_dying() in handle_over_high
inline constexpr KernelVersion kNonblockingLimits{6, 16};  // O_NONBLOCK on memory.high / memory.max

struct KernelRules {
  KernelVersion version;
  uint32_t stock_slots = 1;          // memcgs one CPU's charge stock caches
  bool stock_slots_overridden = false;  // from memcontrol.stock_slots or --stock-slots, not the version
  uint32_t charge_batch = 64;        // MEMCG_CHARGE_BATCH, pages
  uint64_t high_events_per_sleep = 17;  // 1 + MAX_RECLAIM_RETRIES, one level over high
  bool dying_tasks_not_throttled = true;  // 6.8+
  bool nonblocking_limit_write = false;   // 6.16+

  // One sleep per page needs the stock emptied between pages: with one
  // slot any other memcg charging on the CPU does it; with S slots only S
  // or more others (and then a random slot goes, 1 in S each time).
  bool per_page_possible(uint32_t other_cgroups_on_cpu) const { return other_cgroups_on_cpu >= stock_slots; }
  // "per page when any other cgroup charges on this CPU" (1 slot) or
  // "per page needs 7 or more other cgroups charging on this CPU".
  std::string_view per_page_rule() const;
  // Short names of the rules in force, for JSON: "stock_slots_1",
  // "charge_batch_64", "high_events_per_sleep_17", "dying_tasks_not_throttled",
  // "nonblocking_limit_write".
  std::vector<std::string> names() const;
};

// The rules of a version; stock_slots (1..7, clamped) overrides the
// version's count, as a patched kernel's boot parameter does.
KernelRules rules_for(KernelVersion v, std::optional<uint32_t> stock_slots = std::nullopt);

// The memcgs per CPU the stock of `release`'s version caches: 7 from 6.16
// (kMultiStock), 1 before; nullopt when the release names no version. A
// patched kernel's boot parameter is not in the release: read it apart.
std::optional<uint32_t> version_stock_slots(std::string_view release);

// The rules cgmem assumed before it knew versions: Debian's 6.12.
inline KernelRules default_rules() { return rules_for({6, 12}); }

}  // namespace cgmem::model
