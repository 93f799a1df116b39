#include "storage/label_text.h"

#include <gtest/gtest.h>

namespace edgemond::storage {
namespace {

TEST(LabelTextTest, FormatsSortedLabelsLikeTheInsideOfASeriesKey) {
  const Labels labels = {{"chip", "coretemp"}, {"label", "Core \"0\"\\\n"}, {"sensor", "temp2"}};
  const std::string text = FormatLabelText(labels);
  EXPECT_EQ(text, R"(chip="coretemp",label="Core \"0\"\\\n",sensor="temp2")");
  EXPECT_EQ("m{" + text + "}", SeriesKey("m", labels));
}

TEST(LabelTextTest, ParsesWhatItFormats) {
  const Labels labels = {
      {"a", ""}, {"b", "x,y=\"z\""}, {"c", "\\n is not a newline"}, {"d", "caf\xC3\xA9"}};
  auto parsed = ParseLabelText(FormatLabelText(labels));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, labels);
  auto empty = ParseLabelText("");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(LabelTextTest, RejectsMalformedText) {
  for (const char* bad : {"a", "a=x", "a=\"x", "a=\"x\"b=\"y\"", "a=\"x\\q\"", "1a=\"x\"",
                          "b=\"x\",a=\"y\"", "a=\"x\",a=\"y\"", "a=\"x\\"}) {
    auto parsed = ParseLabelText(bad);
    EXPECT_EQ(parsed.status().code(), StatusCode::kCorruption) << bad;
  }
}

TEST(LabelTextTest, CanonicalLabelsSortsAndValidates) {
  auto sorted = CanonicalLabels({{"zone", "1"}, {"type", "cpu-thermal"}});
  ASSERT_TRUE(sorted.ok());
  EXPECT_EQ(*sorted, (Labels{{"type", "cpu-thermal"}, {"zone", "1"}}));
  EXPECT_EQ(CanonicalLabels({{"a", "1"}, {"a", "2"}}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(CanonicalLabels({{"bad-name", "1"}}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(CanonicalLabels({{"", "1"}}).status().code(), StatusCode::kInvalidArgument);
}

TEST(LabelTextTest, ValidatesMetricNames) {
  EXPECT_TRUE(ValidateMetricName("edgemond_cpu_utilization_ratio").ok());
  EXPECT_TRUE(ValidateMetricName("job:rate5m").ok());
  EXPECT_FALSE(ValidateMetricName("").ok());
  EXPECT_FALSE(ValidateMetricName("1abc").ok());
  EXPECT_FALSE(ValidateMetricName("a-b").ok());
  EXPECT_FALSE(ValidateMetricName("a{b}").ok());
}

}  // namespace
}  // namespace edgemond::storage
