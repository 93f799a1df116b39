#include "http/prometheus_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>

#include "tests/testing/temp_dir.h"
#include "tests/testing/tools.h"

namespace edgemond::http {
namespace {

constexpr MetricDesc kTemp{"edgemond_thermal_zone_celsius", "Temperature of a thermal zone",
                           MetricType::kGauge, "celsius"};
constexpr MetricDesc kEnergy{"edgemond_hwmon_energy_joules_total", "Energy counter\\with \nnewline",
                             MetricType::kCounter, "joules"};

Sample Make(const MetricDesc& desc, Labels labels, std::optional<double> value) {
  Sample sample;
  sample.desc = &desc;
  sample.labels = std::move(labels);
  sample.value = value;
  if (!value) sample.missing_reason = "offline";
  return sample;
}

TEST(PrometheusTextTest, FormatsValuesAsPrometheusParsesThem) {
  EXPECT_EQ(FormatPrometheusValue(1), "1");
  EXPECT_EQ(FormatPrometheusValue(0.25), "0.25");
  EXPECT_EQ(FormatPrometheusValue(-3.5), "-3.5");
  EXPECT_EQ(FormatPrometheusValue(45.343), "45.343");
  EXPECT_EQ(FormatPrometheusValue(1e21), "1e+21");
  EXPECT_EQ(FormatPrometheusValue(std::nan("")), "NaN");
  EXPECT_EQ(FormatPrometheusValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatPrometheusValue(-std::numeric_limits<double>::infinity()), "-Inf");
}

TEST(PrometheusTextTest, RendersFamiliesSortedWithEscapingAndWithoutMissingValues) {
  const std::vector<Sample> samples = {
      Make(kTemp, {{"zone", "thermal_zone0"}, {"type", "cpu-thermal"}}, 45.5),
      Make(kEnergy, {{"label", "quote\" back\\ nl\n"}}, 12.0),
      Make(kTemp, {{"zone", "thermal_zone1"}, {"type", "cv0-thermal"}}, std::nullopt),
      Make(kTemp, {{"zone", "thermal_zone0"}, {"type", "cpu-thermal"}}, 99.0),  // Duplicate.
  };
  EXPECT_EQ(RenderPrometheusText(GroupSamples(samples)),
            "# HELP edgemond_hwmon_energy_joules_total Energy counter\\\\with \\nnewline\n"
            "# TYPE edgemond_hwmon_energy_joules_total counter\n"
            "edgemond_hwmon_energy_joules_total{label=\"quote\\\" back\\\\ nl\\n\"} 12\n"
            "# HELP edgemond_thermal_zone_celsius Temperature of a thermal zone\n"
            "# TYPE edgemond_thermal_zone_celsius gauge\n"
            "edgemond_thermal_zone_celsius{zone=\"thermal_zone0\",type=\"cpu-thermal\"} 45.5\n");
}

TEST(PrometheusTextTest, AFamilyWhoseSamplesAreAllMissingIsLeftOut) {
  const std::vector<Sample> samples = {Make(kTemp, {{"zone", "z"}}, std::nullopt)};
  EXPECT_EQ(RenderPrometheusText(GroupSamples(samples)), "");
}

TEST(PrometheusTextTest, PromtoolAcceptsTheOutput) {
  if (testing::Promtool().empty()) {
    GTEST_SKIP() << "promtool not installed (Debian package prometheus)";
  }
  const std::vector<Sample> samples = {
      Make(kTemp, {{"zone", "thermal_zone0"}, {"type", "cpu\"thermal"}}, 45.5),
      Make(kEnergy, {{"label", "a\\b\nc"}}, std::numeric_limits<double>::infinity()),
      Make(kTemp, {{"zone", "thermal_zone2"}, {"type", "x"}}, std::nan("")),
  };
  testing::TempDir dir;
  const std::string file = dir.Join("metrics.prom");
  std::ofstream(file) << RenderPrometheusText(GroupSamples(samples));
  EXPECT_TRUE(testing::PromtoolAccepts(file));
}

}  // namespace
}  // namespace edgemond::http
