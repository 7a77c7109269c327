#include "report/stats.h"

#include <gtest/gtest.h>

#include "report/document.h"

namespace cgmem::report {
namespace {

// Expected values are numpy.quantile's (linear interpolation).
TEST(ReportStats, QuantileInterpolatesBetweenRanks) {
  EXPECT_DOUBLE_EQ(*median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(*median({5, 1, 3}), 3);
  std::vector<double> hundred;
  for (int i = 1; i <= 100; ++i) hundred.push_back(i);
  EXPECT_DOUBLE_EQ(*quantile(hundred, 0.99), 99.01);
  EXPECT_DOUBLE_EQ(*quantile(hundred, 0), 1);
  EXPECT_DOUBLE_EQ(*quantile(hundred, 1), 100);
  EXPECT_DOUBLE_EQ(*quantile({0.3, 2047.9}, 0.99), 0.3 + 2047.6 * 0.99);
  EXPECT_FALSE(median({}).has_value());
}

TEST(ReportStats, ModeBreaksTiesTowardsTheSmallest) {
  std::vector<std::string> v = {"b", "a", "b", "a", "c"};
  EXPECT_EQ(mode(v), "a");
  EXPECT_EQ(mode(std::vector<std::string>{}), "");
}

TEST(ReportStats, RangeFormatsOneOrTwoNumbers) {
  Range r;
  EXPECT_EQ(range(r), "-");
  r.add(0.39);
  r.add(std::nullopt);
  EXPECT_EQ(range(r), "0.39");
  r.add(0.28);
  EXPECT_EQ(range(r), "0.28 to 0.39");
  EXPECT_EQ(range(r, percent), "28% to 39%");
}

TEST(ReportDocument, NumbersKeepThreeSignificantDigits) {
  EXPECT_EQ(num(0.257), "0.257");
  EXPECT_EQ(num(6216.4), "6216");
  EXPECT_EQ(num(191.8), "192");
  EXPECT_EQ(num(24.66), "24.7");
  EXPECT_EQ(num(1.0), "1.00");
  EXPECT_EQ(num(0), "0");
  EXPECT_EQ(num(std::nullopt), "-");
  EXPECT_EQ(mib(241590272.0), "230.4 MiB");
}

TEST(ReportDocument, MarkdownTablesEscapePipes) {
  Section s{.title = "T", .tables = {Table{.caption = "c", .head = {"a", "b"}, .rows = {{"x|y", ""}}}}};
  EXPECT_EQ(markdown("R", {s}, {"pre"}),
            "# R\n\npre\n\n## T\n\n**c**\n\n| a | b |\n|---|---:|\n| x\\|y | - |\n\n");
}

}  // namespace
}  // namespace cgmem::report
