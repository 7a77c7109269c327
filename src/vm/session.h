// One `cgmem vm` run, start to end: find the static cgmem, busybox and the
// kernel; build the initramfs and the run disk; boot QEMU (KVM where it
// works, else TCG); watch the console; stop QEMU on a timeout or a signal;
// read the results back from the disk; remove the temporary files.
//
// Files on the host, for --out DIR:
//   DIR/               what the inner command wrote in its working directory
//   DIR.console.log    the guest console (kernel messages, /init's lines)
//   DIR.vm.json        the record of the run: kernel, accel, boot time, guest facts
#pragma once

#include <chrono>
#include <csignal>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "vm/built.h"
#include "vm/kernel.h"
#include "vm/qemu.h"

namespace cgmem::vm {

struct VmOptions {
  std::vector<std::string> command;  // the inner cgmem's arguments ("version", "--json")
  std::string script;                // --script FILE: run `sh FILE command...` instead
  std::vector<std::string> files;    // --file: copied into /vm/in, on PATH in the guest
  std::vector<std::string> programs; // --program: a host program and its libraries (program_files.h)
  std::vector<std::string> trees;    // --tree: a host directory at the same path, on the run disk (tree_files.h)
  std::string out_dir;               // --out; empty: ./cgmem-vm-YYYYMMDD-HHMMSS
  uint64_t mem_bytes = 512ull << 20;
  unsigned cpus = 2;
  uint64_t disk_bytes = 1ull << 30;
  uint64_t swap_bytes = 0;
  std::string swap_kind;             // --swap-kind: "disk", "zram", or "" (zram where the kernel has it; vm/swap.h)
  bool zswap = false;                // --zswap: zswap in front of a disk swap
  std::chrono::seconds timeout{600};
  bool keep = false;                 // keep the work directory (images)
  std::string kernel;                // --kernel bzImage; empty: a Debian kernel (kernel_name, default debian-6.12)
  std::string kernel_name;           // the name --kernel NAME was resolved from ("hz1000", "debian-6.1"), or empty
  std::string cgmem;                 // --cgmem static binary; empty: found (see locate.h)
  std::optional<Accel> accel;        // forced; empty: probe
  std::vector<PortForward> forwards; // --forward: host 127.0.0.1 ports into the guest (virtio_net)
  // --stock-slots N (1..7): memcontrol.stock_slots=N on the guest's kernel
  // command line; refused unless the kernel has the memcg-stock-slots patch
  // (vm/built.h, check_stock_slots).
  std::optional<int> stock_slots;
};

// A boot whose guest kernel died before the command started.
struct FailedBoot {
  std::string console_log;     // its console, kept as DIR.bootN.console.log (empty: not kept, e.g. a file of that name was there)
  std::string error;           // its "Oops: ..." line, or the KVM failure (kvm_failure) after which TCG booted it
};

struct VmRun {
  int exit_code = -1;          // the inner command's, or -1 when it did not finish
  bool timed_out = false;
  bool interrupted = false;
  std::string guest_error;     // why the guest stopped early, from its console
  std::string stdout_bytes;    // the inner command's stdout
  std::string out_dir, console_log, record;
  std::string record_error;    // why `record` could not be written, if it could not
  std::string work_dir;        // kept images, when --keep
  Accel accel = Accel::tcg;
  std::string accel_note;      // why TCG was chosen without a probe (kvm_memory.h), or empty
  GuestKernel kernel;
  BuiltKernel built;           // its build.json's facts (found = false: not a kernel cgmem built)
  SlotsInEffect stock_slots;   // the charge stock's slots per CPU the guest was booted with
  double boot_seconds = -1;    // QEMU start to "cgmem-vm: running" (-1: never)
  double total_seconds = 0;    // QEMU start to QEMU exit
  std::string swap_kind;       // what the guest set up: "none", "disk" or "zram" (vm/swap.h)
  std::map<std::string, std::string> guest;  // guest.env: kernel_release, thp_enabled, ...
  std::vector<FailedBoot> failed_boots;      // booted again after these (at most two)
};

// The memory.max of /sys/fs/cgroup/cgmem in a guest with `mem_bytes` of RAM:
// three quarters of it, rounded down to a page.
uint64_t parent_cap(uint64_t mem_bytes);

// The RAM (MemTotal) a guest booted with `mem_bytes` reports, at least: less
// than it was given, as its kernel keeps its own image, its page structs (64
// bytes per 4 KiB page, a 64th) and reserved ranges. A 512 MiB guest of
// Debian's 6.12 cloud kernel reported MemTotal 472164 kB (461.1 MiB), a
// 1 GiB one 991088 kB (967.9 MiB), and a 1 GiB one of cgmem's hz1000-throttle
// kernel 1019008 kB (995.1 MiB), measured 2026-12-01 with `cgmem vm --mem 1G
// -- host --json`; this takes a 64th and 48 MiB off (456 MiB of 512, 960 MiB
// of 1 GiB), so a check against it refuses what the guest's `cgmem run`
// would refuse.
uint64_t guest_mem_total(uint64_t mem_bytes);

// --stock-slots against the kernel the options name, before anything is
// fetched or built: Debian's default (options.kernel empty) and a bzImage
// without a build.json are refused, as is a 6.16+ kernel. Nothing to check
// without --stock-slots.
Result<void> check_vm_stock_slots(const VmOptions& options);

// The words run_vm appends to the kernel command line.
std::vector<std::string> kernel_args(const VmOptions& options);

// The text of /cgmem-vm/command.sh for these options.
std::string command_script(const VmOptions& options);

// "key=value" lines -> map; lines without '=' are skipped.
std::map<std::string, std::string> parse_env(const std::string& text);

// The first "cgmem-vm: error: ..." line of a console log, else its first
// "Oops: ..." line, else a kernel panic line, else empty.
std::string guest_error_from_console(const std::string& console);

// The "Oops: ..." line of a console whose guest kernel died before the
// command started ("cgmem-vm: running" never printed), else empty. Such a
// boot ran nothing of the command: run_vm boots again, up to 3 boots in all
// (and after a KVM failure, under TCG).
std::string oops_before_command(const std::string& console);

// "KVM internal error. Suberror: N (emulation failure)" when QEMU's own
// messages say KVM could not run the guest, else empty. QEMU then pauses the
// guest for good instead of exiting.
std::string kvm_failure(const std::string& qemu_messages);

// `stop` is polled while QEMU runs (a SIGINT handler sets it). `self` is the
// running cgmem (/proc/self/exe).
Result<VmRun> run_vm(const VmOptions& options, const std::string& self, const Progress& progress,
                     const volatile std::sig_atomic_t* stop);

}  // namespace cgmem::vm
