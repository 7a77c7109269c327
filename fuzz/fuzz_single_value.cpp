// memory.max-style limits and counters: any input parses or fails, and a
// number that parses as a limit parses the same way as a counter.
#include "cgroup/single_value.h"
#include "fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  auto text = fuzz::text(data, size);
  auto limit = cgroup::parse_limit_file(text, "memory.max");
  auto counter = cgroup::parse_counter_file(text, "memory.current");
  auto current = cgroup::parse_counter_value(text);
  fuzz::check(counter.has_value() == current.has_value());
  if (counter) fuzz::check(limit && !limit->is_max() && limit->bytes() == *counter);
  if (limit && !limit->is_max()) fuzz::check(counter && *counter == limit->bytes());
  return 0;
}
