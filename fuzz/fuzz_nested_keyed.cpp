// io.max: an entry formats to a line that parses back
// to the same entry.
#include "cgroup/nested_keyed.h"
#include "fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  auto text = fuzz::text(data, size);
  auto limits = cgroup::parse_io_max(text);
  if (!limits) return 0;
  for (const auto& entry : *limits) {
    bool any = entry.rbps || entry.wbps || entry.riops || entry.wiops;
    auto again = cgroup::parse_io_max(cgroup::format_io_max(entry));
    fuzz::check(again.has_value());
    if (any) fuzz::check(again->size() == 1 && (*again)[0] == entry);
  }
  return 0;
}
