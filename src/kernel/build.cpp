#include "kernel/build.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <set>
#include <sstream>

#include "common/clock.h"
#include "common/file.h"
#include "kernel/source.h"
#include "kernel/step.h"
#include "vm/bzimage.h"
#include "vm/elf.h"

namespace fs = std::filesystem;

namespace cgmem::kernel {

namespace {

// A tree's mm/memcontrol.c is about 230 KiB.
constexpr uint64_t kMaxMemcontrol = 16 << 20;

// One build in its temporary directory: the steps share the log, the
// directories and the way a failure is reported.
class Build {
 public:
  Build(const BuildRequest& request, const BuildEvents& events, const volatile std::sig_atomic_t* stop,
        std::string tmp)
      : request_(request), events_(events), stop_(stop), tmp_(std::move(tmp)),
        name_(kernel_name(request.inputs)), key_(cache_key(request.source, request.inputs)) {}

  const std::vector<std::string>& applied() const { return applied_; }
  const std::vector<std::string>& upstream() const { return upstream_; }

  const std::string& name() const { return name_; }
  const std::string& key() const { return key_; }
  std::string src() const { return tmp_ + "/src"; }
  std::string entry_dir() const { return tmp_ + "/entry"; }
  std::string log() const { return entry_dir() + "/build.log"; }
  std::string final_dir() const { return request_.kernels + "/" + name_ + "-" + key_; }
  std::string failed_log() const { return final_dir() + ".failed.log"; }

  // Runs one program of the step `step`; a nonzero exit fails the build.
  Result<void> run(const std::string& step, const std::vector<std::string>& argv, const std::string& cwd,
                   std::function<void()> tick = {}) {
    auto code = run_step({.argv = argv, .cwd = cwd, .log = log(), .tick = std::move(tick), .stop = stop_});
    if (!code) return failed(step, code.error().message());
    if (*code == 128 + SIGINT && stop_ && *stop_) return failed(step, "interrupted");
    if (*code != 0) {
      std::string shown = fmt::format("{}", fmt::join(argv, " "));
      return failed(step, fmt::format("'{}' exited with {}: {}", shown, *code, error_lines(read_file_or_empty(log()))));
    }
    return {};
  }

  // Keeps the log as NAME-KEY.failed.log and says which step failed.
  std::unexpected<Error> failed(const std::string& step, const std::string& why) {
    std::error_code ec;
    fs::rename(log(), failed_log(), ec);
    std::string kept = ec ? std::string("(the log could not be kept: ") + ec.message() + ")" : failed_log();
    return fail(fmt::format("kernel build {} failed at step '{}': {}", name_, step, why), {},
                "the build log is kept: " + kept);
  }

  // A tarball is unpacked, a directory copied (cp -a keeps modes and
  // mtimes, so make sees the tree as it was); either way into src().
  Result<void> unpack(const char* step) {
    std::error_code ec;
    const Source& source = request_.source;
    fs::create_directories(src(), ec);
    if (ec) return failed(step, "create " + src() + ": " + ec.message());
    auto ok = source.dir.empty()
                  ? run(step, {"tar", "-xf", source.tarball, "-C", src(), "--strip-components=1"}, {})
                  : run(step, {"cp", "-a", "--", source.dir + "/.", src()}, {});
    if (ok && !fs::exists(src() + "/Makefile")) {
      return failed(step, (source.dir.empty() ? source.tarball : source.dir) +
                              " holds no kernel source tree (no Makefile at its top)");
    }
    return ok;
  }

  // Each patch in order; one the tree has upstream is skipped and said so.
  Result<void> patch() {
    auto memcontrol = read_file(src() + "/mm/memcontrol.c", "mm/memcontrol.c", kMaxMemcontrol);
    auto upstream = upstream_patches(memcontrol ? *memcontrol : std::string(), request_.inputs.patches);
    for (const auto& name : request_.inputs.patches) {
      auto found = std::ranges::find(upstream, name, &Upstream::patch);
      if (found != upstream.end()) {
        upstream_.push_back(name);
        if (events_.note)
          events_.note(fmt::format("patch: {} skipped: {} has it upstream ({})", name,
                                   request_.source.kernel_version, found->reason));
        continue;
      }
      auto text = patch_text(name);
      if (!text) return failed("patch", text.error().message());
      std::string file = tmp_ + "/" + name + ".patch";
      if (auto written = write_file(file, *text); !written) return failed("patch", written.error().message());
      if (events_.note) events_.note("patch: " + name);
      if (auto ok = run("patch", {"patch", "-p1", "--forward", "--batch", "-i", file}, src()); !ok) return ok;
      applied_.push_back(name);
    }
    return {};
  }

