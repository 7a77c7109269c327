#include <charconv>

#include "exporter/server.h"

namespace cgmem::exporter {

Result<Listen> parse_listen(std::string_view text) {
  auto bad = [&](std::string why) {
    return fail("--listen '" + std::string(text) + "': " + why, "",
                "give HOST:PORT, e.g. 127.0.0.1:9262, [::1]:9262, or 0.0.0.0:9262 for every address");
  };
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return bad("no port");
  std::string_view host = text.substr(0, colon), port = text.substr(colon + 1);
  if (host.starts_with('[')) {
    if (!host.ends_with(']')) return bad("an IPv6 address needs its closing ]");
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return bad("put an IPv6 address in brackets");
  }
  if (host.empty()) return bad("no host");
  int number = -1;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), number);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || number < 0 || number > 65535)
    return bad("the port is not a number from 0 to 65535");
  return Listen{.host = std::string(host), .port = number};
}

}  // namespace cgmem::exporter
