#include "report/swap_setting.h"

#include <fmt/format.h>

#include "common/size.h"

namespace cgmem::report {

namespace {

constexpr char kNone[] = "none";

std::string setting_words(const HostSwap& s) {
  const std::string& setting = *s.setting;
  std::string size = s.total_bytes ? " " + format_bytes(*s.total_bytes) : "";
  if (setting == kNone) return "no swap";
  if (setting == "disk" || setting == "zram") return fmt::format("{} swap{}", setting, size);
  if (setting == "zram+disk") return fmt::format("zram and disk swap{}", size);
  if (setting == "zswap") {
    std::string how;
    if (s.zswap && (!s.zswap->compressor.empty() || !s.zswap->zpool.empty()))
      how = s.zswap->zpool.empty() || s.zswap->compressor.empty()
                ? fmt::format(" ({}{})", s.zswap->compressor, s.zswap->zpool)
                : fmt::format(" ({}, {})", s.zswap->compressor, s.zswap->zpool);
    return fmt::format("zswap{} on disk swap{}", how, size);
  }
  return fmt::format("swap {}{}", setting, size);  // a setting this cgmem does not know, as written
}

}  // namespace

bool with_swap(const Meta& m) { return m.swap.setting && *m.swap.setting != kNone; }

bool without_swap(const Meta& m) {
  if (m.swap.setting) return *m.swap.setting == kNone;
  return m.swap.total_bytes == 0u;
}

std::string swap_text(const HostSwap& swap) {
  if (!swap.setting) return "";
  std::string out = setting_words(swap);
  if (swap.swappiness && *swap.setting != kNone) out += fmt::format(", swappiness {}", *swap.swappiness);
  return out;
}

nlohmann::json swap_json(const HostSwap& swap) {
  using nlohmann::json;
  if (!swap.setting) return nullptr;
  auto opt = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  json zswap = nullptr;
  if (swap.zswap)
    zswap = {{"enabled", swap.zswap->enabled},
             {"compressor", swap.zswap->compressor},
             {"zpool", swap.zswap->zpool},
             {"max_pool_percent", opt(swap.zswap->max_pool_percent)},
             {"accept_threshold_percent", opt(swap.zswap->accept_threshold_percent)},
             {"shrinker_enabled", opt(swap.zswap->shrinker_enabled)}};
  return {{"setting", *swap.setting}, {"kind", opt(swap.kind)}, {"total_bytes", opt(swap.total_bytes)},
          {"swappiness", opt(swap.swappiness)}, {"zswap_settings", zswap}};
}

}  // namespace cgmem::report
