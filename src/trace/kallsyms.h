// Names a kernel text address from /proc/kallsyms (root sees the real
// addresses): the function that holds it, as %pS would print it without
// the offset. Read once, bounded: by load(), or on the first address asked.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cgmem::trace {

class Kallsyms {
 public:
  explicit Kallsyms(std::string path = "/proc/kallsyms") : path_(std::move(path)) {}
  // "try_charge_memcg"; "0x..." when the table is unreadable, hides its
  // addresses (all zero) or has no function below the address.
  std::string name(uint64_t address);
  // Reads the table now. The kernel builds /proc/kallsyms as it is read,
  // which took seconds under TCG: a tracer loads it before the run starts.
  void load();

 private:
  std::string path_;
  bool loaded_ = false;
  std::vector<std::pair<uint64_t, std::string>> text_;  // sorted by address
};

}  // namespace cgmem::trace
