// Heap allocations counted, for the tests and benchmarks that show a hot
// loop allocates nothing. Link count_allocations.cpp into the binary: it
// replaces the global operator new/delete (malloc/free underneath).
#pragma once

#include <cstddef>

namespace cgmem::testing {

// Calls of operator new (and new[]) since the program started.
size_t allocation_count();

}  // namespace cgmem::testing
