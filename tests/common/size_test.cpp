#include "common/size.h"

#include <gtest/gtest.h>

namespace cgmem {
namespace {

TEST(ParseBytes, PlainAndSuffixed) {
  EXPECT_EQ(parse_bytes("241590272").value(), 241590272u);
  EXPECT_EQ(parse_bytes("4096B").value(), 4096u);
  EXPECT_EQ(parse_bytes("256M").value(), 268435456u);
  EXPECT_EQ(parse_bytes("256Mi").value(), 268435456u);
  EXPECT_EQ(parse_bytes("256MiB").value(), 268435456u);
  EXPECT_EQ(parse_bytes("256m").value(), 268435456u);
  EXPECT_EQ(parse_bytes("1K").value(), 1024u);
  EXPECT_EQ(parse_bytes("2G").value(), 2147483648u);
  EXPECT_EQ(parse_bytes("1T").value(), 1099511627776u);
  EXPECT_EQ(parse_bytes("0").value(), 0u);
}

TEST(ParseBytes, DecimalsRoundDown) {
  // 230.4 MiB = 241591910.4 bytes; the kubelet's page-rounded value is 241590272.
  EXPECT_EQ(parse_bytes("230.4MiB").value(), 241591910u);
  EXPECT_EQ(parse_bytes("0.5K").value(), 512u);
  EXPECT_EQ(parse_bytes("1.5G").value(), 1610612736u);
}

TEST(ParseBytes, LimitsOfRange) {
  EXPECT_EQ(parse_bytes("18446744073709551615").value(), UINT64_MAX);
  EXPECT_FALSE(parse_bytes("18446744073709551616"));
  EXPECT_FALSE(parse_bytes("16E"));
  EXPECT_EQ(parse_bytes("15E").value(), 15ULL << 60);
}

TEST(ParseBytes, RejectsGarbageWithTheInputQuoted) {
  auto check = [](std::string_view text, std::string_view expected) {
    auto r = parse_bytes(text);
    ASSERT_FALSE(r) << text;
    EXPECT_EQ(r.error().message(), expected);
  };
  check("", "invalid size '': empty (use bytes, or K/M/G/T (base 1024), e.g. 256M, 230.4MiB, 241590272)");
  check("-5M", "invalid size '-5M': a size has no sign (use bytes, or K/M/G/T (base 1024), e.g. 256M, 230.4MiB, 241590272)");
  check("abc", "invalid size 'abc': not a number (use bytes, or K/M/G/T (base 1024), e.g. 256M, 230.4MiB, 241590272)");
  check("1GB", "invalid size '1GB': 'GB' is ambiguous (1000 or 1024?) (use bytes, or K/M/G/T (base 1024), e.g. 256M, 230.4MiB, 241590272)");
  check("12Q", "invalid size '12Q': unknown unit 'Q' (use bytes, or K/M/G/T (base 1024), e.g. 256M, 230.4MiB, 241590272)");
  check("1.5", "invalid size '1.5': a byte count must be whole (use bytes, or K/M/G/T (base 1024), e.g. 256M, 230.4MiB, 241590272)");
  check("1.M", "invalid size '1.M': no digits after the decimal point (use bytes, or K/M/G/T (base 1024), e.g. 256M, 230.4MiB, 241590272)");
  EXPECT_FALSE(parse_bytes("max"));
  EXPECT_FALSE(parse_bytes(" 5"));
  EXPECT_FALSE(parse_bytes("5 M"));
}

TEST(ParseLimit, MaxIsItsOwnValue) {
  auto max = parse_limit("max");
  ASSERT_TRUE(max);
  EXPECT_TRUE(max->is_max());
  EXPECT_EQ(format_limit(*max), "max");
  EXPECT_FALSE(parse_limit("max", {.allow_max = false}));
  EXPECT_EQ(parse_limit("64M")->bytes(), 67108864u);
  EXPECT_FALSE(parse_limit("64M")->is_max());
}

TEST(ParseLimit, Percentages) {
  SizeRules rules{.allow_max = true, .percent_of = 1000};
  EXPECT_EQ(parse_limit("50%", rules)->bytes(), 500u);
  EXPECT_EQ(parse_limit("2.5%", rules)->bytes(), 25u);
  EXPECT_FALSE(parse_limit("101%", rules));
  EXPECT_FALSE(parse_limit("-1%", rules));
  EXPECT_FALSE(parse_limit("%", rules));
  EXPECT_FALSE(parse_limit("50%"));  // not allowed without a base
}

TEST(FormatBytes, KernelUnits) {
  EXPECT_EQ(format_bytes(0), "0B");
  EXPECT_EQ(format_bytes(512), "512B");
  EXPECT_EQ(format_bytes(4096), "4KiB");
  EXPECT_EQ(format_bytes(268435456), "256MiB");
  EXPECT_EQ(format_bytes(241590272), "230.4MiB");
  EXPECT_EQ(format_bytes(1073741823), "1.0GiB");
  EXPECT_EQ(format_bytes(UINT64_MAX), "16.0EiB");
}

}  // namespace
}  // namespace cgmem
