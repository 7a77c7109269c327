// `cgmem gc --parent DIR` on a plain directory must not read a cgroup.procs
// there and SIGKILL the pids it lists: nothing outside a cgroup2 file
// system is read for pids, signalled or removed.
#include "lab/gc.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cgroup/cgroup.h"
#include "support/temp_dir.h"

namespace cgmem::lab {
namespace {

// A child that sleeps until the test ends it; the pid a plain directory's
// cgroup.procs names.
struct Sleeper {
  pid_t pid = ::fork();
  Sleeper() {
    if (pid == 0) {
      ::pause();
      ::_exit(0);
    }
  }
  ~Sleeper() {
    ::kill(pid, SIGTERM);
    ::waitpid(pid, nullptr, 0);
  }
  bool alive() const { return ::kill(pid, 0) == 0; }
};

void plant_cgroup(const std::string& dir, pid_t pid) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/cgroup.procs") << pid << "\n";
  std::ofstream(dir + "/cgroup.kill") << "";
  std::ofstream(dir + "/cgroup.events") << "populated 1\nfrozen 0\n";
}

TEST(Gc, RefusesAParentThatIsNotOnCgroupfs) {
  testing::TempDir tmp;
  Sleeper victim;
  plant_cgroup(tmp.path() + "/run-1", victim.pid);
  auto entries = collect_garbage(tmp.path(), false);
  ASSERT_FALSE(entries);
  EXPECT_EQ(entries.error().message(),
            "collect garbage under: not a cgroup (not on a cgroup2 file system): " + tmp.path() +
                " (give a directory under the cgroup2 mount; `cgmem host` shows where it is)");
  EXPECT_TRUE(victim.alive());
  EXPECT_TRUE(std::filesystem::exists(tmp.path() + "/run-1"));
}

TEST(Gc, TheHandleRefusesToActOnAPlainDirectory) {
  testing::TempDir tmp;
  Sleeper victim;
  plant_cgroup(tmp.path() + "/cg", victim.pid);
  auto cg = cgroup::Cgroup::open(tmp.path() + "/cg");
  ASSERT_TRUE(cg) << cg.error().message();
  EXPECT_EQ(*cg->procs(), std::vector<pid_t>{victim.pid});  // reading a copy is fine
  auto killed = cg->kill_all();
  ASSERT_FALSE(killed);
  EXPECT_EQ(killed.error().what, "kill every process: not a cgroup (not on a cgroup2 file system)");
  EXPECT_FALSE(cg->remove());
  EXPECT_FALSE(cg->write("cgroup.procs", "1"));
  EXPECT_FALSE(cg->create_child("x"));
  EXPECT_FALSE(cg->spawn({.argv = {"/bin/true"}}));
  EXPECT_TRUE(victim.alive());
  std::ifstream procs(tmp.path() + "/cg/cgroup.procs");
  std::string text((std::istreambuf_iterator<char>(procs)), {});
  EXPECT_EQ(text, std::to_string(victim.pid) + "\n");  // nothing written
}

}  // namespace
}  // namespace cgmem::lab
