#include "storage/step_aggregator.h"

#include <gtest/gtest.h>

#include <limits>
#include <optional>

namespace edgemond::storage {
namespace {

constexpr std::int64_t kFrom = 1767225600000;

// Bucket 0 = [0, 10 s): 3 samples; bucket 1: nothing (a gap); bucket 2 = [20 s, 30 s): 2.
const std::vector<std::pair<std::int64_t, double>> kSamples = {
    {0, 4}, {1000, -2}, {9999, 7}, {20000, 1.5}, {29999, 0.5}};

// Aggregates kSamples-like input over [kFrom, kFrom + 29999] and returns just the values.
std::vector<std::optional<double>> Values(
    Aggregation aggregation, const std::vector<std::pair<std::int64_t, double>>& samples) {
  StepAggregator aggregator(kFrom, kFrom + 29999, 10000, aggregation, 100);
  for (const auto& [offset_ms, value] : samples) {
    EXPECT_TRUE(aggregator.Add(kFrom + offset_ms, value).ok());
  }
  std::vector<std::optional<double>> values;
  std::int64_t expected_t = kFrom;
  for (const Point& point : aggregator.Finish()) {
    EXPECT_EQ(point.t_ms, expected_t);  // Every bucket, stamped with its start.
    expected_t += 10000;
    values.push_back(point.value);
  }
  return values;
}

using V = std::vector<std::optional<double>>;

TEST(StepAggregatorTest, OnePointPerBucketAndGapsHaveNoValue) {
  EXPECT_EQ(Values(Aggregation::kAvg, kSamples), (V{3, std::nullopt, 1}));
}

TEST(StepAggregatorTest, EveryAggregation) {
  EXPECT_EQ(Values(Aggregation::kMin, kSamples), (V{-2, std::nullopt, 0.5}));
  EXPECT_EQ(Values(Aggregation::kMax, kSamples), (V{7, std::nullopt, 1.5}));
  EXPECT_EQ(Values(Aggregation::kLast, kSamples), (V{7, std::nullopt, 0.5}));
  EXPECT_EQ(Values(Aggregation::kSum, kSamples), (V{9, std::nullopt, 2}));
  EXPECT_EQ(Values(Aggregation::kCount, kSamples), (V{3, std::nullopt, 2}));
}

TEST(StepAggregatorTest, InfinitiesAreValues) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(Values(Aggregation::kMax, {{0, 1}, {1, inf}}), (V{inf, std::nullopt, std::nullopt}));
  EXPECT_EQ(Values(Aggregation::kMin, {{0, 1}, {1, -inf}}), (V{-inf, std::nullopt, std::nullopt}));
}

TEST(StepAggregatorTest, NoSamplesGivesEmptyBuckets) {
  EXPECT_EQ(Values(Aggregation::kAvg, {}), (V{std::nullopt, std::nullopt, std::nullopt}));
}

TEST(StepAggregatorTest, RawModeReturnsEverySample) {
  StepAggregator aggregator(kFrom, kFrom + 29999, 0, Aggregation::kAvg, 100);
  for (const auto& [offset_ms, value] : kSamples) {
    ASSERT_TRUE(aggregator.Add(kFrom + offset_ms, value).ok());
  }
  const std::vector<Point> points = aggregator.Finish();
  ASSERT_EQ(points.size(), kSamples.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(points[i].t_ms, kFrom + kSamples[i].first);
    EXPECT_EQ(points[i].value, kSamples[i].second);
  }
  EXPECT_TRUE(StepAggregator(kFrom, kFrom, 0, Aggregation::kAvg, 1).Finish().empty());
}

TEST(StepAggregatorTest, RawModeRefusesMoreThanTheLimit) {
  StepAggregator aggregator(kFrom, kFrom + 10, 0, Aggregation::kAvg, 2);
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

}  // namespace
}  // namespace edgemond::storage
