// A throttled cgroup (tests/fixtures/cgroup-v2-6.12-throttled/lab-run1) and
// its process's /proc files, copied to a temp dir so tests may change them.
#pragma once

#include <filesystem>
#include <string>

#include "support/fixture.h"

namespace cgmem::testing {

struct ThrottledTree {
  TempDir tmp;
  std::string cgroup;     // TMP/cg: every control file, writable copies
  std::string proc_root;  // TMP/proc: 158/stat and 158/wchan

  ThrottledTree() {
    cgroup = tmp.copy_fixture("cgroup-v2-6.12-throttled/lab-run1", "cg");
    for (auto& entry : std::filesystem::directory_iterator(cgroup))
      std::filesystem::permissions(entry.path(), std::filesystem::perms::owner_write,
                                   std::filesystem::perm_options::add);
    proc_root = tmp.path() + "/proc";
    std::filesystem::create_directories(proc_root + "/158");
    spit(proc_root + "/158/stat", fixture("cgroup-v2-6.12-throttled/proc/stat"));
    spit(proc_root + "/158/wchan", fixture("cgroup-v2-6.12-throttled/proc/wchan"));
  }
};

}  // namespace cgmem::testing
