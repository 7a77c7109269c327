#include "vm/qemu.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace cgmem::vm {

const char* accel_name(Accel accel) { return accel == Accel::kvm ? "kvm" : "tcg"; }

std::string kernel_cmdline(Accel accel) {
  return std::string("console=ttyS0 quiet psi=1 panic=-1 cgmem.accel=") + accel_name(accel);
}

std::vector<std::string> qemu_argv(const QemuSpec& spec) {
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
      "-append", kernel_cmdline(spec.accel),
      "-serial", "file:" + spec.console_log,
      "-chardev", "stdio,id=stderr,signal=off",
      "-serial", "chardev:stderr",
      "-drive", "file=" + spec.disk + ",format=raw,if=virtio",
  });
  return argv;
}

Accel probe_accel() {
  if (access("/dev/kvm", R_OK | W_OK) != 0) return Accel::tcg;
  int in[2];
  if (pipe(in) != 0) return Accel::tcg;
  pid_t pid = fork();
  if (pid < 0) return Accel::tcg;
  if (pid == 0) {
    dup2(in[0], 0);
    int null_fd = open("/dev/null", O_WRONLY);
    dup2(null_fd, 1);
    dup2(null_fd, 2);
    close(in[1]);
    execlp(kQemu, kQemu, "-accel", "kvm", "-cpu", "host", "-m", "64M", "-nodefaults", "-display",
           "none", "-S", "-monitor", "stdio", "-serial", "none", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in[0]);
  (void)!write(in[1], "quit\n", 5);
  close(in[1]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? Accel::kvm : Accel::tcg;
}

}  // namespace cgmem::vm
