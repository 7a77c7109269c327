#include "kernel/source.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "common/file.h"
#include "common/process.h"
#include "common/text.h"
#include "common/sha256.h"

namespace fs = std::filesystem;

namespace cgmem::kernel {

namespace {

// A top Makefile is about 70 KiB.
constexpr uint64_t kMaxMakefile = 4 << 20;

Result<std::string> version_of(const std::string& makefile_text, const std::string& where) {
  std::string version = makefile_version(makefile_text);
  if (version.empty())
    return fail("read the kernel version (VERSION, PATCHLEVEL, SUBLEVEL) from the top Makefile", where,
                "give a kernel source tree or its tarball");
  return version;
}

// "6.12.117-1~deb12u1" -> "6.12.117".
std::string upstream_of_package(const std::string& package_version) {
  return package_version.substr(0, package_version.find_first_of("-+~"));
}

}  // namespace

Result<Source> debian_source() {
  auto query = run_program({"dpkg-query", "-W", "-f=${Version}", kSourcePackage});
  if (!query || query->exit_code != 0 || query->output.empty() || access(kSourceTarball, R_OK) != 0) {
    return fail(fmt::format("find Debian's {} source ({} from the package {})", kSourcePackage, kSourceTarball,
                            kSourcePackage),
                {}, fmt::format("install it: apt-get install {} flex bison bc libelf-dev libssl-dev "
                                "(or run scripts/install-deps.sh), or pass --source TARBALL|DIR",
                                kSourcePackage));
  }
  return Source{.tarball = kSourceTarball, .version = query->output,
                .kernel_version = upstream_of_package(query->output)};
}

Result<Source> option_source(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return directory_source(path);
  return tarball_source(path);
}

Result<Source> tarball_source(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return sys_error("read the kernel source tarball", path);
  // Only the top Makefile: --occurrence stops reading at the first match,
  // which a kernel tarball lists among its first entries.
  auto makefile = run_program({"tar", "-xOf", path, "--wildcards", "--no-wildcards-match-slash", "--occurrence=1",
                               "*/Makefile"});
  if (!makefile || makefile->exit_code != 0 || makefile->output.empty())
    return fail("read the top Makefile of the kernel source tarball", path,
                "it holds no kernel source tree (no Makefile at its top)");
  auto version = version_of(makefile->output, path);
  if (!version) return std::unexpected(version.error());
  return Source{.tarball = path, .version = fmt::format("file {} {}", st.st_size, st.st_mtime),
                .kernel_version = *version, .from_option = true};
}

Result<Source> directory_source(const std::string& path) {
  std::error_code ec;
  std::string dir = fs::absolute(path, ec).lexically_normal().string();
  if (dir.size() > 1 && dir.ends_with('/')) dir.pop_back();
  auto makefile = read_file(dir + "/Makefile", "the top Makefile", kMaxMakefile);
  if (!makefile)
    return fail("read the top Makefile of the kernel source directory", dir + "/Makefile",
                "give a directory holding a kernel tree (a Makefile at its top), or a tarball");
  auto version = version_of(*makefile, dir + "/Makefile");
  if (!version) return std::unexpected(version.error());
  auto digest = tree_digest(dir);
  if (!digest) return std::unexpected(digest.error());
  return Source{.dir = dir, .version = fmt::format("dir {} {}", *version, *digest), .kernel_version = *version,
                .from_option = true};
}

std::string makefile_version(std::string_view makefile) {
  std::string parts[3];
  const char* keys[3] = {"VERSION", "PATCHLEVEL", "SUBLEVEL"};
  while (!makefile.empty()) {
    std::string_view line = next_line(makefile);
    for (int i = 0; i < 3; ++i) {
      if (!parts[i].empty() || !line.starts_with(keys[i])) continue;
      std::string_view rest = trim(line.substr(std::string_view(keys[i]).size()));
      if (!rest.starts_with('=')) continue;
      rest = trim(rest.substr(1));
      if (auto n = to_u64(rest); n && *n < 100000) parts[i] = std::to_string(*n);
    }
    if (!parts[0].empty() && !parts[1].empty() && !parts[2].empty()) break;
  }
  if (parts[0].empty() || parts[1].empty() || parts[2].empty()) return {};
  return fmt::format("{}.{}.{}", parts[0], parts[1], parts[2]);
}

Result<std::string> tree_digest(const std::string& dir) {
  std::vector<std::string> lines;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  if (ec) return fail("list the kernel source directory: " + ec.message(), dir);
  for (; it != end; it.increment(ec)) {
    if (ec) return fail("list the kernel source directory: " + ec.message(), dir);
    if (it->path().filename() == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    struct stat st {};
    if (lstat(it->path().c_str(), &st) != 0) return sys_error("stat a file of the kernel source", it->path().string());
    if (S_ISDIR(st.st_mode)) continue;
    lines.push_back(fmt::format("{}\t{}\t{}.{:09}\n", it->path().lexically_relative(dir).string(), st.st_size,
                                st.st_mtim.tv_sec, st.st_mtim.tv_nsec));
  }
  std::ranges::sort(lines);
  Sha256 hash;
  for (const auto& line : lines) hash.update(line);
  auto digest = hash.finish();
  std::string hex;
  for (auto byte : digest) hex += fmt::format("{:02x}", byte);
  return hex;
}

bool version_at_least(std::string_view version, int major, int minor) {
  int have[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    std::string_view part = next_token(version, '.');
    auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), have[i]);
    if (ec != std::errc() || part.empty()) return false;
  }
  return have[0] != major ? have[0] > major : have[1] >= minor;
}

std::vector<Upstream> upstream_patches(std::string_view memcontrol_c, const std::vector<std::string>& patches) {
  std::vector<Upstream> out;
  for (const auto& patch : patches) {
    std::string_view mark = patch == kSlotsPatch ? "NR_MEMCG_STOCK" : patch == kThrottlePatch ? "high.throttle" : "";
    if (!mark.empty() && memcontrol_c.find(mark) != std::string_view::npos)
      out.push_back({patch, fmt::format("mm/memcontrol.c has {}", mark)});
  }
  return out;
}

}  // namespace cgmem::kernel
