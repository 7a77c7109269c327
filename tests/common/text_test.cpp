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

TEST(Text, VisibleEscapesWhatActsOnATerminalOrALog) {
  EXPECT_EQ(visible("/system.slice/web.service"), "/system.slice/web.service");
  EXPECT_EQ(visible("a\x1b[2Jb"), "a\\x1b[2Jb");
  EXPECT_EQ(visible("a\rb\nkilled\t"), "a\\rb\\nkilled\\t");
  EXPECT_EQ(visible("back\\slash"), "back\\\\slash");
  EXPECT_EQ(visible("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(visible("\x7f\x01"), "\\x7f\\x01");
  EXPECT_EQ(visible("caf\xc3\xa9 \xe6\x97\xa5"), "caf\xc3\xa9 \xe6\x97\xa5");  // UTF-8 stays
  EXPECT_EQ(visible("\xc2\x9b" "2J"), "\\xc2\\x9b2J");                      // C1 CSI
  EXPECT_EQ(visible("a\xe2\x80\xae" "b"), "a\\xe2\\x80\\xaeb");            // right-to-left override
  EXPECT_EQ(visible("\xc3"), "\\xc3");                                // cut short
  EXPECT_EQ(visible("\xc0\xaf"), "\\xc0\\xaf");                        // overlong '/'
  EXPECT_EQ(visible("\xed\xa0\x80"), "\\xed\\xa0\\x80");              // surrogate
  EXPECT_EQ(visible(std::string_view("a\0b", 3)), "a\\x00b");
}

TEST(Text, Utf8PrefixNeverSplitsASequence) {
  EXPECT_EQ(utf8_prefix("abc", 5), "abc");
  EXPECT_EQ(utf8_prefix("abc", 2), "ab");
  EXPECT_EQ(utf8_prefix("a\xc3\xa9", 2), "a");
  EXPECT_EQ(utf8_prefix("a\xc3\xa9", 3), "a\xc3\xa9");
  EXPECT_EQ(utf8_prefix("\xe6\x97\xa5x", 2), "");
}

}  // namespace
}  // namespace cgmem
