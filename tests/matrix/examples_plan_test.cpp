// Every spec in examples/ planned as its docs say a user starts it, with
// `cgmem matrix --plan`: each run checked as `cgmem run` checks it on the
// machine the batch would run on (in the VM, the guest's RAM and CPUs),
// nothing run. A spec added to examples/ is checked here without a new test.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "support/run_cgmem.h"

namespace {

namespace fs = std::filesystem;

// The plan's checks are `cgmem run`'s: a cap `cgmem run` refuses is named
// with its flag, and CPUs are the guest's two.
TEST(ExamplesPlan, RunChecksNameTheFlagAndTheValue) {
  fs::path dir = fs::temp_directory_path() / "cgmem-plan-checks";
  fs::create_directories(dir);
  std::ofstream(dir / "s.toml") << "reps = 1\n[defaults]\ncpu = 3\n[[configs]]\nname = \"max\"\nmax = \"32M\"\n"
                                   "[[workloads]]\nname = \"w\"\nargs = [\"--target\", \"40M\"]\n"
                                   "[[workloads]]\nname = \"fast\"\ncpu = 0\ninterval = \"5ms\"\n"
                                   "args = [\"--target\", \"40M\"]\n"
                                   "[[workloads]]\nname = \"ok\"\ncpu = 1\nargs = [\"--target\", \"40M\"]\n";
  auto out = cgmem::testing::run_cgmem_split("matrix " + (dir / "s.toml").string() + " --vm --plan --out " +
                                             (dir / "b").string());
  EXPECT_EQ(out.code, 2) << out.out << out.err;
  EXPECT_NE(out.out.find("refused w-max-r1: --cpu 3: this machine has CPUs 0 to 1\n"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("refused fast-max-r1: --interval is below 10ms (the sampler would cost more than it shows)\n"),
            std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("run     ok-max-r1: cgmem run --name ok-max-r1 --out " + (dir / "b/ok-max-r1").string() +
                         " --cpu 1 --max 32M --quiet -- --target 40M\n"),
            std::string::npos)
      << out.out;
  EXPECT_FALSE(fs::exists(dir / "b"));
  fs::remove_all(dir);
}

}  // namespace
