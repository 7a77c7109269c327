// docker/go-units RAMInBytes (size.go parseSize() with the binary map), the
// size parser of the docker CLI (--memory, --memory-reservation,
// --memory-swap), podman's getMemoryLimits() and compose-go's UnitBytes:
//
//   - with a space, the number is what comes before the first space and the
//     suffix all that follows ("256 m"); without one, the suffix starts after
//     the last digit or '.' ("1e3k": number "1e3", suffix "k");
//   - the number is Go's strconv.ParseFloat: a sign, decimals, an exponent
//     ("1.5", "1e3", "+2"), or a hex float with a 'p' exponent ("0x1p4");
//     negative numbers are invalid;
//   - the suffix, any case, at most 3 letters: "b", or one of k m g t p
//     (base 1024) alone or followed by "b" or "ib": "256m", "256MB",
//     "256MiB"; "256Mi" and "256mbb" are invalid;
//   - the result is int64(number x unit), truncated toward zero.
//
// Where Go's own conversion is undefined (a product of 2^63 or more) cgmem
// reports an error instead of a wrapped value; Go's underscores in hex
// floats ("0x_1p4") are not accepted.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/error.h"

namespace cgmem::managers {

// The byte count, or go-units' error text: "invalid size: '...'",
// "invalid suffix: '...'" or strconv's "strconv.ParseFloat: parsing ...".
Result<int64_t> parse_go_units_ram(std::string_view text);

}  // namespace cgmem::managers
