// Untrusted input is bounded before a parser sees it.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "managers/input.h"
#include "managers/kubelet.h"

namespace cgmem::managers {
namespace {

TEST(Input, DeepFlowYamlFailsFastBeforeParsing) {
  std::string deep(1000, '[');
  auto r = check_yaml_shape(deep, "pod.yaml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().what, "pod.yaml:1: YAML nested deeper than 64 levels");
  // 4 MiB of brackets (the most cgmem reads) is refused by the scan alone.
  std::string big(kMaxInputBytes, '[');
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(parse_pod_yaml(big, "big.yaml"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  std::string over(kMaxInputBytes + 1, ' ');
  auto too_big = check_yaml_shape(over, "x.yaml");
  ASSERT_FALSE(too_big);
  EXPECT_EQ(too_big.error().what, "x.yaml: 4194305 bytes of YAML, more than the 4194304 cgmem reads");
}

TEST(Input, DeepBlockYamlAndAliases) {
  std::string block;
  for (int i = 0; i < 200; ++i) block += "- ";
  block += "x\n";
  EXPECT_FALSE(check_yaml_shape(block, "b.yaml"));
  std::string aliases = "a: &a 1\nb: [";
  for (int i = 0; i < 1001; ++i) aliases += "*a, ";
  aliases += "]\n";
  auto r = check_yaml_shape(aliases, "c.yaml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().what, "c.yaml: more than 1000 YAML aliases");
  // Brackets in quotes and comments do not count; ordinary files pass.
  EXPECT_TRUE(check_yaml_shape("a: '[[[[[['\n# {{{{{{{\nb: \"]]\"\n", "ok.yaml"));
  EXPECT_TRUE(check_yaml_shape("spec:\n  containers:\n  - name: a\n    resources: {limits: {memory: 1Gi}}\n",
                               "pod.yaml"));
}

TEST(Input, FilesAreBounded) {
  auto dir = read_input_file(::testing::TempDir());
  ASSERT_FALSE(dir);
  EXPECT_EQ(dir.error().err, EISDIR);
  std::string path = ::testing::TempDir() + "input_test_big";
  std::ofstream(path) << std::string(100, 'x');
  auto big = read_input_file(path, 50);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().err, EFBIG);
  EXPECT_EQ(read_input_file(path, 100).value().size(), 100u);
  auto missing = read_input_file("/nonexistent/x");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message(), "read: /nonexistent/x: No such file or directory");
}

}  // namespace
}  // namespace cgmem::managers
