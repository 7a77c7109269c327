#include "proc/wchan.h"

#include "cgroup/text.h"

namespace cgmem::proc {

std::string_view parse_wchan(std::string_view text) noexcept {
  std::string_view name = cgroup::trim(text);
  return name == "0" ? std::string_view() : name;
}

}  // namespace cgmem::proc