  // What the entry says of its inputs (a plan shows it too).
  Entry entry_facts() const {
    const Source& source = request_.source;
    return Entry{.dir = final_dir(), .name = name_, .key = key_, .hz = request_.inputs.hz, .patches = applied_,
                 .upstream = upstream_, .source_version = source.version, .version = source.kernel_version,
                 .source = source.dir.empty() ? source.tarball : source.dir, .jobs = request_.jobs};
  }

  Result<void> configure() {
    std::string frag = tmp_ + "/fragment.config";
    std::string wanted = fragment(request_.inputs);
    if (auto written = write_file(frag, wanted); !written) return failed("configure", written.error().message());
    if (auto ok = run("configure", {"make", "tinyconfig"}, src()); !ok) return ok;
    if (auto ok = run("configure", {"sh", "scripts/kconfig/merge_config.sh", "-m", ".config", frag}, src()); !ok)
      return ok;
    if (auto ok = run("configure", {"make", "olddefconfig"}, src()); !ok) return ok;
    auto missing = missing_options(wanted, read_file_or_empty(src() + "/.config"));
    if (!missing.empty()) {
      return failed("configure", fmt::format("make olddefconfig dropped {} (a dependency is off; fix "
                                             "kernel/config/lab.config)", fmt::join(missing, ", ")));
    }
    return {};
  }

  Result<void> compile(uint64_t expected) {
    auto start = std::chrono::steady_clock::now();
    uint64_t compiled = 0;
    // The log is read from where this step started; what was there before
    // is earlier steps' output.
    size_t offset = read_file_or_empty(log()).size();
    std::string partial;
    auto tick = [&] {
      std::string whole = read_file_or_empty(log());
      if (whole.size() > offset) partial.append(whole, offset);
      offset = std::max(offset, whole.size());
      size_t cut = partial.rfind('\n');
      if (cut != std::string::npos) {
        compiled += count_compiled(partial.substr(0, cut + 1));
        partial.erase(0, cut + 1);
      }
      double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (events_.compiling) events_.compiling(compiled, expected, seconds);
    };
    auto ok = run("compile", {"make", fmt::format("-j{}", request_.jobs), "bzImage"}, src(), tick);
    tick();
    objects_ = compiled;
    return ok;
  }

  Result<Entry> install(double seconds_so_far) {
    std::error_code ec;
    fs::copy_file(src() + "/arch/x86/boot/bzImage", entry_dir() + "/bzImage", ec);
    if (ec) return failed("install", "copy arch/x86/boot/bzImage: " + ec.message());
    fs::copy_file(src() + "/.config", entry_dir() + "/config", ec);
    if (ec) return failed("install", "copy .config: " + ec.message());
    // vmlinux with a PVH note boots without the firmware's setup and the
    // self-decompression that TCG runs slowly.
    if (auto pvh = vm::has_pvh_note(src() + "/vmlinux"); pvh && *pvh) {
      fs::copy_file(src() + "/vmlinux", entry_dir() + "/vmlinux.pvh", ec);
      if (ec) return failed("install", "copy vmlinux: " + ec.message());
    }
    auto release = vm::read_bzimage_release(entry_dir() + "/bzImage");
    if (!release) return failed("install", release.error().message());
    Entry entry = entry_facts();
    entry.release = *release;
    entry.built_at = iso_utc(std::time(nullptr));
    entry.seconds = seconds_so_far;
    entry.objects = objects_;
    entry.image_bytes = fs::file_size(entry_dir() + "/bzImage", ec);
    if (auto written = write_file_atomic(entry_dir() + "/" + kEntryFile, entry_json(entry)); !written)
      return failed("install", written.error().message());
    // Replace an older entry of the same key (--force) by moving it aside first.
    if (fs::exists(final_dir())) {
      if (!request_.force) {
        if (auto other = read_entry(final_dir())) return *other;  // a concurrent build finished first
      }
      fs::rename(final_dir(), tmp_ + "/old", ec);
    }
    fs::rename(entry_dir(), final_dir(), ec);
    if (ec) return failed("install", "rename into " + final_dir() + ": " + ec.message());
    fs::remove(failed_log(), ec);
    return entry;
  }

