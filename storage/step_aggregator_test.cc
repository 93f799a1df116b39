#include "storage/step_aggregator.h"

#include <gtest/gtest.h>

#include <limits>

namespace edgemond::storage {
namespace {

constexpr std::int64_t kFrom = 1767225600000;

std::vector<Point> Aggregate(Aggregation aggregation, std::int64_t step_ms,
                             const std::vector<std::pair<std::int64_t, double>>& samples) {
  StepAggregator aggregator(kFrom, step_ms, aggregation, 100);
  for (const auto& [offset_ms, value] : samples) {
    EXPECT_TRUE(aggregator.Add(kFrom + offset_ms, value).ok());
  }
  return aggregator.Finish();
}

Point At(std::int64_t offset_ms, double value) {
  return {FromUnixMillis(kFrom + offset_ms), value};
}

// Bucket 0 = [0, 10 s): 3 samples; bucket 1: nothing (a gap); bucket 2 = [20 s, 30 s): 2.
const std::vector<std::pair<std::int64_t, double>> kSamples = {
    {0, 4}, {1000, -2}, {9999, 7}, {20000, 1.5}, {29999, 0.5}};

TEST(StepAggregatorTest, AveragesPerBucketAndSkipsEmptyBuckets) {
  EXPECT_EQ(Aggregate(Aggregation::kAvg, 10000, kSamples),
            (std::vector<Point>{At(0, 3), At(20000, 1)}));
}

TEST(StepAggregatorTest, EveryAggregation) {
  EXPECT_EQ(Aggregate(Aggregation::kMin, 10000, kSamples),
            (std::vector<Point>{At(0, -2), At(20000, 0.5)}));
  EXPECT_EQ(Aggregate(Aggregation::kMax, 10000, kSamples),
            (std::vector<Point>{At(0, 7), At(20000, 1.5)}));
  EXPECT_EQ(Aggregate(Aggregation::kLast, 10000, kSamples),
            (std::vector<Point>{At(0, 7), At(20000, 0.5)}));
  EXPECT_EQ(Aggregate(Aggregation::kSum, 10000, kSamples),
            (std::vector<Point>{At(0, 9), At(20000, 2)}));
  EXPECT_EQ(Aggregate(Aggregation::kCount, 10000, kSamples),
            (std::vector<Point>{At(0, 3), At(20000, 2)}));
}

TEST(StepAggregatorTest, InfinitiesAreValues) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(Aggregate(Aggregation::kMax, 10000, {{0, 1}, {1, inf}}),
            (std::vector<Point>{At(0, inf)}));
  EXPECT_EQ(Aggregate(Aggregation::kMin, 10000, {{0, 1}, {1, -inf}}),
            (std::vector<Point>{At(0, -inf)}));
}

TEST(StepAggregatorTest, RawModeReturnsEverySample) {
  EXPECT_EQ(
      Aggregate(Aggregation::kAvg, 0, kSamples),
      (std::vector<Point>{At(0, 4), At(1000, -2), At(9999, 7), At(20000, 1.5), At(29999, 0.5)}));
}

TEST(StepAggregatorTest, RawModeRefusesMoreThanTheLimit) {
  StepAggregator aggregator(kFrom, 0, Aggregation::kAvg, 2);
  EXPECT_TRUE(aggregator.Add(kFrom, 1).ok());
  EXPECT_TRUE(aggregator.Add(kFrom + 1, 1).ok());
  const Status status = aggregator.Add(kFrom + 2, 1);
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(aggregator.Finish().size(), 2u);
}

TEST(StepAggregatorTest, BucketCountIncludesBothEnds) {
  EXPECT_EQ(StepAggregator::BucketCount(0, 0, 1000), 1);
  EXPECT_EQ(StepAggregator::BucketCount(0, 999, 1000), 1);
  EXPECT_EQ(StepAggregator::BucketCount(0, 1000, 1000), 2);
  EXPECT_EQ(StepAggregator::BucketCount(0, 86400000, 86400), 1001);
}

TEST(StepAggregatorTest, NothingInNothingOut) {
  EXPECT_TRUE(Aggregate(Aggregation::kAvg, 10000, {}).empty());
  EXPECT_TRUE(Aggregate(Aggregation::kAvg, 0, {}).empty());
}

}  // namespace
}  // namespace edgemond::storage
