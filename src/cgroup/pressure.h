// Pressure stall information: memory.pressure, io.pressure, cpu.pressure
// in a cgroup, and /proc/pressure/{memory,io,cpu}.
//
//   some avg10=48.30 avg60=10.49 avg300=2.26 total=6027841
//   full avg10=48.30 avg60=10.49 avg300=2.26 total=6027841
//
// avgN are percentages of wall time over the last N seconds; total is
// microseconds stalled since boot. `full` is absent on older kernels' CPU
// files.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/error.h"

namespace cgmem::cgroup {

struct PressureLine {
  double avg10 = 0, avg60 = 0, avg300 = 0;  // percent
  uint64_t total_usec = 0;
  bool operator==(const PressureLine&) const = default;
};

struct Pressure {
  std::optional<PressureLine> some, full;
  size_t malformed = 0;  // lines skipped: unknown kind or a field missing
};

// Allocation-free, for hot loops: the well-formed `some` and `full` lines
// of text, each line else counted in malformed.
Pressure parse_pressure_lines(std::string_view text) noexcept;

// The same, with an error when neither a `some` nor a `full` line is there.
Result<Pressure> parse_pressure(std::string_view text, std::string_view source);

// One "some ..."/"full ..." line without its kind word; nullopt unless all
// four fields are present and well formed. Unknown fields are ignored.
std::optional<PressureLine> parse_pressure_fields(std::string_view fields) noexcept;

}  // namespace cgmem::cgroup
