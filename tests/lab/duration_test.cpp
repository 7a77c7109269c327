#include "lab/duration.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

namespace cgmem::lab {
namespace {

TEST(Duration, UnitsAndBareNumbers) {
  EXPECT_EQ(*parse_duration("100ms", Unit::s), 100'000'000u);
  EXPECT_EQ(*parse_duration("2s", Unit::ms), 2'000'000'000u);
  EXPECT_EQ(*parse_duration("1.5s", Unit::ms), 1'500'000'000u);
  EXPECT_EQ(*parse_duration("500us", Unit::s), 500'000u);
  EXPECT_EQ(*parse_duration("3m", Unit::s), 180'000'000'000u);
  EXPECT_EQ(*parse_duration("20", Unit::s), 20'000'000'000u);
  EXPECT_EQ(*parse_duration("100", Unit::ms), 100'000'000u);
  EXPECT_EQ(*parse_duration("2h", Unit::s), 7'200'000'000'000u);
  EXPECT_EQ(*parse_duration("1d", Unit::s), kDayNs);
  // A longer bound for a caller that takes one (a Prometheus range).
  EXPECT_EQ(*parse_duration("7d", Unit::s, 8 * kDayNs), 7 * kDayNs);
  EXPECT_EQ(parse_duration("9d", Unit::s, 8 * kDayNs).error().what, "invalid duration '9d': longer than 8 days");
}

TEST(Duration, RejectsWithTheInputQuoted) {
  EXPECT_EQ(parse_duration("", Unit::s).error().message(),
            "invalid duration '': empty (use a number with a unit: 100ms, 2s, 1.5s, 500us, 3m, 2h)");
  EXPECT_EQ(parse_duration("-1s", Unit::s).error().what, "invalid duration '-1s': a duration has no sign");
  EXPECT_EQ(parse_duration("10 ms", Unit::s).error().what, "invalid duration '10 ms': unknown unit ' ms'");
  EXPECT_EQ(parse_duration("fast", Unit::s).error().what, "invalid duration 'fast': not a number");
  EXPECT_EQ(parse_duration("0", Unit::s).error().what, "invalid duration '0': must be more than zero");
  EXPECT_EQ(parse_duration("2d", Unit::s).error().what, "invalid duration '2d': longer than a day");
  EXPECT_EQ(parse_duration("25h", Unit::s).error().what, "invalid duration '25h': longer than a day");
  EXPECT_EQ(parse_duration("2w", Unit::s).error().what, "invalid duration '2w': unknown unit 'w'");
  EXPECT_EQ(parse_duration("90000", Unit::s).error().what, "invalid duration '90000': longer than a day");
}

TEST(Duration, NanAndInfAreNotDurations) {
  for (const char* text : {"nan", "NaN", "nan(1)", "inf", "infinity", "INFs", "nanms"})
    EXPECT_EQ(parse_duration(text, Unit::s).error().what, fmt::format("invalid duration '{}': not a number", text))
        << text;
  EXPECT_EQ(parse_duration("-inf", Unit::s).error().what, "invalid duration '-inf': a duration has no sign");
}

}  // namespace
}  // namespace cgmem::lab
