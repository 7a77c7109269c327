#include "host/rules.h"

#include <charconv>

#include "cgroup/reader.h"
#include "common/text.h"

namespace cgmem::host {

std::optional<uint32_t> parse_stock_slots(std::string_view text) {
  text = trim(text);
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (v < model::kMinStockSlots || v > model::kMaxStockSlots) return std::nullopt;
  return v;
}

std::optional<uint32_t> read_stock_slots(const std::string& sys_root) {
  auto text = cgroup::read_text(sys_root + "/module/memcontrol/parameters/stock_slots", 64);
  if (!text) return std::nullopt;
  return parse_stock_slots(*text);
}

model::KernelRules kernel_rules(std::string_view release, std::optional<uint32_t> stock_slots) {
  auto version = model::parse_kernel_version(release);
  return model::rules_for(version.value_or(model::default_rules().version), stock_slots);
}

model::KernelRules host_kernel_rules(const HostRoots& roots) {
  auto release = cgroup::read_text(roots.proc + "/sys/kernel/osrelease", 256);
  return kernel_rules(release ? trim(*release) : std::string_view(), read_stock_slots(roots.sys));
}

}  // namespace cgmem::host
