// The scan's per-file parsers (watch/sample.h), each of the thirteen files from
// any bytes: the first byte picks the file. Nothing may crash; a file that
// does not parse leaves its bit clear and every field as it was.
#include <cstring>

#include "fuzz.h"
#include "watch/sample.h"

namespace {

bool same_values(const cgmem::watch::Sample& a, const cgmem::watch::Sample& b) {
  auto events = [](const cgmem::watch::Events& x, const cgmem::watch::Events& y) {
    return x.low == y.low && x.high == y.high && x.max == y.max && x.oom == y.oom && x.oom_kill == y.oom_kill &&
           x.oom_group_kill == y.oom_group_kill;
  };
  auto psi = [](const cgmem::watch::Psi& x, const cgmem::watch::Psi& y) {
    return std::memcmp(&x, &y, sizeof x) == 0;
  };
  return a.current == b.current && a.high == b.high && a.max == b.max && events(a.events, b.events) &&
         events(a.local, b.local) && a.anon == b.anon && a.file == b.file && a.pgfault == b.pgfault &&
         a.pgmajfault == b.pgmajfault && a.pgscan == b.pgscan && a.pgsteal == b.pgsteal &&
         a.refault_anon == b.refault_anon && a.refault_file == b.refault_file && psi(a.memory, b.memory) &&
         psi(a.io, b.io) && a.swap_current == b.swap_current && a.swap_max == b.swap_max &&
         a.swap_high == b.swap_high && a.swap_events.high == b.swap_events.high &&
         a.swap_events.max == b.swap_events.max && a.swap_events.fail == b.swap_events.fail &&
         a.zswap_current == b.zswap_current && a.pswpin == b.pswpin && a.pswpout == b.pswpout &&
         a.zswpin == b.zswpin && a.zswpout == b.zswpout && a.stat_keys == b.stat_keys;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  if (size == 0) return 0;
  auto file = watch::File(data[0] % watch::kFileCount);
  auto text = fuzz::text(data + 1, size - 1);
  watch::Sample before, s;
  watch::parse_into(s, file, text);
  fuzz::check((s.read & ~watch::bit(file)) == 0);
  if (!s.has(file)) fuzz::check(same_values(s, before));
  return 0;
}
