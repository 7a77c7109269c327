// systemd: MemoryMin/Low/High/Max/SwapMax/ZSwapMax= and OOMPolicy= of a
// service, scope or slice, to the files systemd writes on cgroup v2.
//
// The rules (systemd/systemd):
//   - config_parse_memory_limit() in src/core/load-fragment.c reads each
//     value: empty resets (0 for MemoryMin/Low, infinity for the others),
//     "infinity" is max, "N%" (or ‰, ‱) is a share of physical RAM, else
//     parse_size(value, 1024) from src/basic/parse-util.c. 0 is out of range
//     for MemoryHigh= and MemoryMax=: a unit file's line is ignored;
//     systemd-run -p is refused by the manager ("Value specified in
//     MemoryHigh is out of range", seen with Debian's systemd 252).
//   - physical_memory_scale() in src/basic/limits-util.c turns a share into
//     bytes: floor(pages x permyriad / 10000) x page size; 100% is all RAM.
//   - cgroup_context_apply() in src/core/cgroup.c writes memory.min, .low,
//     .high, .max, .swap.max, .zswap.max and memory.oom.group.
//   - service_add_extras() / scope_add_extras() set memory.oom.group from
//     OOMPolicy=kill; the default OOMPolicy is stop (continue with
//     Delegate=yes), so the group flag is 0 unless OOMPolicy=kill.
//   - MemoryZSwapMax= came in systemd 253 (systemd.resource-control(5)):
//     systemd 252, Debian 12's, refuses it as an unknown assignment.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "managers/assignment.h"

namespace cgmem::managers {

struct SystemdProperty {
  std::string name;    // "MemoryHigh"
  std::string value;   // "241590272"
  std::string origin;  // "app.service:7" or "-p"
};

struct SystemdUnit {
  std::string type = "service";  // service, scope, slice, socket, mount, swap
  // The section the type comes from: "Service", "Scope", ...
  std::string type_section() const {
    std::string s = type;
    if (!s.empty()) s[0] = static_cast<char>(s[0] - 'a' + 'A');
    return s;
  }
  std::vector<SystemdProperty> properties;  // in file order, later ones win
  std::vector<std::string> notes;           // lines systemd would ignore
};

struct SystemdInput {
  SystemdUnit unit;
  std::optional<uint64_t> ram;  // physical RAM, for percentages
  uint64_t page_size = 4096;
  std::optional<unsigned> version;  // systemd's release (252); unset: the newest rules
};

// The release `systemd --version` prints on its first line ("systemd 252
// (252.38-1~deb12u1)"), or the number alone ("252", "252.38").
Result<unsigned> parse_systemd_version(std::string_view text);

// parse_size(text, 1024): "256M", "1.5G", "1G 512M", "241590272", "+5M"
// (strtoull() takes one '+'). Rejects lower-case suffixes, a trailing B
// after a letter ("1GB"), a leading '-'.
Result<uint64_t> parse_systemd_size(std::string_view text);

// A share written as "3%", "2.55%", "25‰" or "300‱", in permyriad
// (0..10000); nullopt when the text is not a share at all.
std::optional<int64_t> parse_permyriad(std::string_view text);

// A unit file's text: [Service]/[Scope]/[Slice]... sections, Name=Value
// lines, comments, backslash continuations. `name` labels the origins.
Result<SystemdUnit> parse_unit_file(std::string_view text, std::string_view name);

// "-p Name=Value", as systemd-run takes it.
Result<SystemdProperty> parse_property_assignment(std::string_view text);

// Whether a property is a share of RAM ("3%"), so the RAM must be known.
bool needs_ram(const SystemdUnit& unit);

Result<Translation> translate_systemd(const SystemdInput& input);

}  // namespace cgmem::managers
