#include "kernel/cache.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "kernel/inputs.h"
#include "vm/kernel.h"

namespace fs = std::filesystem;

namespace cgmem::kernel {

Result<std::string> kernels_dir() {
  auto cache = vm::cache_dir();
  if (!cache) return std::unexpected(cache.error());
  return *cache + "/kernels";
}

std::string entry_json(const Entry& e) {
  nlohmann::json j = {{"name", e.name},         {"key", e.key},
                      {"hz", e.hz},             {"patch", e.patch},
                      {"source_version", e.source_version}, {"release", e.release},
                      {"built_at", e.built_at}, {"seconds", e.seconds},
                      {"jobs", e.jobs},         {"objects", e.objects},
                      {"image_bytes", e.image_bytes}};
  return j.dump(2) + "\n";
}

std::optional<Entry> read_entry(const std::string& dir) {
  std::ifstream in(dir + "/" + kEntryFile);
  if (!in) return std::nullopt;
  auto j = nlohmann::json::parse(in, nullptr, false);
  if (!j.is_object() || !j.contains("name") || !j.contains("key")) return std::nullopt;
  Entry e;
  e.dir = dir;
  e.name = j.value("name", "");
  e.key = j.value("key", "");
  e.hz = j.value("hz", 0);
  e.patch = j.value("patch", "");
  e.source_version = j.value("source_version", "");
  e.release = j.value("release", "");
  e.built_at = j.value("built_at", "");
  e.seconds = j.value("seconds", 0.0);
  e.jobs = j.value("jobs", 0u);
  e.objects = j.value("objects", uint64_t{0});
  e.image_bytes = j.value("image_bytes", uint64_t{0});
  if (!fs::exists(e.image())) return std::nullopt;
  return e;
}

std::vector<Entry> list_entries(const std::string& kernels) {
  std::vector<Entry> entries;
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(kernels, ec)) {
    if (!item.is_directory(ec) || item.path().filename().string().starts_with(".")) continue;
    if (auto entry = read_entry(item.path().string())) entries.push_back(std::move(*entry));
  }
  std::ranges::sort(entries, [](const Entry& a, const Entry& b) {
    return a.name != b.name ? a.name < b.name : a.built_at > b.built_at;
  });
  return entries;
}

std::optional<Entry> find_entry(const std::string& kernels, const std::string& name, const std::string& key) {
  auto entry = read_entry(kernels + "/" + name + "-" + key);
  if (entry && entry->name == name && entry->key == key) return entry;
  return std::nullopt;
}

Result<Entry> resolve_entry(const std::string& kernels, const std::string& name,
                            const std::optional<std::string>& current_key) {
  if (current_key)
    if (auto entry = find_entry(kernels, name, *current_key)) return *entry;
  for (const auto& entry : list_entries(kernels))
    if (entry.name == name) return entry;  // newest first
  std::string command = build_command(name);
  if (command.empty()) {
    return fail(fmt::format("--kernel {}: no such file, and not a kernel name cgmem builds", name), {},
                "give a bzImage path, or a name like hz1000 or hz1000-throttle (cgmem kernel list shows the cache)");
  }
  return fail(fmt::format("no kernel named {} in the cache {}", name, kernels), {}, "build it first: " + command);
}

}  // namespace cgmem::kernel
