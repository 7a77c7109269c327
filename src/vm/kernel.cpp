#include "vm/kernel.h"

#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "vm/bzimage.h"
#include "vm/elf.h"
#include "common/file.h"
#include "common/process.h"

namespace fs = std::filesystem;

namespace cgmem::vm {

namespace {

// The last non-empty line of a program's output, for error messages.
std::string last_line(const std::string& output) {
  std::istringstream in(output);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty() && !line.starts_with("W: ")) last = line;
  return last;
}

// An extracted package tree at `dir`, as a Kernel.
Result<GuestKernel> load_tree(const std::string& dir, const std::string& release, const DebianKernel& which) {
  GuestKernel kernel;
  kernel.image = dir + "/boot/vmlinuz-" + release;
  auto header = read_bzimage_release(kernel.image);
  if (!header) return std::unexpected(header.error());
  kernel.release = *header;
  if (fs::is_directory(dir + "/lib/modules/" + release)) kernel.modules_dir = dir + "/lib/modules/" + release;
  if (fs::exists(dir + "/boot/config-" + release)) kernel.config = dir + "/boot/config-" + release;
  kernel.name = which.name;
  kernel.hz = read_config_hz(kernel.config);
  return kernel;
}

// apt-get download + dpkg-deb -x into cache/kernels/RELEASE. Safe when two
// cgmem processes fetch at once: each extracts privately, the first rename wins.
Result<void> fetch(const std::string& kernels, const std::string& release) {
  std::error_code ec;
  fs::create_directories(kernels, ec);
  if (ec) return fail("create the kernel cache " + kernels + ": " + ec.message());
  std::string tmp = kernels + "/.fetch-XXXXXX";
  if (!mkdtemp(tmp.data())) return sys_error("create a temporary directory", tmp);
  auto cleanup = [&] { fs::remove_all(tmp, ec); };
  std::vector<std::string> download = {"apt-get", "download", kernel_package(release)};
  auto got = run_program(download, tmp);
  if (!got || got->exit_code != 0) {
    cleanup();
    if (!got) return std::unexpected(got.error());
    return fail(fmt::format("'{}' failed: {}", command_line(download), last_line(got->output)));
  }
  std::string deb;
  for (const auto& entry : fs::directory_iterator(tmp, ec))
    if (entry.path().extension() == ".deb") deb = entry.path();
  auto unpacked = run_program({"dpkg-deb", "-x", deb, tmp + "/root"});
  if (!unpacked || unpacked->exit_code != 0) {
    cleanup();
    if (!unpacked) return std::unexpected(unpacked.error());
    return fail(fmt::format("'dpkg-deb -x {}' failed: {}", deb, last_line(unpacked->output)));
  }
  fs::rename(tmp + "/root", kernels + "/" + release, ec);  // fails harmlessly if another won
  cleanup();
  if (!fs::exists(kernels + "/" + release + "/boot/vmlinuz-" + release))
    return fail("the package " + kernel_package(release) + " holds no /boot/vmlinuz-" + release);
  return {};
}

// The vmlinux inside the bzImage, decompressed next to it once. Booted with
// -kernel through its PVH entry, it skips the firmware's real-mode setup and
// the decompression that TCG runs slowly. Empty when it cannot be had.
std::string pvh_vmlinux(const std::string& dir, const std::string& release) {
  std::string out = dir + "/boot/vmlinux-" + release + ".pvh";
  if (fs::exists(out)) return out;
  std::ifstream in(dir + "/boot/vmlinuz-" + release, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto payload = bzimage_payload(bytes, release);
  if (!payload) return {};
  std::string tmp = out + ".tmp-" + std::to_string(getpid()), packed = tmp + ".packed";
  std::ofstream(packed, std::ios::binary).write(bytes.data() + payload->offset,
                                                static_cast<std::streamsize>(payload->length));
  auto unpacked = run_program_to_file({payload->tool, "-dc", packed}, tmp);
  std::error_code ec;
  fs::remove(packed, ec);
  auto note = has_pvh_note(tmp);
  if (!unpacked || unpacked->exit_code != 0 || !note || !*note) {
    fs::remove(tmp, ec);
    return {};
  }
  fs::rename(tmp, out, ec);
  return ec ? std::string() : out;
}

Result<GuestKernel> cached_or_fetched(const std::string& kernels, const std::string& release,
                                 const DebianKernel& which, const Progress& progress) {
  std::string dir = kernels + "/" + release;
  if (!fs::exists(dir + "/boot/vmlinuz-" + release)) {
    progress("fetching kernel " + kernel_package(release) + " into " + kernels);
    if (auto got = fetch(kernels, release); !got) return std::unexpected(got.error());
  }
  auto kernel = load_tree(dir, release, which);
  if (kernel) kernel->pvh = pvh_vmlinux(dir, release);
  return kernel;
}

}  // namespace

std::string kernel_package(const std::string& release) { return "linux-image-" + release; }

Result<std::string> cache_dir() {
  const char* xdg = getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/cgmem";
  const char* home = getenv("HOME");
  if (home && home[0] == '/') return std::string(home) + "/.cache/cgmem";
  return fail("find a cache directory for the kernel", {}, "set HOME or XDG_CACHE_HOME");
}

namespace {

// The order of a release within its series: its digit runs after the
// series ("117+deb12" -> 117, 12; "0-57" -> 0, 57), or nothing when the
// release is not a cloud image of that series.
std::optional<std::vector<long>> release_rank(std::string_view name, std::string_view series) {
  std::string prefix = "linux-image-" + std::string(series) + ".";
  const std::string_view suffix = "-cloud-amd64";
  if (!name.starts_with(prefix) || !name.ends_with(suffix)) return std::nullopt;
  std::string_view middle = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  std::vector<long> rank;
  const char* at = middle.data();
  const char* last = middle.data() + middle.size();
  while (at < last) {
    long number = 0;
    auto [end, ec] = std::from_chars(at, last, number);
    if (ec != std::errc()) return std::nullopt;
    rank.push_back(number);
    at = end;
    // "6.12.N+debD" or "6.1.0-ABI": one separator between the numbers.
    if (at < last && (*at == '-' || *at == '.')) ++at;
    else if (std::string_view(at, last).starts_with("+deb")) at += 4;
    else if (at < last) return std::nullopt;
  }
  if (rank.size() != 2) return std::nullopt;
  return rank;
}

}  // namespace

std::optional<std::string> newest_cloud_release(const std::string& search_output, std::string_view series) {
  // "linux-image-6.12.117+deb12-cloud-amd64 - Linux 6.12 for x86-64 cloud (signed)"
  std::optional<std::string> best;
  std::vector<long> best_rank;
  std::istringstream in(search_output);
  std::string line;
  while (std::getline(in, line)) {
    std::string name = line.substr(0, line.find(' '));
    auto rank = release_rank(name, series);
    if (!rank || (best && *rank <= best_rank)) continue;
    best_rank = *rank;
    best = name.substr(std::string("linux-image-").size());
  }
  return best;
}

std::string cached_debian_release(const std::string& cache, const DebianKernel& which) {
  std::string kernels = cache + "/kernels";
  auto fetched = [&](const std::string& release) {
    std::error_code ec;
    return fs::exists(kernels + "/" + release + "/boot/vmlinuz-" + release, ec);
  };
  if (fetched(which.pinned)) return which.pinned;
  std::string listing;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(kernels, ec)) listing += "linux-image-" + entry.path().filename().string() + "\n";
  auto newest = newest_cloud_release(listing, which.series);
  return newest && fetched(*newest) ? *newest : std::string();
}

