#include "vm/session.h"

#include "common/file.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "vm/bzimage.h"
#include "vm/disk.h"
#include "vm/initramfs.h"
#include "vm/kvm_memory.h"
#include "vm/program_files.h"
#include "vm/tree_files.h"
#include "vm/locate.h"
#include "vm/modules.h"
#include "vm/swap.h"
#include "common/process.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace cgmem::vm {

namespace {

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// ./cgmem-vm-YYYYMMDD-HHMMSS, with -2, -3 ... if taken.
std::string default_out_dir() {
  char stamp[32];
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
  std::string base = (fs::current_path() / ("cgmem-vm-" + std::string(stamp))).string();
  std::string dir = base;
  for (int n = 2; fs::exists(dir) || fs::exists(dir + ".console.log"); ++n) dir = base + "-" + std::to_string(n);
  return dir;
}

// The out dir must not hold anything yet: results never mix with old ones.
Result<std::string> prepare_out_dir(const std::string& requested) {
  std::error_code ec;
  std::string dir = requested.empty() ? default_out_dir() : fs::absolute(requested, ec).lexically_normal().string();
  if (dir.ends_with('/')) dir.pop_back();
  if (fs::exists(dir) && !fs::is_empty(dir, ec))
    return fail("the output directory is not empty", dir, "pick a new --out DIR");
  fs::create_directories(fs::path(dir).parent_path(), ec);
  if (ec) return fail("create " + fs::path(dir).parent_path().string() + ": " + ec.message());
  fs::remove(dir, ec);  // an empty one is replaced by the results
  return dir;
}

SwapRequest swap_request(const VmOptions& options) {
  return {.bytes = options.swap_bytes, .kind = options.swap_kind, .zswap = options.zswap};
}

struct Inputs {
  std::string cgmem, busybox;
  GuestKernel kernel;
  std::vector<Module> modules;
  std::vector<GuestFile> programs;  // --program: programs with their loader and libraries
  TreePlan trees;                   // --tree
  std::string swap_kind;            // "none", "disk" or "zram" (choose_swap_kind)
};

Result<std::vector<Module>> guest_modules(const GuestKernel& kernel, const VmOptions& options,
                                          const std::string& swap_kind, const Progress& progress) {
  if (kernel.modules_dir.empty()) {
    bool builtin = config_option(read_file_or_empty(kernel.config), "CONFIG_VIRTIO_BLK") == "y";
    if (!kernel.config.empty() && !builtin) {
      return fail("the kernel " + kernel.image + " has no modules with it and its .config (" + kernel.config +
                  ") lacks CONFIG_VIRTIO_BLK=y", {}, "build virtio_blk in (CONFIG_VIRTIO_BLK=y) and rebuild");
    }
    progress(builtin ? "kernel without modules; its .config has virtio_blk built in"
                     : "kernel without modules or .config: virtio_blk must be built in (checked at boot)");
    return std::vector<Module>{};
  }
  auto index = index_modules(kernel.modules_dir);
  if (!index) return std::unexpected(index.error());
  // virtio_pci is the transport virtio_blk's device comes on, not one of
  // its depends=: a module in Debian's 6.1 (built in on 6.12), loaded first.
  std::vector<std::string> wanted;
  if (index->contains("virtio_pci")) wanted.push_back("virtio_pci");
  wanted.push_back("virtio_blk");
  if (swap_kind == "zram" && index->contains("zram")) wanted.push_back("zram");
  if (!options.forwards.empty() && index->contains("virtio_net")) wanted.push_back("virtio_net");
  return resolve_modules(*index, wanted);
}

Result<Inputs> gather_inputs(const VmOptions& options, const std::string& self, const Progress& progress) {
  Inputs in;
  if (auto ok = check_vm_stock_slots(options); !ok) return std::unexpected(ok.error());
  if (!on_path(kQemu))
    return fail(std::string(kQemu) + " not found", {}, "install it: apt-get install qemu-system-x86");
  auto cgmem = find_static_cgmem(options.cgmem, self);
  if (!cgmem) return std::unexpected(cgmem.error());
  in.cgmem = *cgmem;
  auto busybox = find_static_busybox();
  if (!busybox) return std::unexpected(busybox.error());
  in.busybox = *busybox;
  Result<GuestKernel> kernel = GuestKernel{};
  if (options.kernel.empty()) {
    auto cache = cache_dir();
    if (!cache) return std::unexpected(cache.error());
    const DebianKernel* debian = find_debian_kernel(options.kernel_name);
    if (!options.kernel_name.empty() && !debian) return fail("no Debian kernel named " + options.kernel_name);
    kernel = debian_kernel(*cache, debian ? *debian : kDefaultDebianKernel, progress);
  } else {
    kernel = own_kernel(options.kernel);
    if (kernel) kernel->name = options.kernel_name;
  }
  if (!kernel) return std::unexpected(kernel.error());
  in.kernel = *kernel;
  auto swap_kind = choose_swap_kind(swap_request(options), in.kernel);
  if (!swap_kind) return std::unexpected(swap_kind.error());
  in.swap_kind = *swap_kind;
  auto modules = guest_modules(in.kernel, options, in.swap_kind, progress);
  if (!modules) return std::unexpected(modules.error());
  in.modules = std::move(*modules);
  auto dirs = loader_dirs();
  for (const auto& program : options.programs) {
    auto files = program_files(program, dirs);
    if (!files) return std::unexpected(files.error());
    in.programs.insert(in.programs.end(), files->begin(), files->end());
  }
  if (!options.trees.empty()) {
    auto trees = plan_trees(options.trees, dirs);
    if (!trees) return std::unexpected(trees.error());
    in.trees = std::move(*trees);
    progress(fmt::format("trees: {} files, {:.0f} MiB, and {} libraries from outside them", in.trees.files,
                         static_cast<double>(in.trees.bytes) / (1 << 20), in.trees.libraries.size()));
    // A plugin whose library the host lacks cannot load on the host either;
    // the tree comes in as it is, and the note names what is missing.
    if (!in.trees.missing.empty())
      progress(fmt::format("note: {} libraries that files in the trees need are not on this host, e.g. {}",
                           in.trees.missing.size(), in.trees.missing.front()));
  }
  return in;
}

// The guest takes this host's name, so that what runs inside (a matrix
// shard's batch.json "host") says which machine it ran on; the record's
// kernel and "virtualized" say it was this machine's VM.
std::string host_name_line() { return "HOST_NAME=" + shell_quote(host_name()) + "\n"; }

Result<void> build_images(const Inputs& in, const VmOptions& options, const std::string& work) {
  auto files = read_guest_files(in.busybox, in.cgmem, in.kernel.config);
  if (!files) return std::unexpected(files.error());
  files->modules = in.modules;
  if (auto ok = add_extra_files(in.programs, *files); !ok) return ok;
  if (auto ok = write_initramfs(initramfs_archive(*files), work + "/initramfs.gz"); !ok) return ok;
  DiskSpec disk{.image = work + "/disk.img",
                .staging = work + "/disk-root",
                .size_bytes = options.disk_bytes,
                .config = swap_config_lines(swap_request(options), in.swap_kind) +
                          "CAP_BYTES=" + std::to_string(parent_cap(options.mem_bytes)) + "\n" + host_name_line(),
                .command = command_script(options),
                .inputs = options.files,
                .trees = in.trees};
  if (!options.script.empty()) disk.inputs.push_back(options.script);
  if (auto ok = make_disk(disk); !ok) return ok;
  std::error_code ec;
  fs::remove_all(disk.staging, ec);
  return {};
}

// Runs QEMU until it exits, the timeout passes, `stop` is set or KVM fails
// to run the guest; notes when the guest reaches the inner command. QEMU's
// own messages go to `qemu_log` and are copied to cgmem's stderr after.
Result<void> boot(const QemuSpec& spec, const VmOptions& options, const Progress& progress,
                  const volatile std::sig_atomic_t* stop, const std::string& qemu_log, VmRun& run) {
  Fd log(::open(qemu_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644));
  if (!log.valid()) return sys_error("create QEMU's log", qemu_log);
  // QEMU's stdout is cgmem's stderr; its own group keeps a terminal's ^C for
  // cgmem, which stops it.
  auto child = Process::start({.argv = qemu_argv(spec), .stdout_fd = STDERR_FILENO, .stderr_fd = log.get(),
                               .own_group = true, .die_with_cgmem = true});
  if (!child) return std::unexpected(child.error());
  auto start = Clock::now();
  while (true) {
    if (auto code = child->wait_for(std::chrono::milliseconds(50))) {
      if (*code != 0) run.guest_error = "QEMU exited with code " + std::to_string(*code);
      break;
    }
    if (run.boot_seconds < 0 && read_file_or_empty(spec.console_log).find("cgmem-vm: running") != std::string::npos) {
      run.boot_seconds = seconds_since(start);
      progress(fmt::format("running (guest booted in {:.1f} s)", run.boot_seconds));
    }
    if (spec.accel == Accel::kvm && run.boot_seconds < 0) {
      // The guest is paused for good; QEMU would wait until the timeout.
      std::string failure = kvm_failure(read_file_or_empty(qemu_log));
      if (!failure.empty()) {
        run.guest_error = failure;
        child->stop(std::chrono::milliseconds(500));
        break;
      }
    }
    bool late = Clock::now() - start > options.timeout;
    if (late || (stop && *stop)) {
      (late ? run.timed_out : run.interrupted) = true;
      progress(fmt::format("{}: stopping QEMU (pid {})", late ? "timeout" : "interrupted", child->pid()));
      child->stop(std::chrono::milliseconds(500));
      break;
    }
  }
  run.total_seconds = seconds_since(start);
  if (std::string said = read_file_or_empty(qemu_log); !said.empty()) (void)write_all(STDERR_FILENO, said);
  return {};
}

void collect(const std::string& work, VmRun& run) {
  // The inner command's working directory becomes out_dir.
  if (auto copied = read_back(work + "/disk.img", "/out", run.out_dir); !copied)
    run.guest_error = copied.error().message();
  std::string result = work + "/result";
  if (!read_back(work + "/disk.img", "/cgmem-vm", result)) return;
  run.guest = parse_env(read_file_or_empty(result + "/guest.env"));
  // A kernel without a known .config: the guest chose the kind.
  if (auto chosen = run.guest.find("swap_kind"); run.swap_kind == "auto" && chosen != run.guest.end())
    run.swap_kind = chosen->second;
  run.stdout_bytes = read_file_or_empty(result + "/stdout");
  std::string code = read_file_or_empty(result + "/exit_code");
  if (!code.empty() && !run.timed_out && !run.interrupted) run.exit_code = std::atoi(code.c_str());
}

nlohmann::json record_json(const VmOptions& options, const VmRun& run) {
  nlohmann::json guest = nlohmann::json::object();
  for (const auto& [key, value] : run.guest) guest[key] = value;
  nlohmann::json failed_boots = nlohmann::json::array();
  for (const auto& failed : run.failed_boots)
    failed_boots.push_back({{"console_log", failed.console_log}, {"error", failed.error}});
  return {
      {"exit_code", run.exit_code}, {"timed_out", run.timed_out}, {"interrupted", run.interrupted},
      {"guest_error", run.guest_error}, {"accel", accel_name(run.accel)}, {"accel_note", run.accel_note},
      {"kernel", {{"image", run.kernel.image}, {"pvh", run.kernel.pvh}, {"release", run.kernel.release},
                  {"note", run.kernel.note}, {"name", run.kernel.name}, {"hz", run.kernel.hz},
                  {"patches", run.built.patches}, {"stock_slots", run.stock_slots.slots},
                  {"stock_slots_source", run.stock_slots.source}}},
      {"boot_seconds", run.boot_seconds}, {"total_seconds", run.total_seconds},
      {"mem_bytes", options.mem_bytes}, {"cpus", options.cpus}, {"disk_bytes", options.disk_bytes},
      {"swap_bytes", options.swap_bytes}, {"swap_kind", run.swap_kind}, {"zswap", options.zswap},
      {"cgroup_parent_memory_max", parent_cap(options.mem_bytes)},
      {"out_dir", run.out_dir}, {"console_log", run.console_log}, {"guest", guest},
      {"failed_boots", failed_boots},
  };
}

}  // namespace

