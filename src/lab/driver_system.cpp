#include "lab/driver_system.h"

namespace cgmem::lab {

namespace {

class CgroupSpawner final : public Spawner {
 public:
  Result<pid_t> spawn(const cgroup::Cgroup& into, const cgroup::SpawnOptions& options) override {
    return into.spawn(options);
  }
};

}  // namespace

Spawner& system_spawner() {
  static CgroupSpawner spawner;
  return spawner;
}

}  // namespace cgmem::lab
