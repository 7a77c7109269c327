// The HTTP side of `cgmem exporter`: GET /metrics (the collector's last
// page, in the format the Accept header asks for) and GET /healthz (200
// while scans are fresh, 503 when the last one is older than three
// intervals). Built on cpp-httplib (Debian's libcpp-httplib-dev: a header
// and a shared library, so not in cgmem-static; docs/fleet.md says why
// not prometheus-cpp). No HTTP is parsed here.
//
// Bounds: connections are accepted by cgmem's own door (door.h says why):
// no worker waits for a client to send its request, each connection has
// one deadline for its whole life, and the connections open, and open from
// one address, are bounded. A fixed number of workers serve complete
// requests; the collector never waits for a scraper (collector.h).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/error.h"
#include "exporter/collector.h"

namespace cgmem::exporter {

struct Listen {
  std::string host;  // an IPv4 or IPv6 address, or a name
  int port = 0;      // 0: any free port
};

// False in cgmem-static, linked with server_unavailable.cpp: Debian's
// cpp-httplib is a shared library only, so a fully static cgmem has no server.
bool has_http_server();

// "127.0.0.1:9262", "[::1]:9262", "0.0.0.0:0". Errors name the text and the expected form.
Result<Listen> parse_listen(std::string_view text);

struct ServerOptions {
  Listen listen;
  size_t workers = 4;          // requests served at once
  size_t max_connections = 128;  // open at once (door.h: the oldest still sending its head makes room)
  size_t per_client = 16;      // open at once from one address
  int timeout_s = 10;          // a connection's whole life: request in, response out
};

class Server {
 public:
  // Binds the address (so a port in use fails here, with the address named).
  static Result<std::unique_ptr<Server>> bind(Collector& collector, ServerOptions options);
  ~Server();
  int port() const { return port_; }
  // Serves until stop() (from another thread).
  void serve();
  void stop();

 private:
  Server() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace cgmem::exporter
