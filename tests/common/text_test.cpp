#include "common/text.h"

#include <gtest/gtest.h>

namespace cgmem {
namespace {

TEST(Text, TrimTakesSpacesTabsAndNewlines) {
  EXPECT_EQ(trim_end("max\n"), "max");
  EXPECT_EQ(trim(" \t67108864 \r\n"), "67108864");
  EXPECT_EQ(trim(" \n "), "");
}

TEST(Text, WholeNumbersOnly) {
  EXPECT_EQ(to_u64("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(to_u64("18446744073709551616"), std::nullopt);  // overflow
  for (auto bad : {"", "-1", "+1", " 1", "1 ", "1k", "0x10"}) EXPECT_EQ(to_u64(bad), std::nullopt) << bad;
  EXPECT_EQ(to_i64("-1"), -1);
  EXPECT_EQ(to_i64("268435456"), 268435456);
  EXPECT_EQ(to_i64("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(to_i64("9223372036854775808"), std::nullopt);  // overflow
  for (auto bad : {"", "-", "+1", "--1", " 1", "1MB", "-x"}) EXPECT_EQ(to_i64(bad), std::nullopt) << bad;
}

TEST(Text, LimitsAndDecimals) {
  EXPECT_EQ(to_limit("max"), Limit::max());
  EXPECT_EQ(to_limit("4096"), Limit::of(4096));
  EXPECT_EQ(to_limit("Max"), std::nullopt);
  EXPECT_EQ(to_double("48.30"), 48.30);
  for (auto bad : {"", "-1.0", "inf", "nan", "1e3", "0x1p3"}) EXPECT_EQ(to_double(bad), std::nullopt) << bad;
}

TEST(Text, TokensLinesAndWords) {
  std::string_view rest = "some avg10=0.00  total=7\nfull x";
  EXPECT_EQ(next_line(rest), "some avg10=0.00  total=7");
  EXPECT_EQ(rest, "full x");
  std::string_view tokens = "254:0  rbytes=1 wbytes=2";
  EXPECT_EQ(next_token(tokens), "254:0");
  EXPECT_EQ(next_token(tokens), "rbytes=1");
  EXPECT_EQ(next_token(tokens), "wbytes=2");
  EXPECT_EQ(next_token(tokens), "");
  std::string_view words = "\talways [madvise]  never";
  EXPECT_EQ(next_word(words), "always");
  EXPECT_EQ(next_word(words), "[madvise]");
  EXPECT_EQ(next_word(words), "never");
  EXPECT_EQ(next_word(words), "");
}

TEST(Text, QuoteShowsOneEscapedLineOfAtMost60Bytes) {
  EXPECT_EQ(quote("nonsense\nmore"), "'nonsense'");
  EXPECT_EQ(quote("a\tb\x7f"), "'a?b?'");
  EXPECT_EQ(quote(std::string(70, 'x')), "'" + std::string(60, 'x') + "...'");
}

}  // namespace
}  // namespace cgmem
