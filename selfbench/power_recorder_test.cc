#include "selfbench/power_recorder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

namespace edgemond::selfbench {
namespace {

using namespace std::chrono_literals;

// The series as the collectors name them (docs/metrics.md).
constexpr MetricDesc kInput{"edgemond_power_input_watts", "", MetricType::kGauge, "watts"};
constexpr MetricDesc kRail{"edgemond_power_rail_watts", "", MetricType::kGauge, "watts"};
constexpr MetricDesc kRapl{"edgemond_energy_joules_total", "", MetricType::kCounter, "joules"};
constexpr MetricDesc kGpuEnergy{"edgemond_gpu_energy_joules_total", "", MetricType::kCounter,
                                "joules"};
constexpr MetricDesc kGpuPower{"edgemond_gpu_power_watts", "", MetricType::kGauge, "watts"};
constexpr MetricDesc kTemp{"edgemond_thermal_zone_celsius", "", MetricType::kGauge, "celsius"};

const SteadyTime kT0 = SteadyTime(100s);

SteadyTime At(double seconds) {
  return kT0 +
         std::chrono::duration_cast<SteadyTime::duration>(std::chrono::duration<double>(seconds));
}

// Samples every `period` seconds over [0, end] with the given sample maker.
void Feed(PowerRecorder& recorder, double end, double period,
          const std::function<std::vector<Sample>(double)>& make) {
  for (int i = 0; i * period <= end + 1e-9; ++i) recorder.Add(At(i * period), make(i * period));
}

TEST(PowerRecorderTest, IntegratesTheBoardInputOverTheWindow) {
  PowerRecorder recorder;
  // 5 W, then a linear ramp: trapezoids are exact for both.
  Feed(recorder, 4.0, 0.05, [](double t) {
    const double watts = t < 2 ? 5.0 : 5.0 + 2.0 * (t - 2);
    return std::vector<Sample>{Sample{&kInput, {}, watts, "", {}},
                               Sample{&kRail, {{"rail", "VDD_CPU"}}, 1.5, "", {}},
                               Sample{&kTemp, {{"zone", "cpu"}}, 50.0, "", {}}};
  });
  const PowerSummary summary = recorder.Summarize(At(1.0125), At(3.0125));
  ASSERT_TRUE(summary.energy_joules) << summary.missing_reason;
  // 5 W for 0.9875 s, then the ramp from 5 to 7.025 W over 1.0125 s.
  const double expected = 5 * 0.9875 + 0.5 * (5 + 7.025) * 1.0125;
  EXPECT_NEAR(*summary.energy_joules, expected, 1e-9);
  EXPECT_NEAR(*summary.average_watts, expected / 2, 1e-9);
  EXPECT_NEAR(*summary.peak_watts, 7.025, 1e-9);
  EXPECT_EQ(summary.method, "integrated");
  ASSERT_EQ(summary.sources.size(), 2u);
  EXPECT_EQ(summary.sources[0].kind, "input");
  EXPECT_EQ(summary.sources[1].kind, "rail");
  EXPECT_EQ(summary.sources[1].name, "VDD_CPU");
  EXPECT_EQ(summary.sources[1].method, "integrated");
  EXPECT_NEAR(*summary.sources[1].energy_joules, 3.0, 1e-9);
  EXPECT_NEAR(*summary.sources[1].average_watts, 1.5, 1e-9);
}

TEST(PowerRecorderTest, CountersGiveTheirIncreaseAndTheInputIsTheirSum) {
  PowerRecorder recorder;
  // package-0 at 10 W, package-1 at 4 W, a GPU counter at 30 W (its power reading is ignored), a
  // sub-domain that must not be added, and a counter that wrapped in the middle of a reading.
  Feed(recorder, 3.0, 0.1, [](double t) {
    return std::vector<Sample>{
        Sample{&kRapl, {{"domain", "package-0"}}, 1000 + 10 * t, "", {}},
        Sample{&kRapl, {{"domain", "package-1"}}, 50 + 4 * t, "", {}},
        Sample{&kRapl, {{"domain", "package-0/core"}}, 7 * t, "", {}},
        Sample{&kGpuEnergy, {{"gpu", "0"}}, 30 * t, "", {}},
        Sample{&kGpuPower, {{"gpu", "0"}}, 29.0, "", {}},
    };
  });
  const PowerSummary summary = recorder.Summarize(At(0.55), At(2.05));
  ASSERT_TRUE(summary.energy_joules) << summary.missing_reason;
  EXPECT_NEAR(*summary.energy_joules, (10 + 4 + 30) * 1.5, 1e-6);
  EXPECT_NEAR(*summary.average_watts, 44, 1e-6);
  EXPECT_NEAR(*summary.peak_watts, 44, 1e-6);
  EXPECT_EQ(summary.method, "counter");
  ASSERT_EQ(summary.sources.size(), 4u);  // Three RAPL domains and the GPU's counter.
  EXPECT_EQ(summary.sources[0].name, "package-0");
  EXPECT_EQ(summary.sources[1].name, "package-0/core");
  EXPECT_NEAR(*summary.sources[1].energy_joules, 7 * 1.5, 1e-6);
  EXPECT_EQ(summary.sources[3].kind, "gpu");
  EXPECT_EQ(summary.sources[3].method, "counter");
}

TEST(PowerRecorderTest, PsysCoversThePlatformAlone) {
  PowerRecorder recorder;
  Feed(recorder, 2.0, 0.1, [](double t) {
    return std::vector<Sample>{Sample{&kRapl, {{"domain", "package-0"}}, 10 * t, "", {}},
                               Sample{&kRapl, {{"domain", "psys"}}, 25 * t, "", {}}};
  });
  const PowerSummary summary = recorder.Summarize(At(0.5), At(1.5));
  ASSERT_TRUE(summary.average_watts);
  EXPECT_NEAR(*summary.average_watts, 25, 1e-6);
}

TEST(PowerRecorderTest, TheInputRailWinsOverEverythingElse) {
  PowerRecorder recorder;
  Feed(recorder, 2.0, 0.1, [](double t) {
    return std::vector<Sample>{Sample{&kInput, {}, 8.0, "", {}},
                               Sample{&kRapl, {{"domain", "package-0"}}, 10 * t, "", {}}};
  });
  const PowerSummary summary = recorder.Summarize(At(0.5), At(1.5));
  ASSERT_TRUE(summary.average_watts);
  EXPECT_NEAR(*summary.average_watts, 8, 1e-9);
  EXPECT_EQ(summary.method, "integrated");
}

TEST(PowerRecorderTest, APeakBetweenReadingsOfACounterIsItsRate) {
  PowerRecorder recorder;
  // 2 W, except 12 W between 1.0 and 1.1 s.
  double joules = 0;
  for (int i = 0; i <= 20; ++i) {
    const double t = i * 0.1;
    if (i > 0) joules += (t > 1.0 && t <= 1.1 + 1e-9 ? 12.0 : 2.0) * 0.1;
    recorder.Add(At(t), {Sample{&kRapl, {{"domain", "package-0"}}, joules, "", {}}});
  }
  const PowerSummary summary = recorder.Summarize(At(0.5), At(1.5));
  ASSERT_TRUE(summary.peak_watts);
  EXPECT_NEAR(*summary.peak_watts, 12, 1e-6);
  EXPECT_NEAR(*summary.energy_joules, 2 * 0.9 + 12 * 0.1, 1e-6);
}

TEST(PowerRecorderTest, ASourceThatDoesNotCoverTheWindowHasNoValue) {
  PowerRecorder recorder;
  Feed(recorder, 1.0, 0.1, [](double) {
    return std::vector<Sample>{Sample{&kInput, {}, 5.0, "", {}}};
  });
  const PowerSummary summary = recorder.Summarize(At(0.5), At(1.5));
  EXPECT_FALSE(summary.energy_joules);
  EXPECT_NE(summary.missing_reason.find("not read over the whole window"), std::string::npos)
      << summary.missing_reason;
  ASSERT_EQ(summary.sources.size(), 1u);
  EXPECT_FALSE(summary.sources[0].energy_joules);
}

TEST(PowerRecorderTest, MissingReadingsAreSkippedNotZero) {
  PowerRecorder recorder;
  Feed(recorder, 2.0, 0.1, [](double t) {
    Sample sample{&kInput, {}, 6.0, "", {}};
    if (t > 0.9 && t < 1.3) {
      sample.value.reset();
      sample.missing_reason = "EIO: Input/output error";
    }
    return std::vector<Sample>{sample};
  });
  const PowerSummary summary = recorder.Summarize(At(0.5), At(1.5));
  ASSERT_TRUE(summary.energy_joules);
  EXPECT_NEAR(*summary.energy_joules, 6.0, 1e-9);
}

TEST(PowerRecorderTest, WithoutSensorsThereIsAReason) {
  PowerRecorder recorder;
  recorder.Add(At(0), {Sample{&kTemp, {{"zone", "cpu"}}, 50.0, "", {}}});
  EXPECT_TRUE(recorder.empty());
  const PowerSummary summary = recorder.Summarize(At(0), At(1));
  EXPECT_FALSE(summary.energy_joules);
  EXPECT_TRUE(summary.sources.empty());
  EXPECT_NE(summary.missing_reason.find("no input power or energy sensor"), std::string::npos);
}

TEST(PowerRecorderTest, ALongRunKeepsItsSpanAtLowerResolution) {
  PowerRecorder recorder;
  const std::size_t n = PowerRecorder::kMaxPointsPerSeries + 10;
  for (std::size_t i = 0; i < n; ++i) {
    recorder.Add(At(static_cast<double>(i) * 0.05), {Sample{&kInput, {}, 3.0, "", {}}});
  }
  const double end = static_cast<double>(n - 1) * 0.05;
  const PowerSummary summary = recorder.Summarize(At(1), At(end));
  ASSERT_TRUE(summary.energy_joules);
  EXPECT_NEAR(*summary.energy_joules, 3.0 * (end - 1), 1e-6);
}

}  // namespace
}  // namespace edgemond::selfbench
