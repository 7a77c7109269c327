// memory.events, cgroup.events, memory.stat
// and the allocation-free lookups over the same text.
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
  (void)cgroup::flat_value(text, "high");
  (void)cgroup::flat_value(text, "");
  return 0;
}
