// Kubernetes quantities: the values the API server would store, in bytes.
#include <gtest/gtest.h>

#include "managers/quantity.h"

namespace cgmem::managers {
namespace {

int64_t q(std::string_view text) {
  auto v = parse_quantity(text);
  EXPECT_TRUE(v) << text << ": " << (v ? "" : v.error().message());
  return v.value_or(-1);
}

std::string error_of(std::string_view text) {
  auto v = parse_quantity(text);
  EXPECT_FALSE(v) << text;
  return v ? "" : v.error().message();
}

TEST(Quantity, BinarySuffixesAreBase1024) {
  EXPECT_EQ(q("256Mi"), 268435456);
  EXPECT_EQ(q("1Ki"), 1024);
  EXPECT_EQ(q("1Gi"), 1073741824);
  EXPECT_EQ(q("0.5Gi"), 536870912);
  EXPECT_EQ(q("1Ei"), int64_t{1} << 60);
}

TEST(Quantity, DecimalSuffixesAreBase1000) {
  EXPECT_EQ(q("1G"), 1'000'000'000);
  EXPECT_EQ(q("500M"), 500'000'000);
  EXPECT_EQ(q("1k"), 1000);
  EXPECT_EQ(q("2T"), 2'000'000'000'000);
}

TEST(Quantity, ExponentsAndPlainNumbers) {
  EXPECT_EQ(q("1e9"), 1'000'000'000);
  EXPECT_EQ(q("1E9"), 1'000'000'000);
  EXPECT_EQ(q("2.5e3"), 2500);
  EXPECT_EQ(q("128974848"), 128974848);
  EXPECT_EQ(q("0"), 0);
  EXPECT_EQ(q("1E"), 1'000'000'000'000'000'000);  // E alone is exa
}

TEST(Quantity, FractionsOfAByteRoundUp) {
  EXPECT_EQ(q("100m"), 1);    // 0.1 byte
  EXPECT_EQ(q("1.5"), 2);
  EXPECT_EQ(q("1500m"), 2);
  EXPECT_EQ(q("0.1Ki"), 103);  // 102.4
}

TEST(Quantity, MilliValueForCpu) {
  EXPECT_EQ(parse_quantity_scaled("500m", 3).value(), 500);
  EXPECT_EQ(parse_quantity_scaled("2", 3).value(), 2000);
  EXPECT_EQ(parse_quantity_scaled("0.25", 3).value(), 250);
}

TEST(Quantity, BadInputIsAnErrorThatQuotesIt) {
  EXPECT_EQ(error_of("-1Gi"),
            "invalid Kubernetes quantity '-1Gi': a memory quantity cannot be negative (use e.g. "
            "256Mi, 1Gi, 500M, 1e9 or a plain byte count)");
  EXPECT_EQ(error_of("256MB"),
            "invalid Kubernetes quantity '256MB': unknown suffix 'MB' (use e.g. 256Mi, 1Gi, 500M, "
            "1e9 or a plain byte count)");
  EXPECT_EQ(error_of("Mi"),
            "invalid Kubernetes quantity 'Mi': no number (use e.g. 256Mi, 1Gi, 500M, 1e9 or a "
            "plain byte count)");
  EXPECT_EQ(error_of(""),
            "invalid Kubernetes quantity '': empty (use e.g. 256Mi, 1Gi, 500M, 1e9 or a plain "
            "byte count)");
  EXPECT_EQ(error_of("16Ei"),
            "invalid Kubernetes quantity '16Ei': larger than 2^63-1 bytes (use e.g. 256Mi, 1Gi, "
            "500M, 1e9 or a plain byte count)");
  EXPECT_FALSE(parse_quantity("1.2.3"));
  EXPECT_FALSE(parse_quantity("1e"));
  EXPECT_FALSE(parse_quantity("1e99"));
  EXPECT_FALSE(parse_quantity("99999999999999999999999"));
}

}  // namespace
}  // namespace cgmem::managers
