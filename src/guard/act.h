// Carrying out a decision: the only code in cgmem that kills a cgroup's
// tasks or rewrites memory.high on a schedule. Behind a small interface so
// the daemon's tests record the calls instead (STYLE: side effects behind an
// interface).
//
// The cgroupfs Actor opens ROOT + the row's path through the Cgroup handle
// (which refuses to write anywhere that is not cgroupfs) and re-reads before
// it acts:
//   - the directory must be the one scanned (same inode), else "replaced";
//   - a vanished cgroup is an outcome ("vanished"), not an error;
//   - kill: the cgroup must still have tasks, and for a throttle rule still be
//     over memory.high (or for a thrash rule still refaulting: its tasks are
//     still there), read now;
//   - raise/restore: memory.high must still read what the scan read, so a
//     change made meanwhile by someone else is never overwritten.
#pragma once

#include <string>

#include "cgroup/effects.h"
#include "guard/decide.h"
#include "model/kernel_rules.h"

namespace cgmem::guard {

struct ActResult {
  bool acted = false;     // the cgroup was changed
  std::string result;     // "killed", "memory.high 16M -> 18M", "vanished", "not over memory.high now: ...", "error: ..."
  // The fresh read behind it (when one was made).
  std::optional<uint64_t> current;
  std::optional<Limit> high;
  std::optional<uint64_t> tasks;
  // How memory.high was written, for the evidence line: "wrote memory.high
  // with O_NONBLOCK (no synchronous reclaim, 6.16+)" or why not. "" when
  // nothing was written.
  std::string write_mode;
};

class Actor {
 public:
  virtual ~Actor() = default;
  virtual ActResult act(const Decision& d) = 0;
};

// Acts on the cgroup2 tree under root (the scanner's --root). memory.high
// is written with O_NONBLOCK where the kernel (rules) honours it (6.16+), so
// the guard's own write never stalls in reclaim: the cgroup's tasks pay for
// reclaiming down to a lower memory.high, in their next charge.
class CgroupActor : public Actor {
 public:
  explicit CgroupActor(std::string root, model::KernelRules rules = model::default_rules(),
                       cgroup::Effects& effects = cgroup::system_effects())
      : root_(std::move(root)), rules_(rules), effects_(&effects) {}
  ActResult act(const Decision& d) override;

 private:
  std::string root_;
  model::KernelRules rules_;
  cgroup::Effects* effects_;
};

// The evidence words for a memory.high write under these rules.
std::string write_mode_text(const model::KernelRules& rules);

}  // namespace cgmem::guard
