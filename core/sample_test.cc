#include "core/sample.h"

#include <gtest/gtest.h>

namespace edgemond {
namespace {

TEST(SeriesKeyTest, SortsLabelsAndEscapesValues) {
  EXPECT_EQ(SeriesKey("edgemond_memory_total_bytes", {}), "edgemond_memory_total_bytes");
  EXPECT_EQ(SeriesKey("m", {{"zone", "0"}, {"type", "cpu\"x\\\n"}}),
            "m{type=\"cpu\\\"x\\\\\\n\",zone=\"0\"}");
  EXPECT_EQ(SeriesKey("m", {{"b", "1"}, {"a", "2"}}), SeriesKey("m", {{"a", "2"}, {"b", "1"}}));
}

TEST(SeriesLabelsTest, CopiesShareOneListOfLabels) {
  const SeriesLabels labels{{"zone", "0"}, {"type", "cpu-thermal"}};
  const SeriesLabels copy = labels;
  EXPECT_EQ(&copy.get(), &labels.get());
  EXPECT_EQ(copy, labels);
  ASSERT_EQ(copy.size(), 2u);
  EXPECT_EQ(copy[1].value, "cpu-thermal");
  const Labels& as_labels = copy;
  EXPECT_EQ(as_labels, (Labels{{"zone", "0"}, {"type", "cpu-thermal"}}));
}

TEST(SeriesLabelsTest, ComparesByContentAcrossSeparateLists) {
  const SeriesLabels a{{"cpu", "0"}};
  EXPECT_EQ(a, SeriesLabels(Labels{{"cpu", "0"}}));
  EXPECT_EQ(a, (Labels{{"cpu", "0"}}));
  EXPECT_NE(a, (SeriesLabels{{"cpu", "1"}}));
  EXPECT_NE(a, SeriesLabels{});
  // Order matters, as it does for Labels; SeriesKey() is the order-free identity.
  EXPECT_NE((SeriesLabels{{"a", "1"}, {"b", "2"}}), (SeriesLabels{{"b", "2"}, {"a", "1"}}));
}

TEST(SeriesLabelsTest, NoLabelsIsEmpty) {
  const SeriesLabels none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.begin(), none.end());
  EXPECT_EQ(none, SeriesLabels(Labels{}));
  EXPECT_EQ(SeriesKey("m", none), "m");
}

TEST(MetricTypeTest, NamesAreThePrometheusTypes) {
  EXPECT_EQ(MetricTypeName(MetricType::kGauge), "gauge");
  EXPECT_EQ(MetricTypeName(MetricType::kCounter), "counter");
  EXPECT_EQ(MetricTypeName(MetricType::kSummary), "summary");
}

TEST(SanitizeUtf8Test, KeepsValidTextAndReplacesInvalidBytes) {
  EXPECT_EQ(SanitizeUtf8("Tctl"), "Tctl");
  EXPECT_EQ(SanitizeUtf8("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(SanitizeUtf8("a\xFFz"), "a\xEF\xBF\xBDz");
  EXPECT_EQ(SanitizeUtf8("\xC3"), "\xEF\xBF\xBD");                  // Truncated sequence.
  EXPECT_EQ(SanitizeUtf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // Overlong.
}

TEST(LabelValueTest, FindsTheLabelByNameOrIsEmpty) {
  const Labels labels{{"zone", "cpu-thermal"}, {"type", "passive"}};
  EXPECT_EQ(LabelValue(labels, "zone"), "cpu-thermal");
  EXPECT_EQ(LabelValue(labels, "type"), "passive");
  EXPECT_EQ(LabelValue(labels, "gpu"), "");
  EXPECT_EQ(LabelValue(Labels{}, "zone"), "");
}

TEST(IsLabelNameTest, AcceptsPrometheusLabelNamesOnly) {
  for (const char* name : {"a", "_", "zone", "trip_type", "A1", "_9"}) {
    EXPECT_TRUE(IsLabelName(name)) << name;
  }
  for (const char* name : {"", "1a", "a-b", "a.b", "caf\xC3\xA9", " a"}) {
    EXPECT_FALSE(IsLabelName(name)) << name;
  }
}

}  // namespace
}  // namespace edgemond
