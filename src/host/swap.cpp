#include "host/swap.h"

#include "cgroup/reader.h"
#include "common/text.h"

namespace cgmem::host {

namespace {

std::optional<std::string> parameter(const std::string& dir, const char* name) {
  auto text = cgroup::read_text(dir + "/" + name);
  if (!text) return std::nullopt;
  return std::string(trim(*text));
}

std::optional<unsigned> number(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  auto value = to_u64(*text);
  if (!value || *value > 100000) return std::nullopt;
  return static_cast<unsigned>(*value);
}

std::optional<bool> yes_no(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  if (*text == "Y" || *text == "1") return true;
  if (*text == "N" || *text == "0") return false;
  return std::nullopt;
}

}  // namespace

std::string swap_kind_of(const std::vector<SwapDevice>& swaps) {
  bool zram = false, disk = false;
  for (const auto& swap : swaps) (swap.name.starts_with("/dev/zram") ? zram : disk) = true;
  if (zram && disk) return "zram+disk";
  return zram ? "zram" : disk ? "disk" : "none";
}

std::string swap_setting_of(const std::string& kind, const std::optional<ZswapSettings>& zswap) {
  if (zswap && zswap->enabled && (kind == "disk" || kind == "zram+disk")) return "zswap";
  return kind;
}

void probe_swap(const HostRoots& roots, HostFacts& facts) {
  const std::string dir = roots.sys + "/module/zswap/parameters";
  if (auto enabled = yes_no(parameter(dir, "enabled"))) {
    ZswapSettings z{.enabled = *enabled,
                    .compressor = parameter(dir, "compressor").value_or(""),
                    .zpool = parameter(dir, "zpool").value_or(""),
                    .max_pool_percent = number(parameter(dir, "max_pool_percent")),
                    .accept_threshold_percent = number(parameter(dir, "accept_threshold_percent")),
                    .shrinker_enabled = yes_no(parameter(dir, "shrinker_enabled"))};
    facts.zswap_settings = z;
  }
  facts.swappiness = number(parameter(roots.proc + "/sys/vm", "swappiness"));
  facts.swap_kind = swap_kind_of(facts.swaps);
  facts.swap_setting = swap_setting_of(facts.swap_kind, facts.zswap_settings);
}

}  // namespace cgmem::host
