#include "core/query.h"

#include <gtest/gtest.h>

namespace edgemond {
namespace {

TEST(SeriesSelectorTest, ParsesNameAndMatchers) {
  auto selector = ParseSeriesSelector(R"(edgemond_cpu_utilization_ratio{cpu="all"})");
  ASSERT_TRUE(selector.ok()) << selector.status();
  EXPECT_EQ(selector->name, "edgemond_cpu_utilization_ratio");
  ASSERT_EQ(selector->matchers.size(), 1u);
  EXPECT_EQ(selector->matchers[0].name, "cpu");
  EXPECT_EQ(selector->matchers[0].value, "all");
  EXPECT_TRUE(selector->Matches("edgemond_cpu_utilization_ratio", {{"cpu", "all"}}));
  EXPECT_FALSE(selector->Matches("edgemond_cpu_utilization_ratio", {{"cpu", "0"}}));
  EXPECT_FALSE(selector->Matches("other", {{"cpu", "all"}}));
}

TEST(SeriesSelectorTest, BareNameMatchesEveryLabelSet) {
  auto selector = ParseSeriesSelector("edgemond_thermal_zone_celsius");
  ASSERT_TRUE(selector.ok());
  EXPECT_TRUE(selector->Matches("edgemond_thermal_zone_celsius", {{"zone", "x"}}));
}

TEST(SeriesSelectorTest, NotEqualAndEscapesAndMissingLabels) {
  auto selector = ParseSeriesSelector(R"(m{ a != "x" , b="q\"uote" ,})");
  ASSERT_TRUE(selector.ok()) << selector.status();
  EXPECT_EQ(selector->matchers[1].value, "q\"uote");
  EXPECT_TRUE(selector->Matches("m", {{"a", "y"}, {"b", "q\"uote"}}));
  EXPECT_FALSE(selector->Matches("m", {{"a", "x"}, {"b", "q\"uote"}}));
  auto empty = ParseSeriesSelector(R"(m{absent=""})");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->Matches("m", {{"other", "1"}}));
}

TEST(SeriesSelectorTest, ErrorsSayWhere) {
  for (const char* bad : {"", "{a=\"b\"}", "m{a}", "m{a=b}", "m{a=\"b\"", "m{a=\"b\"} x", "9m"}) {
    auto selector = ParseSeriesSelector(bad);
    EXPECT_FALSE(selector.ok()) << bad;
    EXPECT_NE(selector.status().message().find("character"), std::string::npos) << bad;
  }
}

TEST(AggregationTest, RoundTripsNames) {
  for (const char* name : {"avg", "min", "max", "last", "sum", "count"}) {
    EXPECT_EQ(AggregationName(ParseAggregation(name).value()), name);
  }
  EXPECT_FALSE(ParseAggregation("median").ok());
}

}  // namespace
}  // namespace edgemond
