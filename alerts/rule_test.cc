#include "alerts/rule.h"

#include <gtest/gtest.h>

namespace edgemond::alerts {
namespace {

using std::chrono::milliseconds;

TEST(RuleTest, DurationsParseAndPrint) {
  EXPECT_EQ(*ParseDuration("0s"), milliseconds(0));
  EXPECT_EQ(*ParseDuration("250ms"), milliseconds(250));
  EXPECT_EQ(*ParseDuration("90s"), milliseconds(90'000));
  EXPECT_EQ(*ParseDuration("1h30m"), milliseconds(5'400'000));
  EXPECT_EQ(*ParseDuration("2d"), milliseconds(172'800'000));
  for (const char* bad : {"", "5", "s", "5x", "1m1h", "1m1m", "-5s", "1.5m", "400d"}) {
    EXPECT_FALSE(ParseDuration(bad).ok()) << bad;
  }
  EXPECT_EQ(FormatDuration(milliseconds(0)), "0s");
  EXPECT_EQ(FormatDuration(milliseconds(5'400'000)), "1h30m");
  EXPECT_EQ(FormatDuration(milliseconds(1'250)), "1s250ms");
  for (const char* text : {"90s", "5m", "1d2h3m4s5ms"}) {
    EXPECT_EQ(FormatDuration(*ParseDuration(text)), text == std::string("90s") ? "1m30s" : text);
  }
}

TEST(RuleTest, ComparisonsAndThresholdsFormSchmittTrigger) {
  Rule rule;
  rule.op = Comparison::kGreater;
  rule.trigger = 85;
  rule.clear = 80;
  EXPECT_TRUE(rule.Triggered(85.1));
  EXPECT_FALSE(rule.Triggered(85));
  EXPECT_TRUE(rule.StillActive(80.5));
  EXPECT_FALSE(rule.StillActive(80));
  EXPECT_TRUE(Compare(Comparison::kGreaterOrEqual, 5, 5));
  EXPECT_TRUE(Compare(Comparison::kLessOrEqual, 5, 5));
  EXPECT_FALSE(Compare(Comparison::kLess, 5, 5));
  EXPECT_EQ(*ParseComparison(">="), Comparison::kGreaterOrEqual);
  EXPECT_FALSE(ParseComparison("=>").ok());
}

TEST(RuleTest, TemplatesSubstituteValuesAndLabels) {
  Rule rule;
  rule.name = "memory_low";
  rule.trigger = 0.1;
  rule.clear = 0.15;
  rule.severity = AlertSeverity::kCritical;
  const Labels labels{{"zone", "cpu-thermal"}};
  EXPECT_EQ(RenderTemplate("{rule} ({severity}): {value_percent} % < {threshold}, clears at "
                           "{clear}; zone {labels.zone}{labels.none} {{literal}}",
                           rule, labels, 0.0823),
            "memory_low (critical): 8.2 % < 0.1, clears at 0.15; zone cpu-thermal {literal}");
  EXPECT_EQ(RenderTemplate("{value}", rule, labels, std::nullopt), "n/a");
  EXPECT_TRUE(ValidateTemplate("{value} {labels.zone} {{x}}").ok());
  EXPECT_FALSE(ValidateTemplate("{valu}").ok());
  EXPECT_FALSE(ValidateTemplate("{value").ok());
  EXPECT_FALSE(ValidateTemplate("x}").ok());
  EXPECT_FALSE(ValidateTemplate("{labels.}").ok());
}

TEST(RuleTest, NumbersPrintShort) {
  EXPECT_EQ(FormatNumber(86.4), "86.4");
  EXPECT_EQ(FormatNumber(85), "85");
  EXPECT_EQ(FormatNumber(0.1), "0.1");
  EXPECT_EQ(FormatNumber(1.5e9), "1.5e+09");
}

}  // namespace
}  // namespace edgemond::alerts
