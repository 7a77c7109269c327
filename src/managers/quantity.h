// Kubernetes resource quantities, as the API server reads them
// (k8s.io/apimachinery pkg/api/resource/quantity.go, ParseQuantity):
//
//   <quantity> ::= <sign>? <number> <suffix>
//   <number>   ::= digits | digits "." digits | digits "." | "." digits
//   <suffix>   ::= Ki | Mi | Gi | Ti | Pi | Ei          (base 1024)
//               |  n | u | m | "" | k | M | G | T | P | E   (base 1000)
//               |  ("e" | "E") <signed integer>        (10^n)
//
// So "256Mi" = 268435456, "1G" = 10^9, "1e9" = 10^9, "0.5Gi" = 536870912,
// "128974848" = 128974848, "100m" = 0.1 byte. A memory quantity becomes
// bytes through Quantity.Value(), which rounds up to a whole number.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/error.h"

namespace cgmem::managers {

// Bytes for a memory quantity (rounded up), or an error quoting the text.
// Negative quantities are an error: the API rejects them for resources.
Result<int64_t> parse_quantity(std::string_view text);

// The quantity times 10^scale, rounded up: scale 3 gives MilliValue(), for
// CPU quantities ("500m" -> 500, "2" -> 2000).
Result<int64_t> parse_quantity_scaled(std::string_view text, int scale);

}  // namespace cgmem::managers
