// cgmem vm [options] -- CMD ARGS...: runs `cgmem CMD ARGS` in a VM with a
// real kernel (see src/vm/session.h and docs/vm.md). The inner command's
// stdout is printed here after the run; its stderr shows live; progress
// lines go to stderr; the inner exit code is ours.
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "cli/app.h"
#include "common/exit_codes.h"
#include "cli/handlers.h"
#include "cli/signals.h"
#include "cli/version.h"
#include "common/file.h"
#include "kernel/resolve.h"
#include "vm/session.h"

namespace cgmem::cli {

namespace {


int report(const vm::VmOptions& options, const vm::VmRun& run, bool json) {
  fwrite(run.stdout_bytes.data(), 1, run.stdout_bytes.size(), stdout);
  fflush(stdout);
  if (!run.record_error.empty()) print_error("the run's record was not written: " + run.record_error);
  if (json) {
    fmt::print(stderr, "{}\n", nlohmann::json::parse(read_file_or_empty(run.record), nullptr, false).dump());
  } else {
    fmt::print(stderr, "cgmem vm: results in {} (console {}, record {})\n", run.out_dir, run.console_log,
               run.record);
    if (!run.work_dir.empty()) fmt::print(stderr, "cgmem vm: images kept in {}\n", run.work_dir);
  }
  if (run.interrupted) return kInterrupted;
  if (run.timed_out) {
    print_error(fmt::format("the guest did not finish within {} s; QEMU was stopped (console: {})",
                            options.timeout.count(), run.console_log));
    return kFailure;
  }
  if (run.exit_code < 0) {
    print_error("the guest stopped before the command finished: " +
                (run.guest_error.empty() ? std::string("no reason on its console") : run.guest_error) +
                " (console: " + run.console_log + ")");
    return kFailure;
  }
  return run.exit_code;
}

// --forward HOST_PORT:GUEST_PORT
Result<vm::PortForward> parse_forward(const std::string& text) {
  unsigned host = 0, guest = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%u:%u%c", &host, &guest, &tail) != 2 || host == 0 || guest == 0 ||
      host > 65535 || guest > 65535)
    return fail("--forward '" + text + "' is not HOST_PORT:GUEST_PORT", "", "e.g. --forward 19262:9262");
  return vm::PortForward{.host_port = int(host), .guest_port = int(guest)};
}

}  // namespace

