#include "trace/kallsyms.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "common/file.h"
#include "common/text.h"

namespace cgmem::trace {

// "ffffffff812a3b40 T try_charge_memcg" (and "[module]" after a module's):
// the text symbols only (t, T).
void Kallsyms::load() {
  if (loaded_) return;
  loaded_ = true;
  auto text = read_file(path_, "the kernel's symbol table", uint64_t{64} << 20);
  if (!text) return;
  std::string_view rest = *text;
  while (!rest.empty()) {
    std::string_view line = next_line(rest);
    std::string_view address = next_word(line), type = next_word(line), name = next_word(line);
    if ((type != "t" && type != "T") || name.empty()) continue;
    uint64_t value = 0;
    auto [end, ec] = std::from_chars(address.data(), address.data() + address.size(), value, 16);
    if (ec != std::errc() || end != address.data() + address.size() || value == 0) continue;
    text_.emplace_back(value, std::string(name));
  }
  std::ranges::sort(text_);
}

std::string Kallsyms::name(uint64_t address) {
  if (!loaded_) load();
  auto above = std::ranges::upper_bound(text_, address, {}, &std::pair<uint64_t, std::string>::first);
  if (above == text_.begin()) return fmt::format("{:#x}", address);
  return std::prev(above)->second;
}

}  // namespace cgmem::trace
