// A workload's `build` and `trees` (docs/matrix.md): the spec keys, {build}
// in the plan, and the build itself, run for real in a temporary directory.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "common/file.h"
#include "matrix/build.h"
#include "matrix/plan.h"
#include "matrix/spec.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using namespace cgmem::matrix;

namespace {

constexpr const char* kSpec = R"(
reps = 1
[[configs]]
name = "none"
[[workloads]]
name = "svc"
build = ["sh", "-c", "printf '#!/bin/sh\necho built\n' > \"$0/svc\" && chmod +x \"$0/svc\"", "{build}"]
command = ["{build}/svc", "--data", "{batch}"]
load = ["wrk", "http://127.0.0.1:8080/"]
programs = []
trees = ["/usr/lib/jvm/java-17-openjdk-amd64/lib"]
ready_tcp = 8080
)";

std::string error_of(const std::string& text) {
  auto spec = parse_spec(text, "s.toml");
  return spec ? "" : spec.error().message();
}

TEST(MatrixBuild, TheSpecKeysAndBuildInThePlan) {
  auto spec = parse_spec(kSpec, "/specs/s.toml");
  ASSERT_TRUE(spec) << spec.error().message();
  const WorkloadSpec& w = spec->workloads[0];
  ASSERT_TRUE(w.programs);  // programs = []: none, not the default
  EXPECT_TRUE(w.programs->empty());
  EXPECT_EQ(w.trees, std::vector<std::string>{"/usr/lib/jvm/java-17-openjdk-amd64/lib"});
  EXPECT_EQ(w.build.size(), 4u);
  EXPECT_TRUE(has_builds(*spec));
  auto natively = plan(*spec, {.batch_dir = "/b"});
  ASSERT_EQ(natively.size(), 1u);
  EXPECT_EQ(natively[0].command, (std::vector<std::string>{"/b/build/svc/svc", "--data", "/b"}));
  auto in_vm = plan(*spec, {.batch_dir = "/vm/out", .build_root = "/vm/in/build"});
  EXPECT_EQ(in_vm[0].command.front(), "/vm/in/build/svc/svc");
  EXPECT_NE(error_of("[[configs]]\nname = \"a\"\n[[workloads]]\nname = \"w\"\ncommand = [\"p\"]\ntrees = [\"usr/lib\"]\n")
                .find("workload w: tree 'usr/lib' is not an absolute path"),
            std::string::npos);
  EXPECT_NE(error_of("[[configs]]\nname = \"a\"\n[[workloads]]\nname = \"w\"\nargs = [\"--target\", \"1M\"]\nbuild = [\"make\"]\n")
                .find("load, programs, trees, build, ready_tcp and ready_delay go with command"),
            std::string::npos);
  EXPECT_NE(error_of("[[configs]]\nname = \"a\"\n[[workloads]]\nname = \"w\"\ncommand = [\"p\"]\nbuild = [\"\"]\n")
                .find("workload w: build[0], the program, is empty"),
            std::string::npos);
}

using cgmem::testing::TempDir;

TEST(MatrixBuild, BuildsRunInTheSpecsDirectoryIntoBuild) {
  TempDir dir;
  std::string text = kSpec;
  // The build also proves where it ran: the spec's directory.
  text.replace(text.find("chmod +x"), 8, "pwd > $0/where && chmod +x");
  ASSERT_TRUE(cgmem::write_file(dir.path() + "/s.toml", text));
  auto spec = load_spec(dir.path() + "/s.toml");
  ASSERT_TRUE(spec) << (spec ? "" : spec.error().message());
  PlanOptions o{.batch_dir = dir.path() + "/batch"};
  std::vector<std::string> lines;
  auto built = build_workloads(*spec, o, [&](const std::string& line) { lines.push_back(line); });
  ASSERT_TRUE(built) << built.error().message();
  std::string out = dir.path() + "/batch/build/svc";
  EXPECT_TRUE(fs::exists(out + "/svc"));
  EXPECT_EQ(cgmem::read_file_or_empty(out + "/where"), fs::canonical(dir.path()).string() + "\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("building svc: sh -c", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind("built svc in ", 0), 0u) << lines[1];
}

TEST(MatrixBuild, AFailedBuildStopsWithItsOutput) {
  TempDir dir;
  std::string text = kSpec;
  text.replace(text.find("printf"), 6, "echo no compiler here >&2; exit 7; printf");
  ASSERT_TRUE(cgmem::write_file(dir.path() + "/s.toml", text));
  auto spec = load_spec(dir.path() + "/s.toml");
  ASSERT_TRUE(spec) << spec.error().message();
  std::vector<std::string> lines;
  auto built = build_workloads(*spec, {.batch_dir = dir.path() + "/batch"}, [&](const std::string& line) { lines.push_back(line); });
  ASSERT_FALSE(built);
  EXPECT_NE(built.error().message().find("the build of workload svc exited with 7 (its output is above)"), std::string::npos)
      << built.error().message();
  EXPECT_NE(std::find(lines.begin(), lines.end(), "build svc: no compiler here"), lines.end());
}

}  // namespace
