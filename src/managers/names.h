// The names a manager's configuration spells its enum settings with, as
// tables of (name, value): the CLI parses a flag through the table
// (cli/app.h one_of_names) and the translation prints a value by it.
#pragma once

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

namespace cgmem::managers {

template <class E, size_t N>
using NameTable = std::array<std::pair<std::string_view, E>, N>;

// The name of `value` in `names`; "?" when the table misses it.
template <class E, size_t N>
std::string_view name_in(const NameTable<E, N>& names, E value) {
  auto it = std::find_if(names.begin(), names.end(), [value](const auto& n) { return n.second == value; });
  return it == names.end() ? std::string_view("?") : it->first;
}

}  // namespace cgmem::managers
