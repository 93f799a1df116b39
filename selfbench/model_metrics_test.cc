#include "selfbench/model_metrics.h"

#include <gtest/gtest.h>

#include <map>

namespace edgemond::selfbench {
namespace {

using namespace std::chrono_literals;

std::map<std::string, Sample> ByKey(const std::vector<Sample>& samples) {
  std::map<std::string, Sample> out;
  for (const Sample& sample : samples) out[SeriesKey(sample)] = sample;
  return out;
}

TEST(ModelMetricsTest, LatestRunsBecomeSeries) {
  BenchmarkRun good;
  good.model = "m";
  good.status = BenchmarkStatus::kSucceeded;
  good.finished_at = WallTime(1767225600s);
  good.latency_p50_ms = 12;
  good.latency_p90_ms = 14;
  good.latency_p99_ms = 20;
  good.throughput_per_second = 80;
  good.energy_per_inference_joules = 0.05;
  good.average_watts = 4;
  good.peak_rss_bytes = 1 << 20;
  BenchmarkRun failed = good;
  failed.status = BenchmarkStatus::kFailed;
  failed.finished_at = WallTime(1767229200500ms);

  const auto samples = ByKey(ModelMetrics({{"m", failed, good}}, WallTime(1767229201s)));
  EXPECT_EQ(samples.size(), 9u);
  EXPECT_EQ(samples.at("edgemond_model_latency_seconds{model=\"m\",quantile=\"0.5\"}").value,
            0.012);
  EXPECT_EQ(samples.at("edgemond_model_latency_seconds{model=\"m\",quantile=\"0.99\"}").value,
            0.02);
  EXPECT_EQ(samples.at("edgemond_model_throughput_per_second{model=\"m\"}").value, 80);
  EXPECT_EQ(samples.at("edgemond_model_energy_per_inference_joules{model=\"m\"}").value, 0.05);
  EXPECT_EQ(samples.at("edgemond_model_power_watts{model=\"m\"}").value, 4);
  EXPECT_EQ(samples.at("edgemond_model_peak_memory_bytes{model=\"m\"}").value, 1 << 20);
  // The latest run failed: success 0 and its finish time, the values of the last good run.
  EXPECT_EQ(samples.at("edgemond_model_benchmark_success{model=\"m\"}").value, 0);
  EXPECT_EQ(samples.at("edgemond_model_last_run_timestamp_seconds{model=\"m\"}").value,
            1767229200.5);
}

TEST(ModelMetricsTest, AValueThatWasNotMeasuredIsMissingWithItsReason) {
  BenchmarkRun run;
  run.model = "m";
  run.status = BenchmarkStatus::kSucceeded;
  run.finished_at = WallTime(1767225600s);
  run.latency_p50_ms = 1;
  run.energy_missing_reason = "no input power or energy sensor on this device";
  const auto samples = ByKey(ModelMetrics({{"m", run, run}}, WallTime(1767225601s)));
  const Sample& energy = samples.at("edgemond_model_energy_per_inference_joules{model=\"m\"}");
  EXPECT_FALSE(energy.value);
  EXPECT_EQ(energy.missing_reason, "no input power or energy sensor on this device");
  EXPECT_TRUE(ModelMetrics({{"never", std::nullopt, std::nullopt}}, {}).empty());
}

}  // namespace
}  // namespace edgemond::selfbench
