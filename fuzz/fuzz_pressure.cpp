// memory.pressure / io.pressure / cpu.pressure and /proc/pressure/*.
#include <cmath>

#include "cgroup/pressure.h"
#include "fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  auto psi = cgroup::parse_pressure(fuzz::text(data, size), "memory.pressure");
  if (!psi) return 0;
  fuzz::check(psi->some || psi->full);
  for (const auto& line : {psi->some, psi->full}) {
    if (line) fuzz::check(std::isfinite(line->avg10) && line->avg10 >= 0 && line->avg300 >= 0);
  }
  return 0;
}
