#include "model/kernel_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>

namespace cgmem::model {

namespace {

// A decimal number at the front of text; advances it. nullopt if none.
std::optional<uint32_t> leading_number(std::string_view& text) {
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  text.remove_prefix(static_cast<size_t>(end - text.data()));
  return v;
}

// One text per slot count, so a forecast can point at it without allocating.
constexpr std::array<std::string_view, kMaxStockSlots + 1> kPerPageRule = {
    "per page when any other cgroup charges on this CPU",
    "per page when any other cgroup charges on this CPU",
    "per page needs 2 or more other cgroups charging on this CPU",
    "per page needs 3 or more other cgroups charging on this CPU",
    "per page needs 4 or more other cgroups charging on this CPU",
    "per page needs 5 or more other cgroups charging on this CPU",
    "per page needs 6 or more other cgroups charging on this CPU",
    "per page needs 7 or more other cgroups charging on this CPU",
};

}  // namespace

std::optional<KernelVersion> parse_kernel_version(std::string_view release) {
  auto major = leading_number(release);
  if (!major || release.empty() || release.front() != '.') return std::nullopt;
  release.remove_prefix(1);
  auto minor = leading_number(release);
  if (!minor) return std::nullopt;
  return KernelVersion{*major, *minor};
}

std::optional<uint32_t> version_stock_slots(std::string_view release) {
  auto version = parse_kernel_version(release);
  if (!version) return std::nullopt;
  return *version >= kMultiStock ? kMaxStockSlots : kMinStockSlots;
}

std::string version_text(KernelVersion v) { return fmt::format("{}.{}", v.major, v.minor); }

std::string_view KernelRules::per_page_rule() const {
  return kPerPageRule[std::clamp(stock_slots, kMinStockSlots, kMaxStockSlots)];
}

std::vector<std::string> KernelRules::names() const {
  std::vector<std::string> out = {fmt::format("stock_slots_{}", stock_slots),
                                  fmt::format("charge_batch_{}", charge_batch),
                                  fmt::format("high_events_per_sleep_{}", high_events_per_sleep)};
  if (dying_tasks_not_throttled) out.emplace_back("dying_tasks_not_throttled");
  if (nonblocking_limit_write) out.emplace_back("nonblocking_limit_write");
  return out;
}

KernelRules rules_for(KernelVersion v, std::optional<uint32_t> stock_slots) {
  KernelRules r{.version = v};
  r.stock_slots = v >= kMultiStock ? kMaxStockSlots : 1;
  if (stock_slots) {
    r.stock_slots = std::clamp(*stock_slots, kMinStockSlots, kMaxStockSlots);
    r.stock_slots_overridden = true;
  }
  r.charge_batch = v >= kBatch64 ? 64 : 32;
  r.dying_tasks_not_throttled = v >= kDyingNotThrottled;
  r.nonblocking_limit_write = v >= kNonblockingLimits;
  return r;
}

}  // namespace cgmem::model
