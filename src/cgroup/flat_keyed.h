// Flat-keyed files: one "key value" pair per line, values are u64.
//
//   memory.events           memory.swap.events    cgroup.events
//   low 0                   high 0                populated 1
//   high 309                max 0                 frozen 0
//   max 0                   fail 0
//   oom 0
//   oom_kill 0
//   oom_group_kill 0
//
// memory.stat and cpu.stat have the same shape with more keys. Each file
// parses through a table from key to member into a struct of optional
// fields: a key the kernel did not print stays empty, a key cgmem does not
// know goes to `other` in file order, a line that is not "key u64" is
// counted in `malformed` and skipped. A non-empty file with no known key is
// an error (it is not the file we think it is).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/text.h"
#include "common/error.h"

namespace cgmem::cgroup {

using Counter = std::optional<uint64_t>;
using KeyValues = std::vector<std::pair<std::string, uint64_t>>;

// Calls f(key, value) for every well-formed line, in order, allocating
// nothing; returns the number of malformed lines.
template <typename F>
size_t for_each_flat(std::string_view text, F&& f) {
  size_t malformed = 0;
  while (!text.empty()) {
    std::string_view line = trim_end(next_line(text));
    if (line.empty()) continue;
    size_t space = line.find(' ');
    auto value = space == std::string_view::npos ? std::nullopt : to_u64(trim(line.substr(space)));
    if (space == 0 || !value) {
      ++malformed;
      continue;
    }
    f(line.substr(0, space), *value);
  }
  return malformed;
}

// Allocation-free, for hot loops: the value of one key ("high" in
// memory.events), or nullopt when the key is absent or its line malformed.
std::optional<uint64_t> flat_value(std::string_view text, std::string_view key) noexcept;

// One row of a parse table: a key and the struct member it fills, a
// Counter (empty until the kernel prints the key) or a plain uint64_t.
template <typename T, typename M = Counter>
struct FlatKey {
  std::string_view key;
  M T::*member;
};

// What parse_flat_into saw: lines whose key is in the table, lines whose
// key is not, lines that are not "key u64". Bit i of `seen` is set when
// table row i was filled (rows past 63 fill without a bit).
struct FlatCounts {
  size_t known = 0, unknown = 0, malformed = 0;
  uint64_t seen = 0;
  bool has(size_t row) const { return row < 64 && (seen >> row & 1); }
};

// Parses text into out through table, allocating nothing: a known key's
// value is converted and stored (the last line wins), a known key with a
// bad value is malformed. A line with an unknown key goes to
// on_unknown(key, value_text), which says whether it was well formed; by
// default it is counted without converting its value, so a file with many
// keys costs one conversion per wanted key.
template <typename T, typename M, typename OnUnknown>
FlatCounts parse_flat_into(T& out, std::span<const FlatKey<T, M>> table, std::string_view text,
                           OnUnknown&& on_unknown) {
  FlatCounts counts;
  while (!text.empty()) {
    std::string_view line = trim_end(next_line(text));
    if (line.empty()) continue;
    size_t space = line.find(' ');
    if (space == 0 || space == std::string_view::npos) {
      ++counts.malformed;
      continue;
    }
    std::string_view key = line.substr(0, space), value_text = trim(line.substr(space));
    size_t row = 0;
    while (row < table.size() && table[row].key != key) ++row;
    if (row == table.size()) {
      if (on_unknown(key, value_text)) ++counts.unknown;
      else ++counts.malformed;
      continue;
    }
    auto value = to_u64(value_text);
    if (!value) {
      ++counts.malformed;
      continue;
    }
    out.*table[row].member = *value;
    ++counts.known;
    if (row < 64) counts.seen |= uint64_t{1} << row;
  }
  return counts;
}

template <typename T, typename M>
FlatCounts parse_flat_into(T& out, std::span<const FlatKey<T, M>> table,
                           std::string_view text) noexcept {
  return parse_flat_into(out, table, text, [](std::string_view, std::string_view) { return true; });
}

// Parses text into T through table. T has Counter members, `KeyValues
// other` (the unknown keys, in file order) and `size_t malformed`.
template <typename T>
Result<T> parse_flat(std::string_view text, std::span<const FlatKey<T>> table,
                     std::string_view source) {
  T out{};
  auto counts = parse_flat_into(out, table, text, [&](std::string_view key, std::string_view value) {
    auto number = to_u64(value);
    if (number) out.other.emplace_back(std::string(key), *number);
    return number.has_value();
  });
  out.malformed = counts.malformed;
  if (counts.known == 0 && !trim(text).empty()) {
    return fail("parse " + std::string(source) + ": no known key in " + quote(trim(text)));
  }
  if (counts.known == 0) return fail("parse " + std::string(source) + ": the file is empty");
  return out;
}

// memory.events (or .local) as plain numbers, 0 where the kernel printed
// no such key: the hot loops' form (the scan, the sampler's summary).
struct EventCounts {
  uint64_t low = 0;             // reclaims below memory.low
  uint64_t high = 0;            // reclaim_high calls: 17 per sleep when nothing is reclaimable
  uint64_t max = 0;             // charges that hit memory.max
  uint64_t oom = 0;             // OOM situations
  uint64_t oom_kill = 0;        // tasks killed by the OOM killer
  uint64_t oom_group_kill = 0;  // whole-cgroup kills (memory.oom.group)
  bool operator==(const EventCounts&) const = default;
};
FlatCounts parse_event_counts(EventCounts& out, std::string_view text) noexcept;

// memory.swap.events: counted on the cgroup and each ancestor (the kernel
// has no .local of it).
struct SwapEventCounts {
  uint64_t high = 0;  // passes of mem_cgroup_handle_over_high with swap over memory.swap.high
  uint64_t max = 0;   // swap-outs refused at memory.swap.max
  uint64_t fail = 0;  // swap-outs that failed (memory.swap.max, or no swap slot left)
};
FlatCounts parse_swap_event_counts(SwapEventCounts& out, std::string_view text) noexcept;

// memory.events and memory.events.local.
struct MemoryEvents {
  Counter low, high, max, oom, oom_kill, oom_group_kill, sock_throttled;
  KeyValues other;
  size_t malformed = 0;
};
Result<MemoryEvents> parse_memory_events(std::string_view text,
                                         std::string_view source = "memory.events");

// cgroup.events.
struct CgroupEvents {
  Counter populated, frozen;
  KeyValues other;
  size_t malformed = 0;
};
Result<CgroupEvents> parse_cgroup_events(std::string_view text,
                                         std::string_view source = "cgroup.events");

// memory.stat: bytes for the sizes, counts for the events. The keys the lab
// and the report use are members; the rest (about 30 on 6.12) are in other.
struct MemoryStat {
  Counter anon, file, kernel, kernel_stack, pagetables, sec_pagetables, percpu, sock, vmalloc,
      shmem, zswap, zswapped, file_mapped, file_dirty, file_writeback, swapcached, anon_thp,
      file_thp, shmem_thp, inactive_anon, active_anon, inactive_file, active_file, unevictable,
      slab_reclaimable, slab_unreclaimable, slab;
  Counter workingset_refault_anon, workingset_refault_file, workingset_activate_anon,
      workingset_activate_file, workingset_restore_anon, workingset_restore_file,
      workingset_nodereclaim;
  Counter pswpin, pswpout, zswpin, zswpout, pgscan, pgsteal, pgscan_kswapd, pgscan_direct,
      pgsteal_kswapd, pgsteal_direct, pgfault, pgmajfault, pgrefill, pgactivate, pgdeactivate,
      thp_fault_alloc;
  KeyValues other;
  size_t malformed = 0;
};
Result<MemoryStat> parse_memory_stat(std::string_view text,
                                     std::string_view source = "memory.stat");

}  // namespace cgmem::cgroup
