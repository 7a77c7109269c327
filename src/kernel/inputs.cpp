#include "kernel/inputs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>

#include "lab/matrix/sha256.h"
#include "common/process.h"

namespace cgmem::kernel {

namespace {

constexpr std::string_view kThrottleSuffix = "-throttle";

}  // namespace

std::string kernel_name(const BuildInputs& inputs) {
  return fmt::format("hz{}{}", inputs.hz, inputs.patch ? kThrottleSuffix : "");
}

std::optional<BuildInputs> inputs_from_name(std::string_view name) {
  if (!name.starts_with("hz")) return std::nullopt;
  BuildInputs inputs;
  std::string_view rest = name.substr(2);
  if (rest.ends_with(kThrottleSuffix)) {
    inputs.patch = std::string(kThrottlePatch);
    rest.remove_suffix(kThrottleSuffix.size());
  }
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), inputs.hz);
  if (ec != std::errc() || end != rest.data() + rest.size()) return std::nullopt;
  if (std::ranges::find(kHzChoices, inputs.hz) == std::end(kHzChoices)) return std::nullopt;
  return inputs;
}

std::string build_command(std::string_view name) {
  auto inputs = inputs_from_name(name);
  if (!inputs) return {};
  std::string command = fmt::format("cgmem kernel build --hz {}", inputs->hz);
  if (inputs->patch) command += " --patch " + *inputs->patch;
  return command;
}

std::string fragment(const BuildInputs& inputs) {
  return fmt::format("{}\n# Added by cgmem kernel build for {}\nCONFIG_HZ_{}=y\nCONFIG_LOCALVERSION=\"-cgmem-{}\"\n",
                     lab_config(), kernel_name(inputs), inputs.hz, kernel_name(inputs));
}

std::vector<std::string> patch_names() { return {std::string(kThrottlePatch)}; }

Result<std::string> patch_text(std::string_view patch) {
  if (patch == kThrottlePatch) return std::string(throttle_patch());
  return fail(fmt::format("no kernel patch named '{}'", patch), {},
              fmt::format("known patches: {}", fmt::join(patch_names(), ", ")));
}

Result<Source> debian_source() {
  auto query = run_program({"dpkg-query", "-W", "-f=${Version}", kSourcePackage});
  if (!query || query->exit_code != 0 || query->output.empty() || access(kSourceTarball, R_OK) != 0) {
    return fail(fmt::format("find Debian's {} source ({} from the package {})", kSourcePackage, kSourceTarball,
                            kSourcePackage),
                {}, fmt::format("install it: apt-get install {} flex bison bc libelf-dev libssl-dev "
                                "(or run scripts/install-deps.sh), or pass --source TARBALL",
                                kSourcePackage));
  }
  return Source{.tarball = kSourceTarball, .version = query->output};
}

Result<Source> tarball_source(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return sys_error("read the kernel source tarball", path);
  return Source{.tarball = path, .version = fmt::format("file {} {}", st.st_size, st.st_mtime)};
}

std::string cache_key(const Source& source, const BuildInputs& inputs) {
  lab::Sha256 hash;
  // Each part ends with a NUL, so no two different inputs hash the same text.
  std::string patch = inputs.patch ? patch_text(*inputs.patch).value_or("") : "";
  for (const std::string& part : {source.version, fragment(inputs), patch}) {
    hash.update(part);
    hash.update(std::string_view("\0", 1));
  }
  auto digest = hash.finish();
  std::string hex;
  for (size_t i = 0; i < 6; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace cgmem::kernel
