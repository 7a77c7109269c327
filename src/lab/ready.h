// When a --command run's program is ready for its load generator.
#pragma once

#include <cstdint>

namespace cgmem::lab {

// Whether a TCP connect to 127.0.0.1:PORT succeeds now (the connection is
// closed at once). A refused or failed connect is "not yet".
bool tcp_port_accepts(uint16_t port);

}  // namespace cgmem::lab
