#include "lab/write_all.h"

#include <unistd.h>

namespace cgmem::lab {

Result<void> write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sys_error("write a line");
    data.remove_prefix(static_cast<size_t>(n));
  }
  return {};
}

}  // namespace cgmem::lab
