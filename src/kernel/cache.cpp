#include "kernel/cache.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <cstring>
#include <optional>

#include "common/file.h"
#include "common/json_get.h"
#include "kernel/inputs.h"
#include "model/penalty.h"
#include "vm/kernel.h"

namespace fs = std::filesystem;

namespace cgmem::kernel {

Result<std::string> kernels_dir() {
  auto cache = vm::cache_dir();
  if (!cache) return std::unexpected(cache.error());
  return *cache + "/kernels";
}

std::string Entry::patch() const {
  std::string joined;
  for (const auto& p : patches) joined += (joined.empty() ? "" : ",") + p;
  return joined;
}

std::string entry_json(const Entry& e) {
  nlohmann::json j = {{"name", e.name},         {"key", e.key},
                      {"hz", e.hz},             {"patch", e.patch()},
                      {"patches", e.patches},   {"upstream", e.upstream},
                      {"version", e.version},   {"source", e.source},
                      {"source_version", e.source_version}, {"release", e.release},
                      {"built_at", e.built_at}, {"seconds", e.seconds},
                      {"jobs", e.jobs},         {"objects", e.objects},
                      {"image_bytes", e.image_bytes}};
  return j.dump(2) + "\n";
}

namespace {

using Json = nlohmann::json;

// Field readers over one entry: absent is the default; the first value of
// the wrong type or out of range is kept as the entry's error, naming the key.
class FieldReader {
 public:
  explicit FieldReader(const Json& j) : j_(j) {}

  std::string text(const char* key) {
    const Json* v = json_child(j_, key);
    if (!v) return "";
    if (!v->is_string()) return bad(fmt::format("{} is {}, not a string", key, v->dump())), "";
    return v->get<std::string>();
  }

  uint64_t whole(const char* key, uint64_t most, const char* expected) {
    const Json* v = json_child(j_, key);
    if (!v) return 0;
    if (!v->is_number_unsigned() || v->get<uint64_t>() > most)
      return bad(fmt::format("{} is {}, not {}", key, v->dump(), expected)), 0;
    return v->get<uint64_t>();
  }

  // A list of patch names; absent: empty.
  std::vector<std::string> names(const char* key) {
    std::vector<std::string> out;
    const Json* v = json_child(j_, key);
    if (!v) return out;
    if (!v->is_array() || v->size() > 16) return bad(fmt::format("{} is {}, not a list of patch names", key, v->dump())), out;
    for (const auto& item : *v) {
      if (!item.is_string()) return bad(fmt::format("{} holds {}, not a patch name", key, item.dump())), out;
      out.push_back(item.get<std::string>());
    }
    return out;
  }

  double seconds(const char* key) {
    const Json* v = json_child(j_, key);
    if (!v) return 0;
    if (!v->is_number() || !(v->get<double>() >= 0) || v->get<double>() > 1e9)
      return bad(fmt::format("{} is {}, not a duration in seconds", key, v->dump())), 0;
    return v->get<double>();
  }

  void bad(std::string why) {
    if (!error_) error_ = std::move(why);
  }
  const std::optional<std::string>& error() const { return error_; }

 private:
  const Json& j_;
  std::optional<std::string> error_;
};

// The entry, or what is wrong with it.
Result<Entry> parse_entry(const std::string& text, const std::string& dir) {
  auto j = Json::parse(text, nullptr, false);
  if (!j.is_object()) return fail("it is not a JSON object");
  FieldReader r(j);
  Entry e;
  e.dir = dir;
  e.name = r.text("name");
  e.key = r.text("key");
  if (!r.error() && (e.name.empty() || e.key.empty())) r.bad("it has no name or no key");
  e.hz = int(r.whole("hz", model::kMaxHz, model::kHzRange));
  if (json_child(j, "hz") && e.hz < model::kMinHz) r.bad(fmt::format("hz is {}, not {}", e.hz, model::kHzRange));
  e.patches = r.names("patches");
  // Entries built before "patches" name their one patch in "patch".
  if (!json_child(j, "patches") && !r.text("patch").empty()) e.patches = {r.text("patch")};
  e.upstream = r.names("upstream");
  e.version = r.text("version");
  e.source = r.text("source");
  e.source_version = r.text("source_version");
  e.release = r.text("release");
  e.built_at = r.text("built_at");
  e.seconds = r.seconds("seconds");
  e.jobs = unsigned(r.whole("jobs", 4096, "a number of jobs (0 to 4096)"));
  e.objects = r.whole("objects", UINT64_MAX, "a count of files");
  e.image_bytes = r.whole("image_bytes", UINT64_MAX, "a size in bytes");
  if (r.error()) return fail(*r.error());
  return e;
}

// What is wrong with an entry, without its path (the listing gives the directory).
std::string reason_of(const Error& e) {
  return e.err ? fmt::format("{}: {}", e.what, std::strerror(e.err)) : e.what;
}

}  // namespace

Result<Entry> read_entry(const std::string& dir) {
  std::string path = dir + "/" + kEntryFile;
  auto text = read_file(path, kEntryFile, kMaxEntryFile);
  if (!text) return std::unexpected(text.error());
  auto parsed = parse_entry(*text, dir);
  if (!parsed) return fail(fmt::format("{}: {}", kEntryFile, parsed.error().what), path, "build it again with --force");
  Entry e = std::move(*parsed);
  // Only a regular file is a kernel (a directory or a FIFO named bzImage is not).
  std::error_code ec;
  auto image = fs::symlink_status(e.image(), ec);
  if (ec || !fs::is_regular_file(image))
    return fail(ec ? "bzImage is missing" : "bzImage is not a regular file", e.image(), "build it again with --force");
  return e;
}

Listing list_cache(const std::string& kernels) {
  Listing listing;
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(kernels, ec)) {
    if (!item.is_directory(ec) || item.path().filename().string().starts_with(".")) continue;
    auto entry = read_entry(item.path().string());
    if (entry) listing.entries.push_back(std::move(*entry));
    else if (entry.error().err != ENOENT) listing.bad.push_back({item.path().string(), reason_of(entry.error())});
  }
  std::ranges::sort(listing.entries, [](const Entry& a, const Entry& b) {
    return a.name != b.name ? a.name < b.name : a.built_at > b.built_at;
  });
  std::ranges::sort(listing.bad, {}, &BadEntry::dir);
  return listing;
}

std::vector<Entry> list_entries(const std::string& kernels) { return list_cache(kernels).entries; }

std::optional<Entry> find_entry(const std::string& kernels, const std::string& name, const std::string& key) {
  auto entry = read_entry(kernels + "/" + name + "-" + key);
  if (entry && entry->name == name && entry->key == key) return *entry;
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
