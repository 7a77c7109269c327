#include "support/count_allocations.h"

#include <atomic>
#include <cstdlib>
#include <new>

// The counting operator new/delete pair is malloc/free underneath; g++ 12
// cannot see that across the inlined static initializers of the libraries.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {
std::atomic<size_t> g_allocations{0};
}

namespace cgmem::testing {
size_t allocation_count() { return g_allocations; }
}  // namespace cgmem::testing

void* operator new(size_t size) {
  ++g_allocations;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