 private:
  const BuildRequest& request_;
  const BuildEvents& events_;
  const volatile std::sig_atomic_t* stop_;
  std::string tmp_, name_, key_;
  uint64_t objects_ = 0;
  std::vector<std::string> applied_, upstream_;
};

// The compile count of the last build of the same name, for the progress line.
uint64_t expected_objects(const std::string& kernels, const std::string& name) {
  for (const auto& entry : list_entries(kernels))
    if (entry.name == name && entry.objects > 0) return entry.objects;
  return 0;
}

}  // namespace

Result<BuildResult> build_kernel(const BuildRequest& request, const BuildEvents& events,
                                 const volatile std::sig_atomic_t* stop) {
  std::string name = kernel_name(request.inputs), key = cache_key(request.source, request.inputs);
  bool cached = find_entry(request.kernels, name, key).has_value();
  if (!request.force && !request.plan)
    if (auto entry = find_entry(request.kernels, name, key)) return BuildResult{*entry, true};
  std::error_code ec;
  fs::create_directories(request.kernels, ec);
  if (ec) return fail("create the kernel cache: " + ec.message(), request.kernels);
  std::string tmp = request.kernels + "/.build-" + name + "-" + key + "-XXXXXX";
  if (!mkdtemp(tmp.data())) return sys_error("create a temporary build directory", tmp);
  fs::create_directories(tmp + "/entry", ec);
  Build build(request, events, stop, tmp);
  auto start = std::chrono::steady_clock::now();
  auto step = [&](const char* name) {
    if (events.step) events.step(name);
  };
  Result<Entry> entry = std::unexpected(Error{});
  uint64_t expected = expected_objects(request.kernels, name);
  const char* unpack = request.source.dir.empty() ? "unpack" : "copy";
  Result<void> ok = (step(unpack), build.unpack(unpack));
  if (ok && !request.inputs.patches.empty()) ok = (step("patch"), build.patch());
  if (ok) ok = (step("configure"), build.configure());
  if (ok && request.plan) {
    BuildResult plan{.entry = build.entry_facts(), .planned = true, .cached = cached,
                     .config = read_file_or_empty(build.src() + "/.config")};
    fs::remove_all(tmp, ec);
    if (ec) return fail("remove the build directory: " + ec.message(), tmp);
    return plan;
  }
  if (ok) ok = (step("compile"), build.compile(expected));
  if (ok) {
    step("install");
    entry = build.install(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  } else {
    entry = std::unexpected(ok.error());
  }
  fs::remove_all(tmp, ec);
  if (!entry) return std::unexpected(entry.error());
  return BuildResult{*entry, false};
}

std::vector<std::string> missing_options(const std::string& fragment, const std::string& config) {
  std::set<std::string> have;
  std::istringstream lines(config);
  for (std::string line; std::getline(lines, line);) have.insert(line);
  std::vector<std::string> missing;
  std::istringstream wanted(fragment);
  for (std::string line; std::getline(wanted, line);) {
    bool set = line.starts_with("CONFIG_");
    bool unset = line.starts_with("# CONFIG_") && line.ends_with(" is not set");
    if (!set && !unset) continue;
    // "not set" is also met when the option is absent (its menu is off).
    std::string option = set ? line.substr(0, line.find('=')) : line.substr(2, line.find(' ', 2) - 2);
    if (unset && (have.contains(line) || !std::ranges::any_of(have, [&](const std::string& l) {
                    return l.starts_with(option + "=");
                  })))
      continue;
    if (set && have.contains(line)) continue;
    missing.push_back(line);
  }
  return missing;
}

int config_hz(const std::string& config) {
  size_t at = config.find("\nCONFIG_HZ=");
  if (at == std::string::npos) return 0;
  return std::atoi(config.c_str() + at + 11);
}

uint64_t count_compiled(const std::string& make_output) {
  uint64_t n = 0;
  std::istringstream lines(make_output);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("  CC ")) ++n;
  return n;
}

}  // namespace cgmem::kernel
