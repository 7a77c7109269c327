// Patterns on cgroup paths: POSIX extended syntax still works, hostile
// patterns and paths end quickly, and every refusal names the flag.
#include "common/pattern.h"

#include <gtest/gtest.h>

#include <chrono>

namespace cgmem {
namespace {

Pattern must(std::string_view text) {
  auto p = Pattern::compile(text, "--match");
  EXPECT_TRUE(p) << p.error().message();
  return p ? *p : Pattern();
}

TEST(Pattern, ExtendedSyntaxSearchesAnywhere) {
  EXPECT_TRUE(must("kubepods|system.slice").search("/system.slice/cron.service"));
  EXPECT_TRUE(must("^/jobs/[[:alnum:]_-]+$").search("/jobs/leak_1"));
  EXPECT_FALSE(must("^/jobs/[[:alnum:]_-]+$").search("/jobs/a/b"));
  EXPECT_TRUE(must("b{2,3}").search("/abbb"));
  EXPECT_TRUE(must("").search("/anything"));
  EXPECT_TRUE(Pattern().search(""));
  EXPECT_EQ(must("^/a").text(), "^/a");
}

TEST(Pattern, HostileInputEndsQuickly) {
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(must("(a+)+$").search(std::string(40, 'a') + "b"));
  EXPECT_FALSE(must("(x+x+)+y").search(std::string(100'000, 'x')));
  EXPECT_TRUE(must("^/.*$").search("/" + std::string(30'000, 'd')));
  EXPECT_TRUE(must("^/.*$").search("/" + std::string(1'000'000, 'd')));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(Pattern, RefusalsNameTheFlagAndSayWhy) {
  auto bad = Pattern::compile("(", "--match");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(),
            "--match '(' is not a regular expression: missing ): ( (RE2 syntax (POSIX extended and Perl's \\d \\w "
            "\\s), e.g. 'kubepods|system\\.slice')");
  auto huge = Pattern::compile(std::string(100'000, 'a'), "--match");
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().message(),
            "--match 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' (100000 characters) is longer than 16384 "
            "characters (match a shorter pattern, e.g. a common prefix ('^/kubepods') instead of every name)");
  // Within the length, a pattern too large to compile is refused too.
  auto big = Pattern::compile("((((a{100}){100}){100}){100})", "--match");
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().message(),
            "--match '((((a{100}){100}){100}){100})' is not a regular expression: invalid repetition size: {100} "
            "(RE2 syntax (POSIX extended and Perl's \\d \\w \\s), e.g. 'kubepods|system\\.slice')");
}

}  // namespace
}  // namespace cgmem
