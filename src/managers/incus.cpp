#include <charconv>
#include <fmt/format.h>

#include "managers/others.h"

namespace cgmem::managers {

Result<int64_t> parse_incus_size(std::string_view text) {
  // units.ParseByteSizeString: digits, then one of the suffixes below.
  size_t i = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
  std::string_view number = text.substr(0, i), suffix = text.substr(i);
  auto bad = [&] {
    return fail(fmt::format("Invalid value: {}", text), {},
                "Incus sizes: bytes, kB/MB/GB/TB/PB/EB (base 1000) or KiB/MiB/GiB/TiB/PiB/EiB, or N%");
  };
  if (number.empty()) return bad();
  int64_t value = 0;
  auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc()) return bad();
  static const std::pair<std::string_view, int64_t> kUnits[] = {
      {"", 1}, {"B", 1}, {" bytes", 1}, {"kB", 1000}, {"MB", 1000000}, {"GB", 1000000000},
      {"TB", 1000000000000}, {"PB", 1000000000000000}, {"EB", 1000000000000000000},
      {"KiB", 1LL << 10}, {"MiB", 1LL << 20}, {"GiB", 1LL << 30}, {"TiB", 1LL << 40},
      {"PiB", 1LL << 50}, {"EiB", 1LL << 60}};
  for (auto [unit, factor] : kUnits)
    if (suffix == unit) {
      if (value > INT64_MAX / factor) return bad();
      return value * factor;
    }
  return bad();
}

Result<Translation> translate_incus(const IncusInput& in, uint64_t page_size) {
  if (in.enforce != "hard" && in.enforce != "soft")
    return fail(fmt::format("limits.memory.enforce={}: must be hard or soft", in.enforce));
  int64_t bytes = 0;
  std::string how;
  if (in.limits_memory.ends_with('%')) {
    std::string_view n(in.limits_memory.data(), in.limits_memory.size() - 1);
    int64_t percent = 0;
    auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), percent);
    if (ec != std::errc() || p != n.data() + n.size() || n.empty() || percent < 0)
      return fail(fmt::format("limits.memory={}: not a whole percentage", in.limits_memory));
    if (!in.ram) return fail(fmt::format("limits.memory={} is a share of the host's RAM", in.limits_memory),
                             {}, "say whose RAM with --ram BYTES");
    bytes = static_cast<int64_t>(*in.ram / 100) * percent;
    how = fmt::format("(RAM {} / 100) x {} = {}", *in.ram, percent, bytes);
  } else {
    auto v = parse_incus_size(in.limits_memory);
    if (!v) return std::unexpected(v.error());
    bytes = *v;
    how = fmt::format("{} bytes", bytes);
  }
  Translation out{.manager = "incus"};
  const char* source = "lxc/incus internal/server/instance/drivers/driver_lxc.go initLXC(); "
                       "internal/server/cgroup/abstraction.go";
  Limit value = Limit::of(static_cast<uint64_t>(bytes));
  bool soft = in.enforce == "soft";
  with_value(add(out, {.scope = "instance", .file = "memory.max", .set = !soft,
            .rule = soft ? "enforce=soft: no hard limit"
                         : fmt::format("limits.memory={}: {} (SetMemoryLimit)", in.limits_memory, how),
            .source = source}), soft ? Limit::max() : value, page_size);
  with_value(add(out, {.scope = "instance", .file = "memory.high", .set = soft,
            .rule = soft ? fmt::format("enforce=soft: limits.memory={}: {} (SetMemorySoftLimit)",
                                       in.limits_memory, how)
                         : "enforce=hard: not written",
            .source = source}), soft ? value : Limit::max(), page_size);
  if (!soft)
    out.notes.push_back("older LXD and Incus releases also set a soft limit of 90% of limits.memory "
                        "in hard mode, which cgroup v2 hosts got as memory.high; read the "
                        "instance's memory.high to be sure");
  else
    out.notes.push_back("enforce=soft: memory.high without memory.max: the kernel throttles the "
                        "instance above limits.memory and never OOM-kills it for that");
  out.notes.push_back("limits.memory.swap decides memory.swap.max; cgmem does not model it");
  return out;
}

}  // namespace cgmem::managers
