#include "vm/qemu.h"

#include <fcntl.h>
#include <unistd.h>

#include "common/fd.h"
#include "common/process.h"

namespace cgmem::vm {

const char* accel_name(Accel accel) { return accel == Accel::kvm ? "kvm" : "tcg"; }

std::string kernel_cmdline(Accel accel) {
  return std::string("console=ttyS0 quiet psi=1 panic=-1 cgmem.accel=") + accel_name(accel);
}

std::vector<std::string> qemu_argv(const QemuSpec& spec) {
  std::string cmdline = kernel_cmdline(spec.accel);
  for (const auto& word : spec.kernel_args) cmdline += " " + word;
  std::vector<std::string> argv = {kQemu};
  if (spec.accel == Accel::kvm) {
    argv.insert(argv.end(), {"-accel", "kvm", "-cpu", "host"});
  } else {
    argv.insert(argv.end(), {"-accel", "tcg", "-cpu", "max"});
  }
  argv.insert(argv.end(), {
      "-m", std::to_string(spec.mem_bytes >> 20) + "M",
      "-smp", std::to_string(spec.cpus),
      "-nodefaults", "-display", "none", "-no-reboot",
      "-kernel", spec.kernel,
      "-initrd", spec.initrd,
      "-append", cmdline,
      "-serial", "file:" + spec.console_log,
      "-chardev", "stdio,id=stderr,signal=off",
      "-serial", "chardev:stderr",
      "-drive", "file=" + spec.disk + ",format=raw,if=virtio",
  });
  if (!spec.forwards.empty()) {
    // The guest is 10.0.2.15 on QEMU's user network; /init sets it up when it finds eth0.
    std::string netdev = "user,id=net0,restrict=on";
    for (const PortForward& f : spec.forwards)
      netdev += ",hostfwd=tcp:127.0.0.1:" + std::to_string(f.host_port) + "-:" + std::to_string(f.guest_port);
    argv.insert(argv.end(), {"-netdev", netdev, "-device", "virtio-net-pci,netdev=net0"});
  }
  return argv;
}

Accel probe_accel() {
  if (access("/dev/kvm", R_OK | W_OK) != 0) return Accel::tcg;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Accel::tcg;
  Fd commands_in(fds[0]), commands_out(fds[1]);
  auto qemu = Process::start({.argv = {kQemu, "-accel", "kvm", "-cpu", "host", "-m", "64M", "-nodefaults",
                                       "-display", "none", "-S", "-monitor", "stdio", "-serial", "none"},
                              .stdin_fd = commands_in.get(),
                              .stdout_fd = kDevNull,
                              .stderr_fd = kDevNull});
  if (!qemu) return Accel::tcg;
  commands_in.reset();
  (void)!write(commands_out.get(), "quit\n", 5);
  commands_out.reset();
  return qemu->wait() == 0 ? Accel::kvm : Accel::tcg;
}

}  // namespace cgmem::vm
