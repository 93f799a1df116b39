// The edgemond_model_* series: each model's latest benchmark results, exported with every
// collection so that /metrics, the API, the database and alert rules see them like any other
// series (docs/metrics.md).
//
//   edgemond_model_latency_seconds{model,quantile}      p50, p90, p99 ("0.5", "0.9", "0.99")
//   edgemond_model_throughput_per_second{model}
//   edgemond_model_energy_per_inference_joules{model}
//   edgemond_model_power_watts{model}                   average input power over the window
//   edgemond_model_peak_memory_bytes{model}             the benchmark process's peak RSS
//   edgemond_model_last_run_timestamp_seconds{model}    when the latest run finished
//   edgemond_model_benchmark_success{model}             1 if the latest run succeeded, else 0
//
// The last two describe the latest finished run; the others its latest successful run, so a
// failed run does not blank a dashboard. A value the run could not measure (no power sensor) is a
// sample without a value, with the reason.

#ifndef EDGEMOND_SELFBENCH_MODEL_METRICS_H_
#define EDGEMOND_SELFBENCH_MODEL_METRICS_H_

#include <optional>
#include <string>
#include <vector>

#include "core/benchmark.h"
#include "core/sample.h"

namespace edgemond::selfbench {

struct ModelRuns {
  std::string model;
  std::optional<BenchmarkRun> latest;            // Latest finished run.
  std::optional<BenchmarkRun> latest_succeeded;  // Latest successful run.
};

std::vector<Sample> ModelMetrics(const std::vector<ModelRuns>& models, WallTime now);

// Every metric ModelMetrics() produces.
std::vector<const MetricDesc*> ModelMetricDescs();

}  // namespace edgemond::selfbench

#endif  // EDGEMOND_SELFBENCH_MODEL_METRICS_H_
