#include "kernel/resolve.h"

#include <fmt/format.h>

#include <filesystem>

#include "kernel/cache.h"
#include "kernel/inputs.h"
#include "kernel/source.h"
#include "vm/kernel.h"

namespace cgmem::kernel {

Result<KernelChoice> resolve_kernel(const std::string& arg) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(arg, ec)) return KernelChoice{.image = arg};
  // A Debian cloud kernel is fetched when the VM boots it, not built.
  if (vm::find_debian_kernel(arg)) return KernelChoice{.name = arg};
  if (arg.find('/') != std::string::npos)
    return fail("--kernel: no such file", arg, "give a bzImage path or a cached kernel's name (cgmem kernel list)");
  auto kernels = kernels_dir();
  if (!kernels) return std::unexpected(kernels.error());
  // The key this cgmem would build for the name, when the source is
  // installed (a --source kernel's tree is not known here: its newest entry).
  std::optional<std::string> key;
  auto inputs = inputs_from_name(arg);
  if (inputs && inputs->version.empty())
    if (auto source = debian_source()) key = cache_key(*source, *inputs);
  auto entry = resolve_entry(*kernels, arg, key);
  if (!entry) return std::unexpected(entry.error());
  KernelChoice choice{.image = entry->image(), .name = entry->name};
  if (key && entry->key != *key) {
    choice.note = fmt::format("kernel {} was built from other inputs (key {}; this cgmem's is {}); rebuild: {}",
                              entry->name, entry->key, *key, build_command(arg));
  }
  return choice;
}

}  // namespace cgmem::kernel
