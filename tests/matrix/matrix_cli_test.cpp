// `cgmem matrix` as a user sees it, for what needs no kernel.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace {

struct Output {
  std::string text;
  int code;
};

Output run(const std::string& args) {
  std::string command = std::string(CGMEM_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string text;
  std::array<char, 4096> buffer;
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) text.append(buffer.data(), n);
  int status = pclose(pipe);
  return {text, WEXITSTATUS(status)};
}

TEST(MatrixCli, ResumeNeedsOut) {
  auto out = run("matrix " + std::string(CGMEM_SOURCE_DIR) + "/examples/quick.toml --resume");
  EXPECT_EQ(out.code, 2);
  EXPECT_EQ(out.text, "cgmem: error: --resume needs --out: the batch directory to finish\n");
}

TEST(MatrixCli, ABadSpecIsAUsageError) {
  std::string path = "/tmp/cgmem-matrix-cli-bad.toml";
  std::ofstream(path) << "[[configs]]\nname = \"a\"\nmax = \"lots\"\n[[workloads]]\nname = \"w\"\n";
  auto out = run("matrix " + path + " --native");
  EXPECT_EQ(out.code, 2);
  EXPECT_EQ(out.text, "cgmem: error: matrix spec: config a.max: 'lots' is not a valid value: " + path +
                          " (see docs/matrix.md for the format)\n");
  std::filesystem::remove(path);
}

TEST(MatrixCli, VmAndNativeExcludeEachOther) {
  auto out = run("matrix x.toml --vm --native");
  EXPECT_EQ(out.code, 2);
  EXPECT_EQ(out.text, "cgmem: error: --vm and --native exclude each other\n");
}

}  // namespace
