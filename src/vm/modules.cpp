#include "vm/modules.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>

#include "common/file.h"
#include "common/process.h"

namespace fs = std::filesystem;

namespace cgmem::vm {

namespace {

std::string normalize(std::string name) {
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

// "virtio_blk.ko.xz" -> "virtio_blk"; not a module -> "".
std::string module_name(const std::string& filename) {
  size_t at = filename.find(".ko");
  if (at == std::string::npos) return {};
  std::string rest = filename.substr(at);
  if (rest != ".ko" && rest != ".ko.xz" && rest != ".ko.zst" && rest != ".ko.gz") return {};
  return normalize(filename.substr(0, at));
}

}  // namespace

Result<std::map<std::string, std::string>> index_modules(const std::string& modules_dir) {
  std::map<std::string, std::string> index;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(modules_dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    std::string name = module_name(it->path().filename());
    if (!name.empty()) index.emplace(name, it->path());
  }
  if (ec) return fail("list the kernel modules: " + ec.message(), modules_dir);
  return index;
}

std::vector<std::string> module_depends(std::string_view ko_bytes) {
  const std::string_view key("\0depends=", 9);
  size_t at = ko_bytes.find(key);
  if (at == std::string_view::npos) return {};
  std::string_view list = ko_bytes.substr(at + key.size());
  list = list.substr(0, list.find('\0'));
  std::vector<std::string> out;
  while (!list.empty()) {
    size_t comma = list.find(',');
    if (comma != 0) out.push_back(normalize(std::string(list.substr(0, comma))));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

Result<std::string> read_module(const std::string& path) {
  std::string tool = path.ends_with(".xz") ? "xz" : path.ends_with(".zst") ? "zstd" : path.ends_with(".gz") ? "gzip" : "";
  if (tool.empty()) {
    return read_file(path, "the module");
  }
  auto out = run_program({tool, "-dc", path});
  if (!out) return std::unexpected(out.error());
  if (out->exit_code != 0) return fail(tool + " -dc failed: " + out->output, path);
  return std::move(out->output);
}

Result<std::vector<Module>> resolve_modules(const std::map<std::string, std::string>& index,
                                            const std::vector<std::string>& wanted) {
  std::vector<Module> ordered;
  std::set<std::string> seen;
  std::function<Result<void>(const std::string&, const std::string&)> visit =
      [&](const std::string& name, const std::string& needed_by) -> Result<void> {
    if (!seen.insert(name).second) return {};
    auto found = index.find(name);
    if (found == index.end()) {
      return fail("the kernel has no module " + name + (needed_by.empty() ? "" : " (needed by " + needed_by + ")"));
    }
    auto bytes = read_module(found->second);
    if (!bytes) return std::unexpected(bytes.error());
    for (const auto& dependency : module_depends(*bytes))
      if (auto ok = visit(dependency, name); !ok) return ok;
    ordered.push_back({name, std::move(*bytes)});
    return {};
  };
  for (const auto& name : wanted)
    if (auto ok = visit(normalize(name), {}); !ok) return std::unexpected(ok.error());
  return ordered;
}

}  // namespace cgmem::vm
