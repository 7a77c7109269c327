// What the kernel keeps of a limit written to memory.min/low/high/max,
// memory.swap.max or memory.zswap.max: a count of pages
// (mm/page_counter.c page_counter_memparse(), Linux 6.1 to 6.18), so a value
// reads back rounded down to a multiple of the page size, and a count at or
// above PAGE_COUNTER_MAX (LONG_MAX / page size) reads back as "max".
#pragma once

#include <cstdint>

#include "common/size.h"

namespace cgmem::model {

Limit page_rounded(const Limit& value, uint64_t page_size);

}  // namespace cgmem::model
