// mulberry32: the study's seeded PRNG (Tommy Ettinger's 32-bit generator, as
// in the study's workload.py), so a seed gives the same choices everywhere.
// One 32-bit state; each call adds 0x6D2B79F5 and mixes. No allocation.
#pragma once

#include <cstdint>

namespace cgmem::lab {

class Mulberry32 {
 public:
  explicit Mulberry32(uint32_t seed) : state_(seed) {}

  uint32_t next() {
    state_ += 0x6D2B79F5u;
    uint32_t t = state_;
    t = (t ^ (t >> 15)) * (t | 1u);
    t ^= t + (t ^ (t >> 7)) * (t | 61u);
    return t ^ (t >> 14);
  }

  // A choice in [0, n); n must be > 0. Modulo, as the study did (the bias
  // for n far below 2^32 is below one part in 10^5).
  uint32_t below(uint32_t n) { return next() % n; }

 private:
  uint32_t state_;
};

}  // namespace cgmem::lab
