// Shared by the libFuzzer targets: the input as text, and a check that
// crashes (so libFuzzer records the input) when an invariant breaks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace cgmem::fuzz {

inline std::string_view text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

inline void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace cgmem::fuzz