Result<void> check_vm_stock_slots(const VmOptions& options) {
  if (!options.stock_slots) return {};
  BuiltKernel built = options.kernel.empty() ? BuiltKernel{} : read_built(options.kernel);
  std::string release;
  if (!options.kernel.empty()) release = read_bzimage_release(options.kernel).value_or("");
  std::string what = options.kernel_name.empty() ? options.kernel : options.kernel_name;
  return check_stock_slots(*options.stock_slots, what, built, release);
}

std::vector<std::string> kernel_args(const VmOptions& options) {
  std::vector<std::string> args;
  if (options.stock_slots) args.push_back(stock_slots_arg(*options.stock_slots));
  return args;
}

uint64_t parent_cap(uint64_t mem_bytes) { return mem_bytes / 4 * 3 / 4096 * 4096; }

uint64_t guest_mem_total(uint64_t mem_bytes) {
  constexpr uint64_t kKept = 48ull << 20;
  uint64_t kept = mem_bytes / 64 + kKept;
  return mem_bytes > kept ? mem_bytes - kept : 0;
}

std::string command_script(const VmOptions& options) {
  std::vector<std::string> argv;
  if (options.script.empty()) {
    argv = {"cgmem"};
  } else {
    argv = {"sh", "/vm/in/" + fs::path(options.script).filename().string()};
  }
  argv.insert(argv.end(), options.command.begin(), options.command.end());
  return "exec " + command_line(argv) + "\n";
}

