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

// One row of a parse table: a key and the struct member it fills.
template <typename T>
struct FlatKey {
  std::string_view key;
  Counter T::*member;
};

// Parses text into T through table. T has Counter members, `KeyValues
// other` and `size_t malformed`.
template <typename T>
Result<T> parse_flat(std::string_view text, std::span<const FlatKey<T>> table,
                     std::string_view source) {
  T out{};
  bool known = false;
  out.malformed = for_each_flat(text, [&](std::string_view key, uint64_t value) {
    for (const auto& row : table) {
      if (row.key == key) {
        out.*row.member = value;
        known = true;
        return;
      }
    }
    out.other.emplace_back(std::string(key), value);
  });
  if (!known && !trim(text).empty()) {
    return fail("parse " + std::string(source) + ": no known key in " + quote(trim(text)));
  }
  if (!known) return fail("parse " + std::string(source) + ": the file is empty");
  return out;
}

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
