#include "selfbench/run_context.h"

#include <gtest/gtest.h>

namespace edgemond::selfbench {
namespace {

using namespace std::chrono_literals;

constexpr MetricDesc kZone{"edgemond_thermal_zone_celsius", "", MetricType::kGauge, "celsius"};
constexpr MetricDesc kCpuFreq{"edgemond_cpu_frequency_hertz", "", MetricType::kGauge, "hertz"};
constexpr MetricDesc kGpuFreq{"edgemond_gpu_frequency_hertz", "", MetricType::kGauge, "hertz"};
constexpr MetricDesc kUtil{"edgemond_cpu_utilization_ratio", "", MetricType::kGauge, "ratio"};
constexpr MetricDesc kThrottled{"edgemond_throttled", "", MetricType::kGauge, ""};
constexpr MetricDesc kMode{"edgemond_power_mode_info", "", MetricType::kGauge, ""};

std::vector<Sample> Collection(double temp, double cpu_ghz, double util, bool throttled) {
  return {
      Sample{&kZone, {{"zone", "cpu-thermal"}, {"type", "cpu-thermal"}}, temp, "", {}},
      Sample{&kZone, {{"zone", "gpu-thermal"}, {"type", "gpu-thermal"}}, temp - 2, "", {}},
      Sample{&kZone, {{"zone", "cv0-thermal"}, {"type", "cv0"}}, std::nullopt, "offline", {}},
      Sample{&kCpuFreq, {{"cpu", "0"}}, cpu_ghz * 1e9, "", {}},
      Sample{&kCpuFreq, {{"cpu", "1"}}, cpu_ghz * 1e9 / 2, "", {}},
      Sample{&kGpuFreq, {{"gpu", "gpu"}}, 6e8, "", {}},
      Sample{&kUtil, {{"cpu", "all"}}, util, "", {}},
      Sample{&kUtil, {{"cpu", "0"}}, util, "", {}},
      Sample{&kUtil, {{"cpu", "1"}}, util, "", {}},
      Sample{&kUtil, {{"cpu", "2"}}, std::nullopt, "offline", {}},
      Sample{&kThrottled,
             {{"component", "cpu"}, {"reason", "frequency_cap"}},
             throttled ? 1.0 : 0.0,
             "",
             {}},
      Sample{&kMode, {{"id", "0"}, {"name", "MAXN"}}, 1.0, "", {}},
  };
}

TEST(RunContextTest, RecordsTheDeviceAtStartAndEnd) {
  RunContext context;
  const SteadyTime start = SteadyTime(10s);
  context.SetStart(Collection(50, 2.0, 0.05, false));
  context.Observe(start + 1s, Collection(55, 2.0, 0.60, false));
  context.Observe(start + 2s, Collection(61, 1.0, 0.70, true));
  BenchmarkRun run;
  // 2 s of the child at 1.2 CPU-seconds on 2 cores: its own share is 30 %.
  context.Fill(run, start, start + 2s, 1.2);
  EXPECT_EQ(run.power_mode, "0 MAXN");
  EXPECT_EQ(run.max_temperature_start_celsius, 50);
  EXPECT_EQ(run.max_temperature_end_celsius, 61);
  EXPECT_EQ(run.cpu_frequency_start_hertz, 1.5e9);
  EXPECT_EQ(run.cpu_frequency_end_hertz, 0.75e9);
  EXPECT_EQ(run.gpu_frequency_end_hertz, 6e8);
  EXPECT_TRUE(run.throttled);
  EXPECT_EQ(run.throttle_reasons, std::vector<std::string>{"cpu/frequency_cap"});
  EXPECT_EQ(run.cpu_cores, 2);
  ASSERT_TRUE(run.system_cpu_utilization);
  EXPECT_NEAR(*run.system_cpu_utilization, 0.65, 1e-9);
  ASSERT_TRUE(run.other_cpu_utilization);
  EXPECT_NEAR(*run.other_cpu_utilization, 0.35, 1e-9);
  // Every temperature and clock, with its value at both ends; an unreadable zone stays empty.
  ASSERT_EQ(run.readings.size(), 6u);
  EXPECT_EQ(run.readings[0].metric, "edgemond_thermal_zone_celsius");
  EXPECT_EQ(run.readings[0].start, 50);
  EXPECT_EQ(run.readings[0].end, 61);
  EXPECT_FALSE(run.readings[2].start);
  EXPECT_FALSE(run.readings[2].end);
}

TEST(RunContextTest, AShortRunWithoutCollectionsUsesTheStartForBothEnds) {
  RunContext context;
  context.SetStart(Collection(40, 1.0, 0.1, false));
  BenchmarkRun run;
  context.Fill(run, SteadyTime(1s), SteadyTime(1500ms), 0.4);
  EXPECT_EQ(run.max_temperature_start_celsius, 40);
  EXPECT_EQ(run.max_temperature_end_celsius, 40);
  EXPECT_FALSE(run.throttled);
  EXPECT_FALSE(run.system_cpu_utilization);  // No collection measured the run.
  EXPECT_FALSE(run.other_cpu_utilization);
}

TEST(RunContextTest, ADeviceWithoutPowerModesHasNone) {
  EXPECT_EQ(RunContext::PowerMode({Sample{&kZone, {{"zone", "x"}}, 40.0, "", {}}}), "");
}

}  // namespace
}  // namespace edgemond::selfbench
