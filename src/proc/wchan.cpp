#include "proc/wchan.h"

#include "common/text.h"

namespace cgmem::proc {

std::string_view parse_wchan(std::string_view text) noexcept {
  std::string_view name = trim(text);
  return name == "0" ? std::string_view() : name;
}

}  // namespace cgmem::proc
