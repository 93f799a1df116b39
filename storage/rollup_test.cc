#include "storage/rollup.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace edgemond::storage {
namespace {

TEST(DecimalSumTest, SumsDecimalReadingsExactly) {
  // Sequential addition of these doubles drifts; the decimal sum does not.
  DecimalSum sum;
  double plain = 0;
  for (int i = 0; i < 3600; ++i) {
    const double volts = static_cast<double>(19096 + 8 * (i % 3)) * 1e-3;  // hwmon: raw * 1e-3
    sum.Add(volts);
    plain += volts;
  }
  const double exact = (19096.0 * 1200 + 19104.0 * 1200 + 19112.0 * 1200) / 1000.0;
  EXPECT_EQ(sum.value(), exact);
  EXPECT_NE(plain, exact) << "the test data should show binary drift";
  EXPECT_NEAR(plain, exact, 1e-9);
}

TEST(DecimalSumTest, MixedScalesAndSigns) {
  DecimalSum sum;
  for (const double v : {45.5, -0.25, 1000.0, 0.001, 12.125}) sum.Add(v);
  EXPECT_EQ(sum.value(), (45500.0 - 250 + 1000000 + 1 + 12125) / 1000.0);
}

TEST(DecimalSumTest, FallsBackToPlainAdditionForOtherValues) {
  DecimalSum ratio;
  double plain = 0;
  for (int i = 1; i < 100; ++i) {
    const double v = static_cast<double>(i) / 99.0;
    ratio.Add(v);
    plain += v;
  }
  EXPECT_EQ(ratio.value(), plain);
  DecimalSum infinite;
  infinite.Add(1.5);
  infinite.Add(std::numeric_limits<double>::infinity());
  EXPECT_EQ(infinite.value(), std::numeric_limits<double>::infinity());
  DecimalSum huge;  // Past int64 once scaled: plain addition.
  huge.Add(9e15);
  huge.Add(9e15);
  huge.Add(0.5);
  EXPECT_EQ(huge.value(), 9e15 + 9e15 + 0.5);
}

TEST(RollupAccumulatorTest, SummarizesSamplesAndPoints) {
  RollupAccumulator minute;
  EXPECT_TRUE(minute.empty());
  for (const double v : {3.0, -1.0, 7.5, 2.0}) minute.AddSample(v);
  const RollupPoint a = minute.Finish();
  EXPECT_EQ(a.min, -1.0);
  EXPECT_EQ(a.max, 7.5);
  EXPECT_EQ(a.sum, 11.5);
  EXPECT_EQ(a.count, 4);
  EXPECT_EQ(a.last, 2.0);
  minute.Reset();
  EXPECT_TRUE(minute.empty());
  minute.AddSample(10);
  const RollupPoint b = minute.Finish();

  RollupAccumulator hour;
  hour.AddPoint(a);
  hour.AddPoint(b);
  const RollupPoint h = hour.Finish();
  EXPECT_EQ(h.min, -1.0);
  EXPECT_EQ(h.max, 10.0);
  EXPECT_EQ(h.sum, 21.5);
  EXPECT_EQ(h.count, 5);
  EXPECT_EQ(h.last, 10.0);
}

}  // namespace
}  // namespace edgemond::storage
