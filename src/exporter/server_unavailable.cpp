// The exporter's server in cgmem-static: none. Debian's cpp-httplib is a
// shared library only (libcpp-httplib.so), so the fully static cgmem the VM
// guest runs links this instead of server.cpp and http_get.cpp; `cgmem
// exporter --once` works.
#include "exporter/http_get.h"
#include "exporter/server.h"

namespace cgmem::exporter {

bool has_http_server() { return false; }

struct Server::Impl {};

Result<std::unique_ptr<Server>> Server::bind(Collector&, ServerOptions) {
  return fail("serve /metrics: this cgmem has no HTTP server (cgmem-static)");
}

Result<std::string> http_get(const std::string&, const std::string&, std::chrono::seconds, size_t) {
  return fail("GET: this cgmem has no HTTP client (cgmem-static)");
}

Server::~Server() = default;
void Server::serve() {}
void Server::stop() {}

}  // namespace cgmem::exporter
