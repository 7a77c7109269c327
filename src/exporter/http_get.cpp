#include "exporter/http_get.h"

#include <httplib.h>

#include <fmt/format.h>

namespace cgmem::exporter {

Result<std::string> http_get(const std::string& base_url, const std::string& path_and_query,
                             std::chrono::seconds timeout, size_t max_bytes) {
  httplib::Client client(base_url);
  if (!client.is_valid()) return fail(fmt::format("'{}' is not an http:// or https:// URL", base_url));
  client.set_connection_timeout(timeout);
  client.set_read_timeout(timeout);
  client.set_write_timeout(timeout);
  std::string body;
  bool too_large = false;
  auto res = client.Get(path_and_query, [&](const char* data, size_t n) {
    if (body.size() + n > max_bytes) {
      too_large = true;
      return false;
    }
    body.append(data, n);
    return true;
  });
  if (too_large) return fail(fmt::format("GET {}: the answer is over {} bytes", base_url, max_bytes));
  if (!res) return fail(fmt::format("GET {}: {}", base_url, httplib::to_string(res.error())));
  if (res->status != 200)
    return fail(fmt::format("GET {}: HTTP {}: {}", base_url, res->status, body.substr(0, 200)));
  return body;
}

}  // namespace cgmem::exporter
