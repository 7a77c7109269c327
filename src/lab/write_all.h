// write(2) of a whole buffer, retried on EINTR and short writes. A line
// written with one call to an O_APPEND file lands whole (docs/run-format.md).
#pragma once

#include <string_view>

#include "common/error.h"

namespace cgmem::lab {

Result<void> write_all(int fd, std::string_view data);

}  // namespace cgmem::lab
