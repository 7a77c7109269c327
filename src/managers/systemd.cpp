#include "managers/systemd.h"

#include <fmt/format.h>

#include <map>

#include "common/text.h"

namespace cgmem::managers {
namespace {

constexpr const char* kParseSource =
    "systemd/systemd src/core/load-fragment.c config_parse_memory_limit(); "
    "src/basic/parse-util.c parse_size()";
constexpr const char* kScaleSource = "systemd/systemd src/basic/limits-util.c physical_memory_scale()";
constexpr const char* kApplySource = "systemd/systemd src/core/cgroup.c cgroup_context_apply()";
constexpr const char* kSizeHint =
    "systemd takes bytes or K, M, G, T, P, E (base 1024, upper case, no trailing B), "
    "a percentage of RAM, or infinity; systemd itself would log the error and ignore the line";

struct Property {
  std::string_view name;
  std::string_view file;
  bool zero_allowed;   // MemoryMin/Low/SwapMax/ZSwapMax take 0; High/Max do not
  bool empty_is_zero;  // an empty value resets to 0 (else to infinity)
  unsigned since = 0;  // the first systemd release that knows it (0: all this models)
};

constexpr Property kProperties[] = {
    {"MemoryMin", "memory.min", true, true},
    {"MemoryLow", "memory.low", true, true},
    {"MemoryHigh", "memory.high", false, false},
    {"MemoryMax", "memory.max", false, false},
    {"MemorySwapMax", "memory.swap.max", true, false},
    {"MemoryZSwapMax", "memory.zswap.max", true, false, 253},
};

// Names systemd knows that mention memory or OOM (src/shared/bus-unit-util.c
// bus_append_cgroup_property() and friends; src/core/load-fragment-gperf.gperf.in),
// besides the six above. cgmem models none of them; anything else that says
// "Memory" is a typo systemd refuses.
constexpr std::string_view kOtherMemoryNames[] = {
    "MemoryAccounting", "MemoryLimit", "MemoryZSwapWriteback", "MemoryPressureWatch",
    "MemoryPressureThresholdSec", "MemoryDenyWriteExecute", "MemoryKSM", "StartupMemoryLow",
    "StartupMemoryHigh", "StartupMemoryMax", "StartupMemorySwapMax", "StartupMemoryZSwapMax",
    "DefaultMemoryLow", "DefaultMemoryMin", "DefaultStartupMemoryLow", "AllowedMemoryNodes",
    "StartupAllowedMemoryNodes", "ManagedOOMMemoryPressure", "ManagedOOMMemoryPressureLimit",
    "ManagedOOMMemoryPressureDurationSec", "ManagedOOMSwap", "ManagedOOMPreference", "OOMPolicy",
    "OOMScoreAdjust", "Delegate"};

// False for a name systemd does not know: only names that mention memory or
// OOM are checked (cgmem does not carry systemd's whole property table).
bool systemd_knows(std::string_view name) {
  for (auto n : kOtherMemoryNames)
    if (n == name) return true;
  bool memoryish = name.find("Memory") != std::string_view::npos || name.find("OOM") != std::string_view::npos;
  return !memoryish;
}

const Property* property(std::string_view name) {
  for (const auto& p : kProperties)
    if (p.name == name) return &p;
  return nullptr;
}

// A property this systemd release does not know yet.
bool too_new(const Property& p, std::optional<unsigned> version) { return version && *version < p.since; }

// What a value means, as config_parse_memory_limit() reads it. nullopt:
// systemd ignores the line (the note says why).
struct Parsed {
  std::optional<Limit> value;
  std::string rule;
  std::string source = kParseSource;
  std::string note;
};

Result<Parsed> parse_value(const Property& p, const SystemdProperty& prop,
                           const SystemdInput& in) {
  const std::string& v = prop.value;
  if (v.empty())
    return Parsed{p.empty_is_zero ? Limit::of(0) : Limit::max(),
                  fmt::format("{}= (empty) resets to {}", p.name, p.empty_is_zero ? "0" : "infinity")};
  if (v == "infinity") return Parsed{Limit::max(), fmt::format("{}=infinity: max", p.name)};
  Parsed out;
  uint64_t bytes = 0;
  if (auto share = parse_permyriad(v)) {
    if (*share < 0)
      return fail(fmt::format("{}={} is not a percentage systemd accepts", p.name, v), {},
                  "0% to 100% with at most two decimals (or ‰, ‱)");
    if (!in.ram)
      return fail(fmt::format("{}={} is a share of physical RAM", p.name, v), {},
                  "say whose RAM with --ram BYTES");
    uint64_t pages = *in.ram / in.page_size;
    bytes = *share == 10000 ? pages * in.page_size
                            : static_cast<uint64_t>(static_cast<unsigned __int128>(pages) *
                                                    static_cast<uint64_t>(*share) / 10000) *
                                  in.page_size;
    out.rule = fmt::format("{}={}: floor({} pages x {} / 10000) x {} of {} bytes of RAM", p.name, v,
                           pages, *share, in.page_size, *in.ram);
    out.source = kScaleSource;
  } else {
    auto size = parse_systemd_size(v);
    if (!size) {
      std::string why = size.error().what == "a size cannot be negative"
                            ? "a size cannot be negative"
                            : "not a size systemd accepts";
      return fail(fmt::format("{}={}: {}", p.name, v, why), {}, kSizeHint);
    }
    bytes = *size;
    out.rule = fmt::format("{}={}: {} bytes (parse_size, base 1024)", p.name, v, bytes);
  }
  if (bytes == 0 && !p.zero_allowed && prop.origin == "-p")
    return fail(fmt::format("Value specified in {} is out of range", p.name), {},
                "systemd-run -p is refused by the manager; 0 is only for MemoryMin/Low/SwapMax/ZSwapMax");
  if (bytes == UINT64_MAX || (bytes == 0 && !p.zero_allowed)) {
    out.note = fmt::format("{}: {}={} is out of range (0 is only for MemoryMin/Low/SwapMax/"
                           "ZSwapMax): systemd ignores this line",
                           prop.origin, p.name, v);
    return out;
  }
  out.value = Limit::of(bytes);
  return out;
}

void apply_oom_policy(Translation& out, const std::map<std::string, std::string>& last,
                      const std::string& type) {
  Assignment a{.scope = "unit", .file = "memory.oom.group", .value = Limit::of(0), .flag = true,
               .source = "systemd/systemd src/core/service.c service_add_extras(), "
                         "src/core/scope.c scope_add_extras()"};
  auto policy = last.find("OOMPolicy");
  auto delegate = last.find("Delegate");
  bool delegated = delegate != last.end() && (delegate->second == "yes" || delegate->second == "true" ||
                                              delegate->second == "1" || delegate->second == "on");
  if (type != "service" && type != "scope") {
    a.rule = fmt::format("a {} has no OOMPolicy=: systemd never sets the group flag", type);
  } else if (policy != last.end() && policy->second == "kill") {
    a.value = Limit::of(1);
    a.rule = "OOMPolicy=kill: the kernel kills the whole unit on an OOM kill";
  } else if (policy != last.end()) {
    a.rule = fmt::format("OOMPolicy={}: only kill sets the group flag", policy->second);
  } else {
    a.rule = fmt::format("OOMPolicy= not set: the default is {} (DefaultOOMPolicy=), not kill",
                         delegated ? "continue (Delegate=yes)" : "stop");
  }
  add(out, std::move(a));
}

}  // namespace

Result<unsigned> parse_systemd_version(std::string_view text) {
  std::string_view rest = text;
  if (rest.starts_with("systemd ")) rest.remove_prefix(8);
  size_t digits = 0;
  while (digits < rest.size() && digits < 4 && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
  auto value = to_u64(rest.substr(0, digits));
  rest.remove_prefix(digits);
  // What follows the release: a point release (".38") or the package's
  // version in parentheses (" (252.38-1~deb12u1)").
  if (!value || (!rest.empty() && rest[0] != '.' && rest[0] != ' ' && rest[0] != '~' && rest[0] != '-'))
    return fail(fmt::format("systemd version {:?}: not a release number", text), {},
                "e.g. 252, or the first line of `systemd --version`");
  return static_cast<unsigned>(*value);
}

bool needs_ram(const SystemdUnit& unit) {
  for (const auto& p : unit.properties)
    if (parse_permyriad(p.value)) return true;
  return false;
}

Result<Translation> translate_systemd(const SystemdInput& in) {
  Translation out{.manager = "systemd", .notes = in.unit.notes};
  std::map<std::string, Parsed> chosen;           // property name -> last valid value
  std::map<std::string, std::string> last;        // other properties, last value
  std::map<std::string, std::string> chosen_from; // property name -> origin
  for (const auto& prop : in.unit.properties) {
    const Property* known = property(prop.name);
    if (known && too_new(*known, in.version)) {
      std::string why = fmt::format("systemd {} does not know {}= (it came in {})", *in.version, prop.name,
                                    known->since);
      if (prop.origin == "-p") return fail(fmt::format("Unknown assignment: {}={}", prop.name, prop.value), {}, why);
      out.notes.push_back(fmt::format("{}: Unknown key name '{}' in section '{}', ignoring ({})", prop.origin,
                                      prop.name, in.unit.type_section(), why));
    } else if (const Property* p = known) {
      auto parsed = parse_value(*p, prop, in);
      if (!parsed) {
        parsed.error().what = prop.origin == "-p" ? parsed.error().what
                                                  : prop.origin + ": " + parsed.error().what;
        return std::unexpected(parsed.error());
      }
      if (!parsed->value) {
        out.notes.push_back(parsed->note);
        continue;
      }
      chosen[prop.name] = *parsed;
      chosen_from[prop.name] = prop.origin;
    } else if (prop.name == "OOMPolicy" || prop.name == "Delegate") {
      last[prop.name] = prop.value;
    } else if (!systemd_knows(prop.name)) {
      // systemd-run: bus_append_unit_property_assignment(); a unit file:
      // config_parse() logs and ignores the line.
      if (prop.origin == "-p")
        return fail(fmt::format("Unknown assignment: {}={}", prop.name, prop.value), {},
                    "systemd-run refuses it; check the property name (systemd.resource-control(5))");
      out.notes.push_back(fmt::format("{}: Unknown key name '{}' in section '{}', ignoring (as systemd does)",
                                      prop.origin, prop.name, in.unit.type_section()));
    } else if (prop.name.find("Memory") != std::string::npos || prop.name.find("OOM") != std::string::npos) {
      out.notes.push_back(fmt::format("{}: {}= is not modelled by cgmem translate", prop.origin,
                                      prop.name));
    } else if (prop.origin == "-p") {
      out.notes.push_back(fmt::format("-p {}=: not a memory property; cgmem does not check that systemd knows it",
                                      prop.name));
    }
  }
  for (const auto& p : kProperties) {
    Assignment a{.scope = "unit", .file = std::string(p.file), .source = kApplySource};
    auto it = chosen.find(std::string(p.name));
    if (it == chosen.end()) {
      a.set = false;
      a.value = p.empty_is_zero ? Limit::of(0) : Limit::max();
      a.rule = fmt::format("{}= not set: the kernel default", p.name);
    } else {
      const Limit written = *it->second.value;
      a.value = page_rounded(written, in.page_size);
      a.rule = it->second.rule;
      a.source = it->second.source + "; " + kApplySource;
      if (a.value.is_max() && !written.is_max())
        a.caveats.push_back(fmt::format("systemd writes {}; at or above the kernel's page-counter maximum "
                                        "(mm/page_counter.c), it reads back as max", written.bytes()));
      else if (a.value != written)
        a.caveats.push_back(fmt::format("systemd writes {}; the kernel keeps whole pages", written.bytes()));
    }
    add(out, std::move(a));
  }
  apply_oom_policy(out, last, in.unit.type);
  return out;
}

}  // namespace cgmem::managers
