// `cgmem advise --prometheus URL --selector '{cgroup="..."}' --range 7d`:
// a cgroup's history from a Prometheus server that scrapes `cgmem exporter`
// (docs/fleet.md), read through its HTTP API (/api/v1/query_range and
// /api/v1/query), as the Usage advise recommends from.
//
//   working set   cgmem_memory_current_bytes - cgmem_memory_inactive_file_bytes
//                 (cAdvisor's; --page-cache: memory.current alone), at a step
//                 of the range / 10000 (Prometheus answers at most 11000
//                 points a series), at least 1 s
//   limits        increase() of memory.events high and max over the range: a
//                 cgroup whose limits shaped its usage is refused
//   VPA peaks     the working set's peak in each 24 h interval of the range
//                 (the VPA recommender's aggregation), newest last
//
// The selector must name one cgroup: a query that matches several series is
// refused with their cgroup labels. The HTTP GET is passed in (cgmem has
// one, exporter/http_get.h; cgmem-static has none).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "advise/usage.h"

namespace cgmem::advise {

// GETs PATH_AND_QUERY from the server ("/api/v1/query?query=...").
using PromGet = std::function<Result<std::string>(const std::string& path_and_query)>;

struct PromOptions {
  std::string selector;  // "{cgroup=\"/system.slice/app.service\"}"
  double range_s = 7 * 86400;
  double end_s = 0;      // Unix time of the range's end (now)
  WorkingSet kind = WorkingSet::without_inactive_file;
  std::string kernel;    // the rules' host: its uname -r, HZ, page size, swap
  uint32_t hz = 1000;
  uint64_t page_size = 4096;
  uint64_t host_swap = 0;
};

struct PromUsage {
  Usage usage;
  std::vector<uint64_t> daily_peaks;  // the VPA rule's samples
  std::vector<std::string> notes;
};

// Checks the selector's shape: one {...} of label matchers, no nesting.
Result<void> check_selector(const std::string& selector);

Result<PromUsage> prometheus_usage(const PromOptions& options, const PromGet& get);

// "%XX" for every byte but unreserved ones (RFC 3986), for query strings.
std::string url_encoded(const std::string& text);

}  // namespace cgmem::advise
