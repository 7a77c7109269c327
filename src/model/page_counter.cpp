#include "model/page_counter.h"

namespace cgmem::model {

Limit page_rounded(const Limit& value, uint64_t page_size) {
  if (value.is_max() || page_size == 0) return value;
  const uint64_t pages = value.bytes() / page_size;
  if (pages >= static_cast<uint64_t>(INT64_MAX) / page_size) return Limit::max();  // PAGE_COUNTER_MAX
  return Limit::of(pages * page_size);
}

}  // namespace cgmem::model
