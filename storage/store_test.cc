#include "storage/store.h"

#include <gtest/gtest.h>

namespace edgemond::storage {
namespace {

TEST(AggregationTest, NamesRoundTrip) {
  for (Aggregation aggregation : {Aggregation::kAvg, Aggregation::kMin, Aggregation::kMax,
                                  Aggregation::kLast, Aggregation::kSum, Aggregation::kCount}) {
    auto parsed = ParseAggregation(AggregationName(aggregation));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, aggregation);
  }
  auto bad = ParseAggregation("mean");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("mean"), std::string_view::npos);
}

TEST(SeriesMatcherTest, MatchesNameAndLabelsWithPrometheusSemantics) {
  const Labels cpu0 = {{"cpu", "0"}};
  const Labels all = {{"cpu", "all"}};
  const Labels none;
  SeriesMatcher any;
  EXPECT_TRUE(any.Matches("edgemond_cpu_utilization_ratio", cpu0));

  SeriesMatcher by_name{"edgemond_cpu_utilization_ratio", {}};
  EXPECT_TRUE(by_name.Matches("edgemond_cpu_utilization_ratio", cpu0));
  EXPECT_FALSE(by_name.Matches("edgemond_cpu_frequency_hertz", cpu0));

  SeriesMatcher not_all{"", {{"cpu", LabelMatcher::Op::kNotEqual, "all"}}};
  EXPECT_TRUE(not_all.Matches("m", cpu0));
  EXPECT_FALSE(not_all.Matches("m", all));
  EXPECT_TRUE(not_all.Matches("m", none));  // Missing label reads as "".

  SeriesMatcher without_cpu{"", {{"cpu", LabelMatcher::Op::kEqual, ""}}};
  EXPECT_TRUE(without_cpu.Matches("m", none));
  EXPECT_FALSE(without_cpu.Matches("m", cpu0));

  SeriesMatcher with_cpu{"", {{"cpu", LabelMatcher::Op::kNotEqual, ""}}};
  EXPECT_FALSE(with_cpu.Matches("m", none));
  EXPECT_TRUE(with_cpu.Matches("m", cpu0));

  SeriesMatcher both{
      "m", {{"cpu", LabelMatcher::Op::kEqual, "0"}, {"mode", LabelMatcher::Op::kEqual, ""}}};
  EXPECT_TRUE(both.Matches("m", cpu0));
  EXPECT_FALSE(both.Matches("m", {{"cpu", "0"}, {"mode", "user"}}));
}

}  // namespace
}  // namespace edgemond::storage