int run_vm(std::span<char*> args) {
  CLI::App app(
      "cgmem vm [OPTIONS] [--] CMD ARGS...\n"
      "Boot a Linux kernel under QEMU and run `cgmem CMD ARGS` inside, on a real cgroup v2 memory "
      "controller. Exits with the inner command's exit code. See docs/vm.md.",
      "vm");
  vm::VmOptions options;
  std::string mem = "512M", disk = "1G", swap = "0";
  unsigned timeout = 600;
  bool json = false;
  std::string accel;
  app.add_option("--out", options.out_dir, "where the inner working directory comes back (default: ./cgmem-vm-DATE-TIME)");
  app.add_option("--mem", mem, "guest RAM")->check(size_validator({}))->capture_default_str();
  app.add_option("--cpus", options.cpus, "guest CPUs")->check(whole_number(1, 64))->capture_default_str();
  app.add_option("--disk", disk, "size of the ext4 run disk")->check(size_validator({}))->capture_default_str();
  app.add_option("--swap", swap, "swap in the guest, 0 for none")->check(size_validator({}))->capture_default_str();
  app.add_option("--swap-kind", options.swap_kind,
                 "zram, or disk (a swap file on the run disk); default: zram where the kernel has it")
      ->check(CLI::IsMember({"disk", "zram"}));
  app.add_flag("--zswap", options.zswap,
               "zswap in front of a disk swap (a kernel with CONFIG_ZSWAP: cgmem's own; docs/vm.md)");
  app.add_option("--timeout", timeout, "seconds before QEMU is stopped")->check(whole_number(1, 86400))->capture_default_str();
  app.add_flag("--keep", options.keep, "keep the initramfs and disk image");
  app.add_option("--kernel", options.kernel,
                 "boot this bzImage, a Debian cloud kernel (debian-6.12, the default, or debian-6.1), "
                 "or a kernel cgmem built (hz1000, hz1000-throttle): cgmem kernel list");
  app.add_option("--cgmem", options.cgmem, "the static cgmem to run in the guest")->check(CLI::ExistingFile);
  app.add_option("--script", options.script, "run `sh FILE ARGS...` in the guest instead of cgmem (cgmem is on PATH)")
      ->check(CLI::ExistingFile);
  app.add_option("--file", options.files, "copy FILE (or a directory) into /vm/in, on PATH in the guest")
      ->check(CLI::ExistingPath);
  app.add_option("--program", options.programs,
                 "bring host program NAME (PATH lookup) or PATH and the shared libraries it needs (read from its "
                 "ELF, as ld.so would find them) into the guest: /usr/local/bin/NAME, on PATH");
  app.add_option("--tree", options.trees,
                 "bring host directory DIR into the guest at the same path, on the run disk, with the libraries "
                 "its ELF files need (a JDK, PostgreSQL's lib and share dirs; docs/vm.md)");
  int stock_slots = 0;
  app.add_option("--stock-slots", stock_slots,
                 "append memcontrol.stock_slots=N (1..7) to the guest's kernel command line: the charge stock's "
                 "memcgs per CPU, on a kernel built with --patch memcg-stock-slots (docs/kernel.md)")
      ->check(whole_number(1, 7));
  app.add_option("--accel", accel, "kvm or tcg (default: kvm where it works)")->check(CLI::IsMember({"kvm", "tcg"}));
  app.add_flag("--json", json, "print the run's record as JSON on stderr instead of the summary line");
  std::vector<std::string> forwards;
  app.add_option("--forward", forwards,
                 "HOST_PORT:GUEST_PORT: forward 127.0.0.1:HOST_PORT on the host to the guest's port (repeatable)");
  // Everything from the first word that is not a vm option on (or after
  // --) is the inner command, its flags included: `cgmem vm host --json`.
  app.prefix_command();
  app.footer("Example: cgmem vm -- host --json");
  if (int code = parse(app, args); code >= 0) return code;
  options.command = app.remaining();
  if (!options.command.empty() && options.command.front() == "--") options.command.erase(options.command.begin());
  if (options.command.empty() && options.script.empty()) {
    print_error("nothing to run: give a command after --, e.g. cgmem vm -- version");
    return kUsage;
  }
  options.mem_bytes = limit_from(mem, {}).bytes();
  options.disk_bytes = limit_from(disk, {}).bytes();
  options.swap_bytes = limit_from(swap, {}).bytes();
  options.timeout = std::chrono::seconds(timeout);
  for (const std::string& text : forwards) {
    auto forward = parse_forward(text);
    if (!forward) return print_error(forward.error()), kUsage;
    options.forwards.push_back(*forward);
  }
  if (!accel.empty()) options.accel = accel == "kvm" ? vm::Accel::kvm : vm::Accel::tcg;
  if (!options.kernel.empty()) {
    auto choice = kernel::resolve_kernel(options.kernel);
    if (!choice) return print_error(choice.error()), kUsage;
    if (!choice->note.empty() && !json) fmt::print(stderr, "cgmem vm: note: {}\n", choice->note);
    options.kernel = choice->image;
    options.kernel_name = choice->name;
  }
  if (stock_slots) options.stock_slots = stock_slots;
  if (auto ok = vm::check_vm_stock_slots(options); !ok) return print_error(ok.error()), kUsage;

  catch_stop_signals();  // QEMU is ended by its PID, not killed with us
  auto progress = [json](const std::string& line) {
    if (!json) fmt::print(stderr, "cgmem vm: {}\n", line);
  };
  auto run = vm::run_vm(options, self_exe(""), progress, stop_flag());
  if (!run) {
    print_error(run.error());
    return stop_requested() ? kInterrupted : kUnavailable;
  }
  return report(options, *run, json);
}

}  // namespace cgmem::cli
