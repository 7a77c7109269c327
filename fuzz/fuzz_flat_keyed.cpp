// memory.events, cgroup.events, memory.stat
// and the allocation-free forms over the same text, which must agree.
#include "cgroup/flat_keyed.h"
#include "fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  auto text = fuzz::text(data, size);
  auto events = cgroup::parse_memory_events(text);
  (void)cgroup::parse_cgroup_events(text);
  (void)cgroup::parse_memory_stat(text);
  size_t pairs = 0;
  size_t malformed = cgroup::for_each_flat(text, [&](std::string_view, uint64_t) { ++pairs; });
  if (events) {
    fuzz::check(events->malformed == malformed);
    // The first "high" line wins in flat_value; the last in the table parser.
    // Both see a value whenever the key is there and well formed.
    if (events->high) fuzz::check(pairs > 0);
  }
  // The allocation-free form reads the same lines the checked one does.
  cgroup::EventCounts counts;
  auto seen = cgroup::parse_event_counts(counts, text);
  fuzz::check(seen.known + seen.unknown + seen.malformed >= pairs);
  if (events) {
    fuzz::check(counts.high == events->high.value_or(0));
    fuzz::check(counts.oom_kill == events->oom_kill.value_or(0));
    fuzz::check(seen.malformed <= events->malformed);
  } else {
    fuzz::check(seen.known == 0);  // (the checked form knows sock_throttled as well)
  }
  (void)cgroup::flat_value(text, "high");
  (void)cgroup::flat_value(text, "");
  return 0;
}
