// What a manager writes: one cgroup file, one value, the rule that chose it.
//
// Every manager module is a pure function from its settings to a
// Translation. Nothing here touches a cgroup: the values are what the
// manager (or the runtime below it) would write, as the files read back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/size.h"
#include "model/page_counter.h"

namespace cgmem::managers {

struct Assignment {
  std::string scope;  // whose cgroup: "unit", "container app", "pod", "job"...
  std::string file;   // "memory.high"
  Limit value = Limit::max();
  bool flag = false;  // a 0/1 file (memory.oom.group): value is 0 or 1
  bool set = true;    // false: the manager leaves the file at the kernel default
  std::string rule;   // the rule, in words, with the arithmetic
  std::string source; // repository file and function the rule comes from
  std::vector<std::string> caveats;
};

struct Translation {
  std::string manager;                  // "systemd", "kubelet 1.36", ...
  std::vector<Assignment> assignments;  // in the order the manager writes them
  std::vector<std::string> notes;       // caveats about the whole input
  // The host's swap as the manager's own input gives it (the kubelet's node
  // swap): the verdict's host swap when the user gives none.
  std::optional<uint64_t> host_swap;
};

using model::page_rounded;  // what the kernel keeps of a value written (model/page_counter.h)

// Sets a.value to what the kernel keeps of `written` and adds a caveat with
// the written value when the two differ. Returns a.
Assignment& with_value(Assignment& a, Limit written, uint64_t page_size);

// Appends an assignment and returns it for further edits.
Assignment& add(Translation& out, Assignment assignment);

// The assignment for this scope and file, or nullptr.
const Assignment* find(const Translation& translation, std::string_view scope,
                       std::string_view file);

// The distinct scopes in first-seen order.
std::vector<std::string> scopes(const Translation& translation);

}  // namespace cgmem::managers
