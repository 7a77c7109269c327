// Starting a process inside a cgroup, through the one launcher
// (common/process.h): clone3(CLONE_INTO_CGROUP) creates the child directly in
// the cgroup, so not one page it touches is charged elsewhere; where the
// kernel lacks it the child joins through cgroup.procs before exec.
#include "cgroup/cgroup.h"
#include "common/process.h"

namespace cgmem::cgroup {

Result<pid_t> Cgroup::spawn(const SpawnOptions& options, SpawnMethod* method) const {
  if (options.argv.empty()) return fail("spawn: no command given");
  const std::string& program = options.argv[0];
  if (auto ok = require_cgroupfs("spawn " + program); !ok) return std::unexpected(ok.error());
  auto child = Process::start({.argv = options.argv,
                               .stdin_fd = options.stdin_fd,
                               .stdout_fd = options.stdout_fd,
                               .stderr_fd = options.stderr_fd,
                               .cgroup_fd = fd_.get(),
                               .what = "spawn " + program,
                               .error_path = path_});
  if (!child) return std::unexpected(child.error());
  if (method) *method = child->cloned_into_cgroup() ? SpawnMethod::clone_into_cgroup : SpawnMethod::fork_and_move;
  return child->release();
}

}  // namespace cgmem::cgroup
