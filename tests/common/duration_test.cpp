#include "common/duration.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

namespace cgmem {
namespace {

TEST(Duration, UnitsAndBareNumbers) {
  EXPECT_EQ(*parse_duration("100ms", TimeUnit::s), 100'000'000u);
  EXPECT_EQ(*parse_duration("2s", TimeUnit::ms), 2'000'000'000u);
  EXPECT_EQ(*parse_duration("1.5s", TimeUnit::ms), 1'500'000'000u);
  EXPECT_EQ(*parse_duration("500us", TimeUnit::s), 500'000u);
  EXPECT_EQ(*parse_duration("3m", TimeUnit::s), 180'000'000'000u);
  EXPECT_EQ(*parse_duration("20", TimeUnit::s), 20'000'000'000u);
  EXPECT_EQ(*parse_duration("100", TimeUnit::ms), 100'000'000u);
  EXPECT_EQ(*parse_duration("2h", TimeUnit::s), 7'200'000'000'000u);
  EXPECT_EQ(*parse_duration("1d", TimeUnit::s), kDayNs);
  // A longer bound for a caller that takes one (a Prometheus range).
  EXPECT_EQ(*parse_duration("7d", TimeUnit::s, 8 * kDayNs), 7 * kDayNs);
  EXPECT_EQ(parse_duration("9d", TimeUnit::s, 8 * kDayNs).error().what, "invalid duration '9d': longer than 8 days");
}

TEST(Duration, RejectsWithTheInputQuoted) {
  EXPECT_EQ(parse_duration("", TimeUnit::s).error().message(),
            "invalid duration '': empty (use a number with a unit: 100ms, 2s, 1.5s, 500us, 3m, 2h)");
  EXPECT_EQ(parse_duration("-1s", TimeUnit::s).error().what, "invalid duration '-1s': a duration has no sign");
  EXPECT_EQ(parse_duration("10 ms", TimeUnit::s).error().what, "invalid duration '10 ms': unknown unit ' ms'");
  EXPECT_EQ(parse_duration("fast", TimeUnit::s).error().what, "invalid duration 'fast': not a number");
  EXPECT_EQ(parse_duration("0", TimeUnit::s).error().what, "invalid duration '0': must be more than zero");
  EXPECT_EQ(parse_duration("2d", TimeUnit::s).error().what, "invalid duration '2d': longer than a day");
  EXPECT_EQ(parse_duration("25h", TimeUnit::s).error().what, "invalid duration '25h': longer than a day");
  EXPECT_EQ(parse_duration("2w", TimeUnit::s).error().what, "invalid duration '2w': unknown unit 'w'");
  EXPECT_EQ(parse_duration("90000", TimeUnit::s).error().what, "invalid duration '90000': longer than a day");
}

TEST(Duration, NanAndInfAreNotDurations) {
  for (const char* text : {"nan", "NaN", "nan(1)", "inf", "infinity", "INFs", "nanms"})
    EXPECT_EQ(parse_duration(text, TimeUnit::s).error().what, fmt::format("invalid duration '{}': not a number", text))
        << text;
  EXPECT_EQ(parse_duration("-inf", TimeUnit::s).error().what, "invalid duration '-inf': a duration has no sign");
}

TEST(Duration, WrittenInEachStyle) {
  EXPECT_EQ(format_duration(0.34, DurationStyle::compact), "340ms");
  EXPECT_EQ(format_duration(1.23, DurationStyle::compact), "1.2s");
  EXPECT_EQ(format_duration(29 * 60, DurationStyle::compact), "29m");
  EXPECT_EQ(format_duration(2.1 * 3600, DurationStyle::compact), "2.1h");
  EXPECT_EQ(format_duration(3 * 86400, DurationStyle::compact), "3d");
  EXPECT_EQ(format_duration(-1, DurationStyle::compact), "-");
  EXPECT_EQ(format_duration(0.093, DurationStyle::prose), "93.0 ms");
  EXPECT_EQ(format_duration(27.04, DurationStyle::prose), "27.04 s");
  EXPECT_EQ(format_duration(28.7 * 60, DurationStyle::prose), "28.7 min");
  EXPECT_EQ(format_duration(1.5 * 3600, DurationStyle::prose), "90.0 min");
  EXPECT_EQ(format_duration(3 * 3600, DurationStyle::prose), "3.0 h");
  EXPECT_EQ(format_duration(5, DurationStyle::clock), "0:05");
  EXPECT_EQ(format_duration(750, DurationStyle::clock), "12:30");
  EXPECT_EQ(format_duration(3723, DurationStyle::clock), "1:02:03");
  EXPECT_EQ(format_duration(-3, DurationStyle::clock), "0:00");
}

}  // namespace
}  // namespace cgmem
