// What `cgmem matrix --vm` hands `cgmem vm` for a workload that is the
// user's program (src/cli/matrix_vm.cpp): its programs, its trees once
// each, and the host's builds as /vm/in/build for the guest's matrix.
#include <gtest/gtest.h>

#include <algorithm>

#include "cli/matrix_vm.h"
#include "matrix/spec.h"

namespace {

int count(const std::vector<std::string>& args, const std::string& flag, const std::string& value) {
  int n = 0;
  for (size_t i = 0; i + 1 < args.size(); ++i) n += args[i] == flag && args[i + 1] == value;
  return n;
}

TEST(MatrixVmArguments, TreesOnceProgramsAsListedAndTheBuildsComeIn) {
  auto spec = cgmem::matrix::parse_spec(R"(name = "jvm"
[[configs]]
name = "none"
[[workloads]]
name = "a"
command = ["/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "-cp", "{build}", "Cache"]
load = ["sh", "-c", "while wrk http://127.0.0.1:8080/; do :; done"]
programs = ["wrk"]
trees = ["/usr/lib/jvm/java-17-openjdk-amd64/lib", "/usr/lib/jvm/java-17-openjdk-amd64/bin"]
build = ["javac", "-d", "{build}", "Cache.java"]
[[workloads]]
name = "b"
command = ["/usr/lib/postgresql/15/bin/postgres"]
programs = []
trees = ["/usr/lib/jvm/java-17-openjdk-amd64/lib"]
[[workloads]]
name = "c"
command = ["redis-server"]
load = ["redis-benchmark"]
)", "/specs/jvm.toml");
  ASSERT_TRUE(spec) << spec.error().message();
  cgmem::cli::MatrixFlags f;
  f.built = "/tmp/cgmem-matrix-build-x/build";
  auto args = cgmem::cli::vm_arguments(f, *spec, "/out", "", 60);
  auto split = std::ranges::find(args, "--");
  std::vector<std::string> vm(args.begin(), split), inner(split + 1, args.end());
  EXPECT_EQ(count(vm, "--tree", "/usr/lib/jvm/java-17-openjdk-amd64/lib"), 1);
  EXPECT_EQ(count(vm, "--tree", "/usr/lib/jvm/java-17-openjdk-amd64/bin"), 1);
  EXPECT_EQ(count(vm, "--program", "wrk"), 1);
  EXPECT_EQ(count(vm, "--program", "sh"), 0);  // listed programs replace the default
  EXPECT_EQ(count(vm, "--program", "/usr/lib/postgresql/15/bin/postgres"), 0);  // programs = []
  EXPECT_EQ(count(vm, "--program", "redis-server"), 1);  // the default: command[0] and load[0]
  EXPECT_EQ(count(vm, "--program", "redis-benchmark"), 1);
  EXPECT_EQ(count(vm, "--file", "/tmp/cgmem-matrix-build-x/build"), 1);
  EXPECT_EQ(count(inner, "--built", "/vm/in/build"), 1);
}

}  // namespace
