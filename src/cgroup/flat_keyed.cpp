#include "cgroup/flat_keyed.h"

namespace cgmem::cgroup {

std::optional<uint64_t> flat_value(std::string_view text, std::string_view key) noexcept {
  while (!text.empty()) {
    std::string_view line = next_line(text);
    if (line.size() > key.size() && line.starts_with(key) && line[key.size()] == ' ') {
      return to_u64(trim(line.substr(key.size())));
    }
  }
  return std::nullopt;
}

namespace {

#define ROW(T, name) {#name, &T::name}

constexpr FlatKey<MemoryEvents> kMemoryEventsKeys[] = {
    ROW(MemoryEvents, low),      ROW(MemoryEvents, high),           ROW(MemoryEvents, max),
    ROW(MemoryEvents, oom),      ROW(MemoryEvents, oom_kill),       ROW(MemoryEvents, oom_group_kill),
    ROW(MemoryEvents, sock_throttled),
};

constexpr FlatKey<CgroupEvents> kCgroupEventsKeys[] = {
    ROW(CgroupEvents, populated), ROW(CgroupEvents, frozen)};

constexpr FlatKey<MemoryStat> kMemoryStatKeys[] = {
    ROW(MemoryStat, anon), ROW(MemoryStat, file), ROW(MemoryStat, kernel),
    ROW(MemoryStat, kernel_stack), ROW(MemoryStat, pagetables), ROW(MemoryStat, sec_pagetables),
    ROW(MemoryStat, percpu), ROW(MemoryStat, sock), ROW(MemoryStat, vmalloc),
    ROW(MemoryStat, shmem), ROW(MemoryStat, zswap), ROW(MemoryStat, zswapped),
    ROW(MemoryStat, file_mapped), ROW(MemoryStat, file_dirty), ROW(MemoryStat, file_writeback),
    ROW(MemoryStat, swapcached), ROW(MemoryStat, anon_thp), ROW(MemoryStat, file_thp),
    ROW(MemoryStat, shmem_thp), ROW(MemoryStat, inactive_anon), ROW(MemoryStat, active_anon),
    ROW(MemoryStat, inactive_file), ROW(MemoryStat, active_file), ROW(MemoryStat, unevictable),
    ROW(MemoryStat, slab_reclaimable), ROW(MemoryStat, slab_unreclaimable),
    ROW(MemoryStat, slab), ROW(MemoryStat, workingset_refault_anon),
    ROW(MemoryStat, workingset_refault_file), ROW(MemoryStat, workingset_activate_anon),
    ROW(MemoryStat, workingset_activate_file), ROW(MemoryStat, workingset_restore_anon),
    ROW(MemoryStat, workingset_restore_file), ROW(MemoryStat, workingset_nodereclaim),
    ROW(MemoryStat, pswpin), ROW(MemoryStat, pswpout), ROW(MemoryStat, zswpin),
    ROW(MemoryStat, zswpout), ROW(MemoryStat, pgscan), ROW(MemoryStat, pgsteal),
    ROW(MemoryStat, pgscan_kswapd), ROW(MemoryStat, pgscan_direct),
    ROW(MemoryStat, pgsteal_kswapd), ROW(MemoryStat, pgsteal_direct), ROW(MemoryStat, pgfault),
    ROW(MemoryStat, pgmajfault), ROW(MemoryStat, pgrefill), ROW(MemoryStat, pgactivate),
    ROW(MemoryStat, pgdeactivate), ROW(MemoryStat, thp_fault_alloc),
};

constexpr FlatKey<EventCounts, uint64_t> kEventCountsKeys[] = {
    ROW(EventCounts, low), ROW(EventCounts, high),     ROW(EventCounts, max),
    ROW(EventCounts, oom), ROW(EventCounts, oom_kill), ROW(EventCounts, oom_group_kill),
};

constexpr FlatKey<SwapEventCounts, uint64_t> kSwapEventCountsKeys[] = {
    ROW(SwapEventCounts, high), ROW(SwapEventCounts, max), ROW(SwapEventCounts, fail)};

#undef ROW

}  // namespace

Result<MemoryEvents> parse_memory_events(std::string_view text, std::string_view source) {
  return parse_flat<MemoryEvents>(text, kMemoryEventsKeys, source);
}

Result<CgroupEvents> parse_cgroup_events(std::string_view text, std::string_view source) {
  return parse_flat<CgroupEvents>(text, kCgroupEventsKeys, source);
}

Result<MemoryStat> parse_memory_stat(std::string_view text, std::string_view source) {
  return parse_flat<MemoryStat>(text, kMemoryStatKeys, source);
}

FlatCounts parse_event_counts(EventCounts& out, std::string_view text) noexcept {
  return parse_flat_into<EventCounts, uint64_t>(out, kEventCountsKeys, text);
}

FlatCounts parse_swap_event_counts(SwapEventCounts& out, std::string_view text) noexcept {
  return parse_flat_into<SwapEventCounts, uint64_t>(out, kSwapEventCountsKeys, text);
}

}  // namespace cgmem::cgroup
