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

#include "guard/decide.h"

namespace cgmem::guard {

struct Outcome {
  bool acted = false;     // the cgroup was changed
  std::string result;     // "killed", "memory.high 16M -> 18M", "vanished", "not over memory.high now: ...", "error: ..."
  // The fresh read behind it (when one was made).
  std::optional<uint64_t> current;
  std::optional<Limit> high;
  std::optional<uint64_t> tasks;
};

class Actor {
 public:
  virtual ~Actor() = default;
  virtual Outcome act(const Decision& d) = 0;
};

// Acts on the cgroup2 tree under root (the scanner's --root).
class CgroupActor : public Actor {
 public:
  explicit CgroupActor(std::string root) : root_(std::move(root)) {}
  Outcome act(const Decision& d) override;

 private:
  std::string root_;
};

}  // namespace cgmem::guard
