#include "watch/sample.h"

#include "cgroup/pressure.h"
#include "cgroup/single_value.h"

namespace cgmem::watch {
namespace {

// Stores a single-value file's value; false (out untouched) when there is none.
template <typename T>
bool store(T& out, std::optional<T> value) {
  if (value) out = *value;
  return value.has_value();
}

// The memory.stat keys a scan keeps: bytes for anon, file and
// inactive_file, page counts for the rest. The swap counters come first so
// that their rows are the StatKey bits.
constexpr cgroup::FlatKey<Sample, uint64_t> kStatKeys[] = {
    {"pswpin", &Sample::pswpin},
    {"pswpout", &Sample::pswpout},
    {"zswpin", &Sample::zswpin},
    {"zswpout", &Sample::zswpout},
    {"anon", &Sample::anon},
    {"file", &Sample::file},
    {"inactive_file", &Sample::inactive_file},
    {"pgfault", &Sample::pgfault},
    {"pgmajfault", &Sample::pgmajfault},
    {"pgscan", &Sample::pgscan},
    {"pgsteal", &Sample::pgsteal},
    {"workingset_refault_anon", &Sample::refault_anon},
    {"workingset_refault_file", &Sample::refault_file},
};
static_assert(kPswpin == 1 << 0 && kPswpout == 1 << 1 && kZswpin == 1 << 2 && kZswpout == 1 << 3);

// memory.stat is the scan's most expensive file (about 60 keys on 6.12):
// only the thirteen wanted values are converted (bench/watch_bench).
bool parse_stat(Sample& s, std::string_view text) {
  auto counts = cgroup::parse_flat_into<Sample, uint64_t>(s, kStatKeys, text);
  s.stat_keys |= static_cast<uint8_t>(counts.seen & 0xf);
  return counts.known > 0;
}

bool parse_psi(Psi& out, std::string_view text) {
  auto p = cgroup::parse_pressure_lines(text);
  if (p.some) out.some_avg10 = p.some->avg10, out.some_usec = p.some->total_usec;
  if (p.full) out.full_avg10 = p.full->avg10, out.full_usec = p.full->total_usec;
  return p.some || p.full;
}

}  // namespace

void parse_into(Sample& s, File file, std::string_view text) noexcept {
  bool ok = false;
  switch (file) {
    case File::current: ok = store(s.current, cgroup::parse_counter_value(text)); break;
    case File::high: ok = store(s.high, cgroup::parse_limit_value(text)); break;
    case File::max: ok = store(s.max, cgroup::parse_limit_value(text)); break;
    case File::events: ok = cgroup::parse_event_counts(s.events, text).known > 0; break;
    case File::events_local: ok = cgroup::parse_event_counts(s.local, text).known > 0; break;
    case File::stat: ok = parse_stat(s, text); break;
    case File::memory_pressure: ok = parse_psi(s.memory, text); break;
    case File::io_pressure: ok = parse_psi(s.io, text); break;
    case File::swap_current: ok = store(s.swap_current, cgroup::parse_counter_value(text)); break;
    case File::swap_max: ok = store(s.swap_max, cgroup::parse_limit_value(text)); break;
    case File::swap_high: ok = store(s.swap_high, cgroup::parse_limit_value(text)); break;
    case File::swap_events: ok = cgroup::parse_swap_event_counts(s.swap_events, text).known > 0; break;
    case File::zswap_current: ok = store(s.zswap_current, cgroup::parse_counter_value(text)); break;
  }
  if (ok) s.read |= bit(file);
  else s.malformed |= bit(file);
}

}  // namespace cgmem::watch
