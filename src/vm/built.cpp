#include "vm/built.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

#include "common/file.h"

namespace cgmem::vm {

namespace {

// A build.json is about 600 bytes.
constexpr uint64_t kMaxBuildJson = 1 << 20;

std::vector<std::string> names(const nlohmann::json& j, const char* key) {
  std::vector<std::string> out;
  if (!j.contains(key) || !j[key].is_array()) return out;
  for (const auto& item : j[key])
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

std::string text(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

bool has(const std::vector<std::string>& list, std::string_view name) {
  return std::ranges::find(list, name) != list.end();
}

// The version the kernel runs: the build's, else the release's first words.
std::string version_of(const BuiltKernel& built, const std::string& release) {
  return built.version.empty() ? release : built.version;
}

}  // namespace

BuiltKernel read_built(const std::string& image) {
  BuiltKernel built;
  std::filesystem::path path(image);
  if (path.filename() != "bzImage") return built;
  auto body = read_file((path.parent_path() / "build.json").string(), "build.json", kMaxBuildJson);
  if (!body) return built;
  auto j = nlohmann::json::parse(*body, nullptr, false);
  if (!j.is_object()) return built;
  built.found = true;
  built.name = text(j, "name");
  built.patches = names(j, "patches");
  if (!j.contains("patches") && !text(j, "patch").empty()) built.patches = {text(j, "patch")};
  built.upstream = names(j, "upstream");
  built.version = text(j, "version");
  return built;
}

bool slots_upstream(std::string_view version) {
  return model::version_stock_slots(version) == model::kMaxStockSlots;
}

std::string stock_slots_arg(int slots) { return fmt::format("memcontrol.stock_slots={}", slots); }

Result<void> check_stock_slots(int slots, const std::string& what, const BuiltKernel& built,
                               const std::string& release) {
  if (slots < kMinStockSlots || slots > kMaxStockSlots)
    return fail(fmt::format("--stock-slots {}: the charge stock has {} to {} slots per CPU", slots, kMinStockSlots,
                            kMaxStockSlots));
  std::string how = fmt::format("{}, then boot it with --kernel hz1000-throttle-slots", kBuildSlotsKernel);
  std::string hint = "build one: " + how;
  std::string version = version_of(built, release);
  if (slots_upstream(version)) {
    return fail(fmt::format("--stock-slots {}: the kernel {} is Linux {}, whose charge stock has {} slots per CPU "
                            "upstream (NR_MEMCG_STOCK), fixed: it has no memcontrol.stock_slots",
                            slots, what, version, kMaxStockSlots),
                {}, "leave --stock-slots out, or build a 6.12 kernel with the patch: " + how);
  }
  if (what.empty()) {
    return fail(fmt::format("--stock-slots {} needs a kernel with the {} patch; Debian's kernel{} has one charge "
                            "stock slot per CPU, fixed", slots, kSlotsPatch, release.empty() ? "" : " " + release),
                {}, hint);
  }
  if (!built.found) {
    return fail(fmt::format("--stock-slots {} needs a kernel with the {} patch; {} has no build.json beside it, so "
                            "it is not a kernel cgmem built with the patch", slots, kSlotsPatch, what),
                {}, hint);
  }
  if (!has(built.patches, kSlotsPatch)) {
    std::string with = built.patches.empty() ? "no patch" : fmt::format("{}", fmt::join(built.patches, ", "));
    return fail(fmt::format("--stock-slots {} needs a kernel with the {} patch; {} was built with {}", slots,
                            kSlotsPatch, what, with),
                {}, hint);
  }
  return {};
}

SlotsInEffect stock_slots_in_effect(std::optional<int> asked, const BuiltKernel& built, const std::string& release) {
  if (asked) return {*asked, "--stock-slots"};
  if (slots_upstream(version_of(built, release))) return {kMaxStockSlots, "version"};
  return {1, has(built.patches, kSlotsPatch) ? "default" : "version"};
}

}  // namespace cgmem::vm
