#include "daemon/derived_metrics.h"

#include <gtest/gtest.h>

#include <map>

namespace edgemond::daemon {
namespace {

constexpr MetricDesc kAvailable{"edgemond_memory_available_bytes", "", MetricType::kGauge, ""};
constexpr MetricDesc kTotal{"edgemond_memory_total_bytes", "", MetricType::kGauge, ""};
constexpr MetricDesc kZone{"edgemond_thermal_zone_celsius", "", MetricType::kGauge, ""};
constexpr MetricDesc kTrip{"edgemond_thermal_zone_trip_celsius", "", MetricType::kGauge, ""};
constexpr MetricDesc kInput{"edgemond_power_input_watts", "", MetricType::kGauge, ""};

std::map<std::string, double> ByKey(const std::vector<Sample>& samples) {
  std::map<std::string, double> out;
  for (const Sample& sample : samples) out[SeriesKey(sample)] = sample.value.value_or(-999);
  return out;
}

Sample Trip(const std::string& zone, const std::string& type, const std::string& index,
            double celsius) {
  return Sample{&kTrip,
                {{"zone", zone}, {"type", zone}, {"trip", index}, {"trip_type", type}},
                celsius,
                "",
                {}};
}

TEST(DerivedMetricsTest, RatiosHeadroomAndFailingCollectors) {
  const std::vector<Sample> samples = {
      Sample{&kTotal, {}, 8000.0, "", {}},
      Sample{&kAvailable, {}, 600.0, "", {}},
      Sample{&kZone, {{"zone", "cpu"}, {"type", "cpu"}}, 91.5, "", {}},
      Sample{&kZone, {{"zone", "gpu"}, {"type", "gpu"}}, std::nullopt, "EIO", {}},
      Trip("cpu", "passive", "0", 95),
      Trip("cpu", "passive", "1", 90),  // The lowest passive trip counts.
      Trip("cpu", "critical", "2", 105),
      Trip("gpu", "passive", "0", 95),  // No reading: no headroom.
      Sample{&kInput, {}, 18.0, "", {}},
  };
  std::vector<collectors::CollectorState> collectors(3);
  using collectors::CollectorHealth;
  collectors[0] = {"cpu", CollectorHealth::kOk, Status::Ok(), {}};
  collectors[1] = {"thermal", CollectorHealth::kFailing, Status::IoError("EIO"), {}};
  collectors[2] = {"hwmon", CollectorHealth::kNoHardware, Status::NotFound("no hwmon here"), {}};

  const auto derived = ByKey(DeriveSamples(samples, collectors, {.power_budget_watts = 15}, {}));
  EXPECT_EQ(derived, (std::map<std::string, double>{
                         {"edgemond_collector_failing{collector=\"cpu\"}", 0},
                         {"edgemond_collector_failing{collector=\"hwmon\"}", 0},
                         {"edgemond_collector_failing{collector=\"thermal\"}", 1},
                         {"edgemond_memory_available_ratio", 0.075},
                         {"edgemond_power_input_budget_ratio", 1.2},
                         {"edgemond_thermal_zone_trip_headroom_celsius{trip_type=\"critical\","
                          "type=\"cpu\",zone=\"cpu\"}",
                          13.5},
                         {"edgemond_thermal_zone_trip_headroom_celsius{trip_type=\"passive\","
                          "type=\"cpu\",zone=\"cpu\"}",
                          -1.5},
                     }));
  // No budget: no budget ratio; no total: no memory ratio.
  const auto without = ByKey(DeriveSamples({samples[1], samples[8]}, {}, {}, {}));
  EXPECT_TRUE(without.empty());
}

// A SampleDeriver matches zones with their trip points by label values once, then recognizes the
// same series by their labels' identity; it must derive what a fresh one derives, every time.
TEST(DerivedMetricsTest, KeptPlanDerivesWhatAFreshDeriverDerives) {
  std::vector<Sample> samples = {
      Sample{&kZone, {{"zone", "cpu"}, {"type", "cpu"}}, 91.5, "", {}},
      Sample{&kZone, {{"zone", "gpu"}, {"type", "gpu"}}, 60.0, "", {}},
      Trip("cpu", "passive", "0", 95),
      Trip("cpu", "passive", "1", 90),
      Trip("cpu", "critical", "2", 105),
      Trip("gpu", "passive", "0", 95),
  };
  SampleDeriver deriver;
  const auto derive = [&] { return ByKey(deriver.Derive(samples, {}, {}, {})); };
  const auto fresh = [&] { return ByKey(DeriveSamples(samples, {}, {}, {})); };
  const std::string gpu_passive =
      "edgemond_thermal_zone_trip_headroom_celsius{trip_type=\"passive\",type=\"gpu\","
      "zone=\"gpu\"}";

  EXPECT_EQ(derive(), fresh());
  EXPECT_EQ(derive().size(), 3u);
  EXPECT_EQ(deriver.TEST_plans_made(), 1u);

  // New values, same series: the plan is kept and the values follow.
  samples[0].value = 92.0;
  samples[3].value = 85.0;
  samples[1].value = 70.0;
  EXPECT_EQ(derive(), fresh());
  EXPECT_EQ(derive()[gpu_passive], 25.0);
  EXPECT_EQ(deriver.TEST_plans_made(), 1u);

  // A zone without a reading drops out: a new plan.
  samples[1].value.reset();
  EXPECT_EQ(derive(), fresh());
  EXPECT_EQ(derive().count(gpu_passive), 0u);
  EXPECT_EQ(deriver.TEST_plans_made(), 2u);
  samples[1].value = 70.0;
  EXPECT_EQ(derive(), fresh());
  EXPECT_EQ(deriver.TEST_plans_made(), 3u);

  // A rescan builds new labels (here: the gpu zone renamed): a new plan, the new name.
  samples[1].labels = Labels{{"zone", "gpu0"}, {"type", "gpu"}};
  samples[5] = Trip("gpu0", "passive", "0", 95);
  const auto renamed = derive();
  EXPECT_EQ(renamed, fresh());
  EXPECT_EQ(renamed.count(gpu_passive), 0u);
  EXPECT_EQ(renamed.size(), 3u);
  EXPECT_EQ(deriver.TEST_plans_made(), 4u);
}

}  // namespace
}  // namespace edgemond::daemon