Result<GuestKernel> debian_kernel(const std::string& cache, const DebianKernel& which, const Progress& progress) {
  std::string kernels = cache + "/kernels";
  if (std::string cached = cached_debian_release(cache, which); !cached.empty()) {
    auto kernel = cached_or_fetched(kernels, cached, which, progress);
    if (kernel && cached != which.pinned)
      kernel->note = "pinned kernel " + std::string(which.pinned) + " unavailable; used " + cached;
    return kernel;
  }
  if (!on_path("apt-get"))
    return fail("cannot fetch the kernel package " + kernel_package(which.pinned) + ": apt-get not found", {},
                "run cgmem vm on Debian or Ubuntu, or pass --kernel PATH to a bzImage");
  auto pinned = cached_or_fetched(kernels, which.pinned, which, progress);
  if (pinned) return pinned;
  std::string series_pattern = std::string(which.series);
  for (size_t at = series_pattern.find('.'); at != std::string::npos; at = series_pattern.find('.', at + 2))
    series_pattern.replace(at, 1, "\\.");
  std::vector<std::string> search = {"apt-cache", "search", "--names-only",
                                     "^linux-image-" + series_pattern + "\\.[0-9].*-cloud-amd64$"};
  auto listed = run_program(search);
  auto newest = listed && listed->exit_code == 0 ? newest_cloud_release(listed->output, which.series) : std::nullopt;
  if (!newest || *newest == which.pinned) {
    return fail(pinned.error().message(), {},
                fmt::format("run 'apt-get update' so apt knows the {} cloud images, or pass --kernel PATH", which.series));
  }
  progress("the pinned kernel " + kernel_package(which.pinned) + " is not available (" +
           pinned.error().message() + "); using the newest " + which.series + " cloud image, " +
           kernel_package(*newest));
  auto fallback = cached_or_fetched(kernels, *newest, which, progress);
  if (fallback) fallback->note = "pinned kernel " + std::string(which.pinned) + " unavailable; used " + *newest;
  return fallback;
}

std::string config_option(std::string_view config_text, std::string_view name) {
  for (size_t at = 0; at < config_text.size();) {
    size_t end = config_text.find('\n', at);
    if (end == std::string_view::npos) end = config_text.size();
    std::string_view line = config_text.substr(at, end - at);
    at = end + 1;
    if (line.size() > name.size() + 1 && line.starts_with(name) && line[name.size()] == '=')
      return std::string(line.substr(name.size() + 1));
  }
  return "";
}

int read_config_hz(const std::string& config_path) {
  if (config_path.empty()) return 0;
  return std::atoi(config_option(read_file_or_empty(config_path), "CONFIG_HZ").c_str());
}

Result<GuestKernel> own_kernel(const std::string& path) {
  GuestKernel kernel;
  std::error_code ec;
  kernel.image = fs::absolute(path, ec);
  auto release = read_bzimage_release(kernel.image);
  if (!release) return std::unexpected(release.error());
  kernel.release = *release;
  // In a build tree, arch/x86/boot/bzImage sits three levels below .config.
  fs::path tree = fs::path(kernel.image).parent_path().parent_path().parent_path().parent_path();
  if (fs::exists(tree / ".config")) kernel.config = tree / ".config";
  // An entry of cgmem's kernel cache: bzImage, config, vmlinux.pvh side by side.
  fs::path dir = fs::path(kernel.image).parent_path();
  if (fs::path(kernel.image).filename() == "bzImage" && fs::exists(dir / "config")) {
    kernel.config = dir / "config";
    if (fs::exists(dir / "vmlinux.pvh")) kernel.pvh = dir / "vmlinux.pvh";
  }
  kernel.hz = read_config_hz(kernel.config);
  return kernel;
}

}  // namespace cgmem::vm
