#include "selfbench/model_metrics.h"

namespace edgemond::selfbench {
namespace {

constexpr MetricDesc kLatency{"edgemond_model_latency_seconds",
                              "Latency of one inference in the model's latest successful "
                              "benchmark, by quantile",
                              MetricType::kSummary, "seconds"};
constexpr MetricDesc kThroughput{"edgemond_model_throughput_per_second",
                                 "Inferences per second in the model's latest successful benchmark",
                                 MetricType::kGauge, ""};
constexpr MetricDesc kEnergy{"edgemond_model_energy_per_inference_joules",
                             "Input energy per inference in the model's latest successful "
                             "benchmark",
                             MetricType::kGauge, "joules"};
constexpr MetricDesc kPower{"edgemond_model_power_watts",
                            "Average input power during the model's latest successful benchmark",
                            MetricType::kGauge, "watts"};
constexpr MetricDesc kPeakMemory{"edgemond_model_peak_memory_bytes",
                                 "Peak resident memory of the model's latest successful benchmark "
                                 "process",
                                 MetricType::kGauge, "bytes"};
constexpr MetricDesc kLastRun{"edgemond_model_last_run_timestamp_seconds",
                              "When the model's latest benchmark run finished (Unix time)",
                              MetricType::kGauge, "seconds"};
constexpr MetricDesc kSuccess{
    "edgemond_model_benchmark_success",
    "Whether the model's latest benchmark run succeeded (1) or failed (0)", MetricType::kGauge, ""};

Sample Make(const MetricDesc& desc, Labels labels, std::optional<double> value, WallTime now,
            std::string_view reason) {
  Sample sample{&desc, std::move(labels), value, "", now};
  if (!value) sample.missing_reason = std::string(reason);
  return sample;
}

}  // namespace

std::vector<const MetricDesc*> ModelMetricDescs() {
  return {&kLatency, &kThroughput, &kEnergy, &kPower, &kPeakMemory, &kLastRun, &kSuccess};
}

std::vector<Sample> ModelMetrics(const std::vector<ModelRuns>& models, WallTime now) {
  std::vector<Sample> out;
  for (const ModelRuns& model : models) {
    const Labels labels = {{"model", model.model}};
    if (const auto& run = model.latest_succeeded) {
      constexpr std::string_view kNotMeasured = "not measured";
      const auto seconds = [](std::optional<double> ms) -> std::optional<double> {
        if (!ms) return std::nullopt;
        return *ms / 1000.0;
      };
      out.push_back(Make(kLatency, {{"model", model.model}, {"quantile", "0.5"}},
                         seconds(run->latency_p50_ms), now, kNotMeasured));
      out.push_back(Make(kLatency, {{"model", model.model}, {"quantile", "0.9"}},
                         seconds(run->latency_p90_ms), now, kNotMeasured));
      out.push_back(Make(kLatency, {{"model", model.model}, {"quantile", "0.99"}},
                         seconds(run->latency_p99_ms), now, kNotMeasured));
      out.push_back(Make(kThroughput, labels, run->throughput_per_second, now, kNotMeasured));
      const std::string no_energy = run->energy_missing_reason.empty() ? std::string(kNotMeasured)
                                                                       : run->energy_missing_reason;
      out.push_back(Make(kEnergy, labels, run->energy_per_inference_joules, now, no_energy));
      out.push_back(Make(kPower, labels, run->average_watts, now, no_energy));
      std::optional<double> rss;
      if (run->peak_rss_bytes) rss = static_cast<double>(*run->peak_rss_bytes);
      out.push_back(Make(kPeakMemory, labels, rss, now, kNotMeasured));
    }
    if (const auto& run = model.latest) {
      std::optional<double> finished;
      if (run->finished_at) finished = static_cast<double>(ToUnixMillis(*run->finished_at)) / 1000;
      out.push_back(Make(kLastRun, labels, finished, now, "not finished"));
      out.push_back(
          Make(kSuccess, labels, run->status == BenchmarkStatus::kSucceeded ? 1.0 : 0.0, now, ""));
    }
  }
  return out;
}

}  // namespace edgemond::selfbench
