// The one HTTP client of cgmem: a GET with a deadline and a size bound, for
// reading a Prometheus server's HTTP API (`cgmem advise --prometheus`).
// Debian's cpp-httplib is a shared library only, so, like the exporter's
// server, it is in cgmem and not in cgmem-static (http_get.cpp there,
// server_unavailable.cpp here).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "common/error.h"

namespace cgmem::exporter {

// GET base_url + path_and_query ("http://127.0.0.1:9090", "/api/v1/...").
// Fails on a connection error, a status other than 200, a body over
// max_bytes, or no answer within `timeout` (each of connect and read).
Result<std::string> http_get(const std::string& base_url, const std::string& path_and_query,
                             std::chrono::seconds timeout, size_t max_bytes);

}  // namespace cgmem::exporter
