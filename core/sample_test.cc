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

}  // namespace
}  // namespace edgemond
