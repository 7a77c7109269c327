// One cgroup read once: the raw values `cgmem watch` needs, from the
// thirteen control files below, parsed without allocating.
//
//   memory.current        34140160
//   memory.high           30195712 | max
//   memory.max            67108864 | max
//   memory.events         hierarchical: this cgroup and its descendants
//   memory.events.local   this cgroup only (kernel 5.7+; memory.events stands in when absent)
//   memory.stat           anon, file, inactive_file, pgfault, pgmajfault, pgscan, pgsteal, workingset_refault_*,
//                         and where the kernel has them pswpin, pswpout (6.13+), zswpin, zswpout (CONFIG_ZSWAP)
//   memory.pressure       some/full avg10 and total (microseconds stalled)
//   io.pressure           the same for I/O
//   memory.swap.current   bytes of swap used (absent without CONFIG_SWAP or swap accounting)
//   memory.swap.max       the swap limit | max
//   memory.swap.high      the swap throttle limit | max (5.8+)
//   memory.swap.events    high, max, fail: hierarchical (the kernel has no .local of it)
//   memory.zswap.current  bytes of zswap's compressed pool (CONFIG_ZSWAP only)
//
// A file that does not exist (memory.swap.* without CONFIG_SWAP, zswap on
// Debian's kernels) is not read and keeps its default.
//
// A Sample is plain data (no heap): the exporter and the guard read the
// same struct through Row (watch/scanner.h).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "cgroup/files.h"
#include "cgroup/flat_keyed.h"
#include "common/size.h"

namespace cgmem::watch {

// The files a scan reads, as indexes into per-cgroup descriptor arrays.
enum class File : uint8_t {
  current,
  high,
  max,
  events,
  events_local,
  stat,
  memory_pressure,
  io_pressure,
  swap_current,
  swap_max,
  swap_high,
  swap_events,
  zswap_current,
};
inline constexpr size_t kFileCount = 13;
inline constexpr std::array<const char*, kFileCount> kFileNames = {
    cgroup::files::kMemoryCurrent,      cgroup::files::kMemoryHigh,
    cgroup::files::kMemoryMax,          cgroup::files::kMemoryEvents,
    cgroup::files::kMemoryEventsLocal,  cgroup::files::kMemoryStat,
    cgroup::files::kMemoryPressure,     cgroup::files::kIoPressure,
    cgroup::files::kMemorySwapCurrent,  cgroup::files::kMemorySwapMax,
    cgroup::files::kMemorySwapHigh,     cgroup::files::kMemorySwapEvents,
    cgroup::files::kMemoryZswapCurrent};

constexpr uint32_t bit(File f) { return 1u << static_cast<unsigned>(f); }

// One PSI file: the `some` and `full` lines' avg10 (percent) and totals.
struct Psi {
  double some_avg10 = 0, full_avg10 = 0;  // percent of wall time, kernel-averaged over 10 s
  uint64_t some_usec = 0, full_usec = 0;  // stalled time since the cgroup was created
};

// memory.events (or .local) and memory.swap.events, as cgroup/ parses them.
using Events = cgroup::EventCounts;
using SwapEvents = cgroup::SwapEventCounts;

// memory.stat's swap counters that only some kernels print (StatKeys bits).
enum StatKey : uint8_t {
  kPswpin = 1u << 0,   // pages read from swap (6.13+)
  kPswpout = 1u << 1,  // pages written to swap (6.13+)
  kZswpin = 1u << 2,   // pages loaded from zswap (CONFIG_ZSWAP)
  kZswpout = 1u << 3,  // pages stored in zswap (CONFIG_ZSWAP)
};

// The files read at every scan. When neither moved since a cgroup's last
// full read, the scanner carries the others from that read instead of
// reading them (watch/scanner.h: quiet reads). memory.events.local is exact
// when carried: a local count cannot rise without the hierarchical one.
inline constexpr uint32_t kSentinelFiles = bit(File::current) | bit(File::events);

struct Sample {
  uint64_t t_ns = 0;     // CLOCK_MONOTONIC when the cgroup was read
  // 0: every file was read at t_ns. Else the scan carried the files other
  // than the sentinels from its full read at this time (their rates span
  // from there: full_read_ns()).
  uint64_t carried_from_ns = 0;
  uint32_t read = 0;     // bit(File) for each file read and parsed
  // bit(File) for each file that was read but whose text is not what the
  // kernel writes (garbage, a negative number, more than 2^64-1): its
  // fields keep their defaults, which are no facts (classify says unknown).
  uint32_t malformed = 0;
  // bit(File) for each file that is there but could not be read (a
  // directory in its place, EIO): the scanner sets it.
  uint32_t unreadable = 0;
  uint64_t current = 0;  // bytes
  Limit high = Limit::max();
  Limit max = Limit::max();
  Events events;  // memory.events: hierarchical
  Events local;   // memory.events.local, or memory.events when the kernel has no .local
  // memory.stat: bytes for anon and file, page counts for the rest.
  uint64_t anon = 0, file = 0;
  uint64_t inactive_file = 0;  // bytes: page cache the kernel reclaims first (cAdvisor's working set leaves it out)
  uint64_t pgfault = 0, pgmajfault = 0, pgscan = 0, pgsteal = 0;
  uint64_t refault_anon = 0, refault_file = 0;  // workingset_refault_*
  uint64_t pswpin = 0, pswpout = 0, zswpin = 0, zswpout = 0;  // pages; 0 where the kernel has no such key
  uint8_t stat_keys = 0;  // StatKey bits: which of the four memory.stat had
  Psi memory, io;
  uint64_t swap_current = 0;  // bytes
  Limit swap_max = Limit::max();
  Limit swap_high = Limit::max();
  SwapEvents swap_events;
  uint64_t zswap_current = 0;  // bytes

  uint64_t full_read_ns() const { return carried_from_ns ? carried_from_ns : t_ns; }
  bool has(File f) const { return read & bit(f); }
  // Neither malformed nor unreadable: a missing file (memory.high of the
  // root, memory.swap.* without swap accounting) keeps its default honestly.
  bool trusted(File f) const { return !((malformed | unreadable) & bit(f)); }
  // memory.swap.current over a memory.swap.high that was read and is set:
  // the kernel adds the swap term to the throttle (mem_cgroup_handle_over_high).
  bool over_swap_high() const {
    return has(File::swap_current) && has(File::swap_high) && !swap_high.is_max() &&
           swap_current > swap_high.bytes();
  }
};

// Parses one file's text into sample through cgroup/'s allocation-free
// parsers, setting its bit in sample.read when the text is well formed, in
// sample.malformed when not. A malformed file leaves its fields untouched.
void parse_into(Sample& sample, File file, std::string_view text) noexcept;

}  // namespace cgmem::watch
