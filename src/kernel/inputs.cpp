#include "kernel/inputs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>

#include "common/sha256.h"

namespace cgmem::kernel {

namespace {

struct KnownPatch {
  std::string_view name, suffix;
  std::string_view (*text)();
};

// In the order they are applied and named.
constexpr KnownPatch kPatches[] = {
    {kThrottlePatch, "-throttle", throttle_patch},
    {kSlotsPatch, "-slots", slots_patch},
    {kTracePatch, "-trace", trace_patch},
};

const KnownPatch* known(std::string_view name) {
  for (const auto& p : kPatches)
    if (p.name == name) return &p;
  return nullptr;
}

// "6.16.3-" at the start of a name: three dot-separated numbers and a dash.
std::optional<std::string> version_prefix(std::string_view& rest) {
  size_t dash = rest.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  std::string_view version = rest.substr(0, dash);
  int dots = 0;
  for (size_t i = 0; i < version.size(); ++i) {
    if (version[i] == '.') {
      if (i == 0 || version[i - 1] == '.') return std::nullopt;
      ++dots;
    } else if (version[i] < '0' || version[i] > '9') {
      return std::nullopt;
    }
  }
  if (dots != 2 || version.ends_with('.')) return std::nullopt;
  rest.remove_prefix(dash + 1);
  return std::string(version);
}

}  // namespace

Result<std::vector<std::string>> ordered_patches(const std::vector<std::string>& patches) {
  for (const auto& name : patches)
    if (!known(name)) return std::unexpected(patch_text(name).error());
  std::vector<std::string> out;
  for (const auto& p : kPatches)
    if (std::ranges::find(patches, p.name) != patches.end()) out.emplace_back(p.name);
  auto has = [&](std::string_view name) { return std::ranges::find(out, name) != out.end(); };
  if (has(kTracePatch) && !(has(kThrottlePatch) && has(kSlotsPatch)))
    return fail(fmt::format("--patch {} needs --patch {} and --patch {}", kTracePatch, kThrottlePatch, kSlotsPatch),
                {}, "its events hook into the throttle's shift and the stock slots' drains");
  return out;
}

std::string_view patch_suffix(std::string_view patch) {
  const KnownPatch* p = known(patch);
  return p ? p->suffix : std::string_view();
}

std::string kernel_name(const BuildInputs& inputs) {
  std::string name = inputs.version.empty() ? "" : inputs.version + "-";
  name += fmt::format("hz{}", inputs.hz);
  for (const auto& patch : inputs.patches) name += patch_suffix(patch);
  return name;
}

std::optional<BuildInputs> inputs_from_name(std::string_view name) {
  BuildInputs inputs;
  if (!name.starts_with("hz")) {
    auto version = version_prefix(name);
    if (!version) return std::nullopt;
    inputs.version = *version;
  }
  if (!name.starts_with("hz")) return std::nullopt;
  std::string_view rest = name.substr(2);
  // Suffixes in the order they are applied; each at most once.
  for (auto p = std::rbegin(kPatches); p != std::rend(kPatches); ++p) {
    if (rest.ends_with(p->suffix)) {
      inputs.patches.insert(inputs.patches.begin(), std::string(p->name));
      rest.remove_suffix(p->suffix.size());
    }
  }
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), inputs.hz);
  if (ec != std::errc() || end != rest.data() + rest.size()) return std::nullopt;
  if (std::ranges::find(kHzChoices, inputs.hz) == std::end(kHzChoices)) return std::nullopt;
  return inputs;
}

std::string build_command(std::string_view name) {
  auto inputs = inputs_from_name(name);
  if (!inputs) return {};
  std::string command = "cgmem kernel build";
  if (!inputs->version.empty()) command += " --source DIR";  // the tree of that version
  command += fmt::format(" --hz {}", inputs->hz);
  for (const auto& patch : inputs->patches) command += " --patch " + patch;
  return command;
}

std::string fragment(const BuildInputs& inputs) {
  return fmt::format("{}\n# Added by cgmem kernel build for {}\nCONFIG_HZ_{}=y\nCONFIG_LOCALVERSION=\"-cgmem-{}\"\n",
                     lab_config(), kernel_name(inputs), inputs.hz, kernel_name(inputs));
}

std::vector<std::string> patch_names() {
  std::vector<std::string> names;
  for (const auto& p : kPatches) names.emplace_back(p.name);
  return names;
}

Result<std::string> patch_text(std::string_view patch) {
  if (const KnownPatch* p = known(patch)) return std::string(p->text());
  return fail(fmt::format("no kernel patch named '{}'", patch), {},
              fmt::format("known patches: {}", fmt::join(patch_names(), ", ")));
}

std::string cache_key(const Source& source, const BuildInputs& inputs) {
  Sha256 hash;
  // Each part ends with a NUL, so no two different inputs hash the same text.
  std::vector<std::string> parts = {source.version, fragment(inputs)};
  for (const auto& patch : inputs.patches) parts.push_back(patch_text(patch).value_or(""));
  if (inputs.patches.empty()) parts.emplace_back();  // as when a kernel had one patch or none: its key stays
  for (const std::string& part : parts) {
    hash.update(part);
    hash.update(std::string_view("\0", 1));
  }
  auto digest = hash.finish();
  std::string hex;
  for (size_t i = 0; i < 6; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace cgmem::kernel
