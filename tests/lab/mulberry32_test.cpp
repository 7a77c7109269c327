#include "lab/mulberry32.h"

#include <gtest/gtest.h>

namespace cgmem::lab {
namespace {

// Reference values: the JavaScript mulberry32 the study's workload.py
// followed; mulberry32(1)() is 0.6270739405881613 = 2693262067 / 2^32.
TEST(Mulberry32, KnownSequenceSeed1) {
  Mulberry32 rng(1);
  EXPECT_EQ(rng.next(), 2693262067u);
  EXPECT_EQ(rng.next(), 11749833u);
  EXPECT_EQ(rng.next(), 2265367787u);
  EXPECT_EQ(rng.next(), 4213581821u);
  EXPECT_EQ(rng.next(), 4159151403u);
}

TEST(Mulberry32, KnownSequenceSeed42) {
  Mulberry32 rng(42);
  EXPECT_EQ(rng.next(), 2581720956u);
  EXPECT_EQ(rng.next(), 1925393290u);
  EXPECT_EQ(rng.next(), 3661312704u);
}

TEST(Mulberry32, SeedZeroIsNotStuck) {
  Mulberry32 rng(0);
  EXPECT_EQ(rng.next(), 1144304738u);
  EXPECT_EQ(rng.next(), 1416247u);
}

TEST(Mulberry32, SameSeedSameChoices) {
  Mulberry32 a(7), b(7);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a.below(160), b.below(160));
}

TEST(Mulberry32, BelowStaysInRange) {
  Mulberry32 rng(3);
  EXPECT_EQ(Mulberry32(1).below(1000), 2693262067u % 1000);
  for (int i = 0; i < 10000; ++i) ASSERT_LT(rng.below(5), 5u);
}

}  // namespace
}  // namespace cgmem::lab
