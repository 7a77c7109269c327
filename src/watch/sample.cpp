#include "watch/sample.h"

#include "cgroup/flat_keyed.h"
#include "cgroup/pressure.h"
#include "common/text.h"

namespace cgmem::watch {
namespace {

// Single-value files: "34140160\n", or "max\n" for a limit.
bool single_u64(uint64_t& out, std::string_view text) {
  auto v = to_u64(trim_end(text));
  if (v) out = *v;
  return v.has_value();
}

bool single_limit(Limit& out, std::string_view text) {
  auto v = to_limit(trim_end(text));
  if (v) out = *v;
  return v.has_value();
}

bool parse_events(Events& out, std::string_view text) {
  bool known = false;
  cgroup::for_each_flat(text, [&](std::string_view key, uint64_t value) {
    uint64_t* field = key == "high"             ? &out.high
                      : key == "max"            ? &out.max
                      : key == "oom"            ? &out.oom
                      : key == "oom_kill"       ? &out.oom_kill
                      : key == "oom_group_kill" ? &out.oom_group_kill
                                                : nullptr;
    if (field) *field = value, known = true;
  });
  return known;
}

bool parse_swap_events(SwapEvents& out, std::string_view text) {
  bool known = false;
  cgroup::for_each_flat(text, [&](std::string_view key, uint64_t value) {
    uint64_t* field = key == "high" ? &out.high : key == "max" ? &out.max : key == "fail" ? &out.fail : nullptr;
    if (field) *field = value, known = true;
  });
  return known;
}

// The member for a memory.stat key, or null. Keys are compared by length
// first, so most of the ~60 keys on 6.12 cost one integer compare.
uint64_t* stat_field(Sample& s, std::string_view key) {
  switch (key.size()) {
    case 4: return key == "anon" ? &s.anon : key == "file" ? &s.file : nullptr;
    case 6:
      return key == "pgscan"   ? &s.pgscan
             : key == "pswpin" ? &s.pswpin
             : key == "zswpin" ? &s.zswpin
                               : nullptr;
    case 7:
      return key == "pgsteal"   ? &s.pgsteal
             : key == "pgfault" ? &s.pgfault
             : key == "pswpout" ? &s.pswpout
             : key == "zswpout" ? &s.zswpout
                                : nullptr;
    case 10: return key == "pgmajfault" ? &s.pgmajfault : nullptr;
    case 13: return key == "inactive_file" ? &s.inactive_file : nullptr;
    case 23:
      return key == "workingset_refault_anon"   ? &s.refault_anon
             : key == "workingset_refault_file" ? &s.refault_file
                                                : nullptr;
  }
  return nullptr;
}

// The StatKey bit of a swap counter only some kernels print, else 0.
uint8_t swap_key(const Sample& s, const uint64_t* field) {
  return field == &s.pswpin ? kPswpin : field == &s.pswpout ? kPswpout
         : field == &s.zswpin ? kZswpin : field == &s.zswpout ? kZswpout : 0;
}

// memory.stat, "key value" per line: only the wanted values (eight, and up
// to four swap counters) are converted (the scan's most expensive file;
// measured in bench/watch_bench).
bool parse_stat(Sample& s, std::string_view text) {
  bool known = false;
  while (!text.empty()) {
    std::string_view line = next_line(text);
    size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0) continue;
    uint64_t* field = stat_field(s, line.substr(0, space));
    if (!field) continue;
    auto value = to_u64(trim(line.substr(space)));
    if (!value) continue;
    *field = *value, known = true;
    s.stat_keys |= swap_key(s, field);
  }
  return known;
}

bool parse_psi(Psi& out, std::string_view text) {
  bool known = false;
  while (!text.empty()) {
    std::string_view fields = trim_end(next_line(text));
    std::string_view kind = next_token(fields);
    auto line = cgroup::parse_pressure_fields(fields);
    if (!line) continue;
    if (kind == "some") out.some_avg10 = line->avg10, out.some_usec = line->total_usec, known = true;
    if (kind == "full") out.full_avg10 = line->avg10, out.full_usec = line->total_usec, known = true;
  }
  return known;
}

}  // namespace

void parse_into(Sample& s, File file, std::string_view text) noexcept {
  bool ok = false;
  switch (file) {
    case File::current: ok = single_u64(s.current, text); break;
    case File::high: ok = single_limit(s.high, text); break;
    case File::max: ok = single_limit(s.max, text); break;
    case File::events: ok = parse_events(s.events, text); break;
    case File::events_local: ok = parse_events(s.local, text); break;
    case File::stat: ok = parse_stat(s, text); break;
    case File::memory_pressure: ok = parse_psi(s.memory, text); break;
    case File::io_pressure: ok = parse_psi(s.io, text); break;
    case File::swap_current: ok = single_u64(s.swap_current, text); break;
    case File::swap_max: ok = single_limit(s.swap_max, text); break;
    case File::swap_high: ok = single_limit(s.swap_high, text); break;
    case File::swap_events: ok = parse_swap_events(s.swap_events, text); break;
    case File::zswap_current: ok = single_u64(s.zswap_current, text); break;
  }
  if (ok) s.read |= bit(file);
  else s.malformed |= bit(file);
}

}  // namespace cgmem::watch
