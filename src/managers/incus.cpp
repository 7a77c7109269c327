#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <fmt/format.h>

#include "common/text.h"
#include "managers/incus.h"

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
  auto parsed = to_i64(number);  // digits only, so empty or too large is all it can fail on
  if (!parsed) return bad();
  int64_t value = *parsed;
  static const std::pair<std::string_view, int64_t> kUnits[] = {
      {"", 1}, {"B", 1}, {" bytes", 1}, {"kB", 1000}, {"MB", 1000000}, {"GB", 1000000000},
      {"TB", 1000000000000}, {"PB", 1000000000000000}, {"EB", 1000000000000000000},
      {"KiB", 1LL << 10}, {"MiB", 1LL << 20}, {"GiB", 1LL << 30}, {"TiB", 1LL << 40},
      {"PiB", 1LL << 50}, {"EiB", 1LL << 60}};
  for (auto [unit, factor] : kUnits)
    if (suffix == unit) {
      if (factor > 1 && value > 1 && value > INT64_MAX / factor)  // handleOverflow()
        return fail(fmt::format("Overflow multiplying {} with {}", value, factor));
      return value * factor;
    }
  return bad();
}

namespace {

bool one_of(std::string v, std::initializer_list<std::string_view> words) {
  for (auto& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (auto w : words)
    if (v == w) return true;
  return false;
}

// initLXC(): in hard mode, limits.memory.swap empty, true or false (any of
// util.IsTrueOrEmpty()/IsFalse()'s words) writes memory.swap.max 0; a size
// is "additional memory as swap" and is written as it is. Soft mode writes
// nothing.
Result<Assignment> swap_row(const IncusInput& in, uint64_t page_size) {
  Assignment a{.scope = "instance", .file = "memory.swap.max",
               .source = "lxc/incus internal/server/instance/drivers/driver_lxc.go initLXC(); "
                         "internal/server/cgroup/abstraction.go SetMemorySwapLimit()"};
  const std::string& swap = in.limits_memory_swap;
  if (in.enforce == IncusEnforce::Soft) {
    a.set = false, a.rule = "enforce=soft: not written (max)";
  } else if (swap.empty() || one_of(swap, {"true", "1", "yes", "on", "false", "0", "no", "off"})) {
    a.value = Limit::of(0);
    a.rule = fmt::format("enforce=hard, limits.memory.swap={}: 0", swap.empty() ? "(unset)" : swap);
  } else {
    auto bytes = parse_incus_size(swap);
    if (!bytes) {
      bytes.error().what = "limits.memory.swap: " + bytes.error().what;
      return std::unexpected(bytes.error());
    }
    with_value(a, Limit::of(static_cast<uint64_t>(*bytes)), page_size);
    a.rule = fmt::format("enforce=hard, limits.memory.swap={}: {} bytes of swap", swap, *bytes);
  }
  return a;
}

}  // namespace

Result<Translation> translate_incus(const IncusInput& in, uint64_t page_size) {
  int64_t bytes = 0;
  std::string how;
  if (in.limits_memory.ends_with('%')) {
    std::string_view n(in.limits_memory.data(), in.limits_memory.size() - 1);
    if (n.size() > 1 && n[0] == '+') n.remove_prefix(1);  // strconv.ParseInt takes a '+' 
    auto whole = to_i64(n);
    if (!whole || *whole < 0) return fail(fmt::format("limits.memory={}: not a whole percentage", in.limits_memory));
    int64_t percent = *whole;
    if (!in.ram) return fail(fmt::format("limits.memory={} is a share of the host's RAM", in.limits_memory),
                             {}, "say whose RAM with --ram BYTES");
    const auto hundredth = static_cast<int64_t>(std::min<uint64_t>(*in.ram / 100, INT64_MAX));
    if (percent > 0 && hundredth > INT64_MAX / percent)
      return fail(fmt::format("limits.memory={}: (RAM / 100) x {} overflows a 64-bit byte count",
                              in.limits_memory, percent));
    bytes = hundredth * percent;
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
  bool soft = in.enforce == IncusEnforce::Soft;
  with_value(add(out, {.scope = "instance", .file = "memory.max", .set = !soft,
            .rule = soft ? "enforce=soft: no hard limit"
                         : fmt::format("limits.memory={}: {} (SetMemoryLimit)", in.limits_memory, how),
            .source = source}), soft ? Limit::max() : value, page_size);
  with_value(add(out, {.scope = "instance", .file = "memory.high", .set = soft,
            .rule = soft ? fmt::format("enforce=soft: limits.memory={}: {} (SetMemorySoftLimit)",
                                       in.limits_memory, how)
                         : "enforce=hard: not written",
            .source = source}), soft ? value : Limit::max(), page_size);
  auto swap = swap_row(in, page_size);
  if (!swap) return std::unexpected(swap.error());
  add(out, std::move(*swap));
  if (!soft)
    out.notes.push_back("older LXD and Incus releases also set a soft limit of 90% of limits.memory "
                        "in hard mode, which cgroup v2 hosts got as memory.high; read the "
                        "instance's memory.high to be sure");
  else
    out.notes.push_back("enforce=soft: memory.high without memory.max: the kernel throttles the "
                        "instance above limits.memory and never OOM-kills it for that");
  return out;
}

}  // namespace cgmem::managers