std::map<std::string, std::string> parse_env(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t eq = line.find('=');
    if (eq != std::string::npos && eq > 0) out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

std::string kvm_failure(const std::string& qemu_messages) {
  size_t at = qemu_messages.find("KVM internal error");
  if (at == std::string::npos) return {};
  size_t end = qemu_messages.find_first_of("\r\n", at);
  std::string line = qemu_messages.substr(at, end == std::string::npos ? std::string::npos : end - at);
  while (!line.empty() && (line.back() == '.' || line.back() == ' ')) line.pop_back();
  if (qemu_messages.find("emulation failure", at) != std::string::npos) line += " (emulation failure)";
  return line;
}

std::string guest_error_from_console(const std::string& console) {
  for (const char* marker : {"cgmem-vm: error: ", "Oops: ", "Kernel panic - not syncing: "}) {
    size_t at = console.find(marker);
    if (at == std::string::npos) continue;
    size_t end = console.find_first_of("\r\n", at);
    return console.substr(at, end == std::string::npos ? std::string::npos : end - at);
  }
  return {};
}

std::string oops_before_command(const std::string& console) {
  if (console.find("cgmem-vm: running") != std::string::npos) return {};
  std::string error = guest_error_from_console(console);
  return error.starts_with("Oops: ") ? error : std::string{};
}

namespace {

// Boots the guest, again while its kernel dies before the command starts.
// A guest kernel that oopsed before the command started ran nothing of it,
// so booting again is safe. Under TCG the project's CI saw it in 3 of 10
// runs (15 boots each) on 2026-12-01: an int3 Oops in sched_clock_cpu 1.4
// to 1.7 s into boot, at an instruction the kernel had just patched. KVM
// that passed the probe can still fail on the guest's first instructions
// ("KVM internal error ... emulation failure", seen on a nested host on
// 2026-12-01): nothing ran, so TCG boots it again.
Result<void> boot_until_started(QemuSpec& spec, const VmOptions& options, const Progress& progress,
                                const volatile std::sig_atomic_t* stop, const std::string& work,
                                const std::string& out_dir, const Result<std::string>& cache, VmRun& run) {
  constexpr int kBoots = 3;
  for (int attempt = 1;; ++attempt) {
    progress(std::string("booting (") + accel_name(run.accel) + ")");
    if (auto ok = boot(spec, options, progress, stop, work + "/qemu.log", run); !ok) return ok;
    bool kvm_failed = spec.accel == Accel::kvm && !kvm_failure(run.guest_error).empty();
    std::string oops = run.timed_out || run.interrupted ? std::string{}
                       : kvm_failed                     ? run.guest_error
                                                        : oops_before_command(read_file_or_empty(run.console_log));
    if (oops.empty() || attempt == kBoots) return {};
    if (kvm_failed) {
      spec.accel = run.accel = Accel::tcg;
      if (cache) remember_kvm_failure(*cache, oops);
    }
    // Kept beside DIR, never over a file that is already there.
    std::string kept = fmt::format("{}.boot{}.console.log", out_dir, attempt);
    bool moved = ::renameat2(AT_FDCWD, run.console_log.c_str(), AT_FDCWD, kept.c_str(), RENAME_NOREPLACE) == 0;
    run.failed_boots.push_back({.console_log = moved ? kept : std::string{}, .error = oops});
    progress(fmt::format("the guest {} before the command started ({}); booting again{}{}",
                         kvm_failed ? "could not run under KVM" : "kernel died", oops,
                         kvm_failed ? " under TCG" : "", moved ? ", its console kept as " + kept : ""));
    run.guest_error.clear();
  }
}

// The work directory (images, the guest's disk), removed on every way out
// unless --keep.
class WorkDir {
 public:
  WorkDir(std::string path, bool keep) : path_(std::move(path)), keep_(keep) {}
  ~WorkDir() {
    std::error_code ec;
    if (!keep_) fs::remove_all(path_, ec);
  }
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool keep_;
};

Accel choose_accel(const VmOptions& options, const Result<std::string>& cache, const Progress& progress, VmRun& run) {
  if (options.accel) return *options.accel;
  if (auto failed = cache ? remembered_kvm_failure(*cache) : std::nullopt) {
    run.accel_note = "KVM failed a guest on this host since it booted (" + *failed + "); TCG without trying KVM";
    progress(run.accel_note + " (--accel kvm tries it)");
    return Accel::tcg;
  }
  return probe_accel();
}

}  // namespace

Result<VmRun> run_vm(const VmOptions& options, const std::string& self, const Progress& progress,
                     const volatile std::sig_atomic_t* stop) {
  auto inputs = gather_inputs(options, self, progress);
  if (!inputs) return std::unexpected(inputs.error());
  auto out_dir = prepare_out_dir(options.out_dir);
  if (!out_dir) return std::unexpected(out_dir.error());
  VmRun run{.out_dir = *out_dir, .console_log = *out_dir + ".console.log", .record = *out_dir + ".vm.json",
            .kernel = inputs->kernel, .swap_kind = inputs->swap_kind};
  if (!options.kernel.empty()) run.built = read_built(options.kernel);
  run.stock_slots = stock_slots_in_effect(options.stock_slots, run.built, run.kernel.release);
  const char* tmp = getenv("TMPDIR");
  std::string work_path = std::string(tmp && *tmp ? tmp : "/tmp") + "/cgmem-vm-XXXXXX";
  if (!mkdtemp(work_path.data())) return sys_error("create a work directory", work_path);
  const WorkDir work(work_path, options.keep);
  progress("building image (" + inputs->cgmem + ", kernel " + inputs->kernel.release + ")");
  if (auto ok = build_images(*inputs, options, work.path()); !ok) return std::unexpected(ok.error());
  auto cache = cache_dir();
  run.accel = choose_accel(options, cache, progress, run);
  QemuSpec spec{.accel = run.accel,
                .kernel = inputs->kernel.pvh.empty() ? inputs->kernel.image : inputs->kernel.pvh,
                .initrd = work.path() + "/initramfs.gz", .disk = work.path() + "/disk.img",
                .console_log = run.console_log, .mem_bytes = options.mem_bytes, .cpus = options.cpus,
                .forwards = options.forwards, .kernel_args = kernel_args(options)};
  if (stop && *stop) {
    run.interrupted = true;
  } else {
    if (auto ok = boot_until_started(spec, options, progress, stop, work.path(), *out_dir, cache, run); !ok)
      return std::unexpected(ok.error());
    progress("collecting");
    collect(work.path(), run);
  }
  if (run.exit_code < 0 && run.guest_error.empty())
    run.guest_error = guest_error_from_console(read_file_or_empty(run.console_log));
  if (auto written = write_file_atomic(run.record, record_json(options, run).dump(2) + "\n"); !written)
    run.record_error = written.error().message();
  if (options.keep) run.work_dir = work.path();
  return run;
}

}  // namespace cgmem::vm
