// A Row for people and for machines: the evidence as sentences, and the JSON
// object `cgmem watch --json` prints per cgroup (schema in docs/watch.md).
// Rendering reads no file; it allocates (it runs once per printed row, not
// in the scan).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "watch/scanner.h"

namespace cgmem::watch {

// One short sentence per piece of evidence, most telling first:
// "high +340 in 1.00 s = 20.0 sleeps/s", "memory PSI some 98%", ...
std::vector<std::string> describe(const Row& row);

// Reason bits by name ("high_rising", ...), in bit order.
std::vector<std::string_view> reason_names(uint32_t reasons);

// The JSON object of one row. unix_time_s stamps it (wall clock).
nlohmann::json row_json(const Row& row, double unix_time_s);

// j as one line of JSON. A name may hold bytes that are not UTF-8 (a
// cgroup's directory, a task's comm); each is written as U+FFFD instead of
// failing the whole output (the row's id tells two such names apart).
std::string json_line(const nlohmann::json& j);

}  // namespace cgmem::watch
