// QEMU's command line for the guest, and the probe that picks KVM or TCG.
//
// ttyS0 (the console: kernel messages and /init's "cgmem-vm:" lines) goes to
// a log file; ttyS1 (the inner command's stderr) goes to QEMU's stdout, which
// cgmem points at its own stderr, so progress of a long run shows live.
// -no-reboot turns the guest's `reboot -f` (and a panic, with panic=-1) into
// QEMU exiting, which works with or without ACPI in the kernel.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cgmem::vm {

enum class Accel { kvm, tcg };

// --forward HOST_PORT:GUEST_PORT
struct PortForward {
  int host_port = 0;
  int guest_port = 0;
};

const char* accel_name(Accel accel);

struct QemuSpec {
  Accel accel = Accel::tcg;
  std::string kernel;       // bzImage, or a vmlinux with a PVH note
  std::string initrd;       // initramfs.gz
  std::string disk;         // ext4 image, raw, virtio
  std::string console_log;  // ttyS0 goes here
  uint64_t mem_bytes = 512ull << 20;
  unsigned cpus = 2;
  // TCP ports forwarded from the host's 127.0.0.1 into the guest (QEMU user
  // networking, restrict=on: the guest reaches nothing outside). Empty: no NIC.
  std::vector<PortForward> forwards;
  // Words appended to kernel_cmdline ("memcontrol.stock_slots=4").
  std::vector<std::string> kernel_args;
};

inline constexpr const char* kQemu = "qemu-system-x86_64";

std::vector<std::string> qemu_argv(const QemuSpec& spec);

// The kernel command line: console on ttyS0, quiet, PSI on, reboot on panic,
// and cgmem.accel=kvm|tcg, which the guest's host probe reports as
// `virtualized` (run directories record it).
std::string kernel_cmdline(Accel accel);

// Tries KVM the way a run would use it (-accel kvm -cpu host, CPUs stopped
// with -S) and quits through the monitor: exit code 0 means KVM works.
// Where /dev/kvm is missing, or QEMU fails (e.g. "failed to set MSR 0x10a"
// on a nested host), the answer is TCG. Takes about 50 ms.
Accel probe_accel();

}  // namespace cgmem::vm
