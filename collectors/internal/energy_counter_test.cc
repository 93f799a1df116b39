#include "collectors/internal/energy_counter.h"

#include <gtest/gtest.h>

namespace edgemond::collectors::internal {
namespace {

constexpr std::uint64_t kRange = 262143328850;  // A typical RAPL max_energy_range_uj.

TEST(EnergyCounterTest, TheFirstReadingHasNoIntervalAndStartsTheTotal) {
  EnergyCounter counter;
  EXPECT_FALSE(counter.has_reading());
  EXPECT_EQ(counter.Update(1000, kRange), std::nullopt);
  EXPECT_TRUE(counter.has_reading());
  EXPECT_EQ(counter.total_microjoules(), 1000u);
  EXPECT_EQ(counter.Update(4500, kRange), 3500u);
  EXPECT_EQ(counter.total_microjoules(), 4500u);
}

TEST(EnergyCounterTest, AWrapAddsTheEnergyUpToTheRangeAndFromZero) {
  EnergyCounter counter;
  counter.Update(kRange - 2000, kRange);
  EXPECT_EQ(counter.Update(3000, kRange), 5000u);  // 2000 to the top, 3000 after the wrap.
  EXPECT_EQ(counter.total_microjoules(), kRange + 3000);
  EXPECT_EQ(counter.Update(3000, kRange), 0u);
  EXPECT_EQ(counter.total_microjoules(), kRange + 3000);  // Never goes down.
}

TEST(EnergyCounterTest, ADropWithoutAKnownRangeIsAResetCountedFromZero) {
  EnergyCounter counter;
  counter.Update(50000, 0);
  EXPECT_EQ(counter.Update(700, 0), 700u);
  EXPECT_EQ(counter.total_microjoules(), 50700u);
  // A reading above the advertised range cannot be a wrap either.
  counter.Update(900, 800);
  EXPECT_EQ(counter.total_microjoules(), 50900u);
}

TEST(EnergyCounterTest, ResetRestartsIntervalsWithoutLosingTheTotal) {
  EnergyCounter counter;
  counter.Update(1000, kRange);
  counter.Update(2000, kRange);
  counter.Reset();
  EXPECT_EQ(counter.Update(10, kRange), std::nullopt);  // The device came back, counting anew.
  EXPECT_EQ(counter.total_microjoules(), 2000u);
  EXPECT_EQ(counter.Update(60, kRange), 50u);
  EXPECT_EQ(counter.total_microjoules(), 2050u);
}

}  // namespace
}  // namespace edgemond::collectors::internal
