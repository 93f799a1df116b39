// The self-benchmark vocabulary shared by selfbench (which runs and judges benchmarks), storage
// (which keeps the runs) and http (which serves them): one run of one configured model, what it
// measured, and the baseline it was judged against.
//
// A run is one execution of edgemond-bench on one model in a child process, with the device's
// power and energy sampled over the timed window. Every measured value is optional: a failed run
// has few, a device without power sensors has no energy, a model without golden data has no
// output check. A value that could not be measured is absent, never 0. docs/selfbench.md
// describes every field.

#ifndef EDGEMOND_CORE_BENCHMARK_H_
#define EDGEMOND_CORE_BENCHMARK_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "core/sample.h"

namespace edgemond {

// running -> succeeded | failed.
enum class BenchmarkStatus { kRunning, kSucceeded, kFailed };

// "running" / "succeeded" / "failed".
std::string_view BenchmarkStatusName(BenchmarkStatus status);
Result<BenchmarkStatus> ParseBenchmarkStatus(std::string_view name);

// One power or energy source over the timed window of a run.
struct BenchmarkPowerSource {
  // What it measures: "input" (the board's input rail, which contains every other rail), "rail"
  // (one INA3221 rail), "rapl" (one RAPL domain), "gpu" (a GPU's own sensor), "hwmon" (an hwmon
  // energy counter).
  std::string kind;
  std::string name;    // The rail, domain or GPU ("VDD_CPU_GPU_CV", "package-0", "0").
  std::string method;  // "counter" (energy counter deltas) or "integrated" (power over time).
  std::optional<double> average_watts;
  std::optional<double> peak_watts;
  std::optional<double> energy_joules;
};

// A device reading at the start and at the end of a run (a temperature, a clock).
struct BenchmarkReading {
  std::string metric;  // "edgemond_thermal_zone_celsius"
  Labels labels;       // As the collector labels the series.
  std::optional<double> start;
  std::optional<double> end;
};

struct BenchmarkRun {
  std::int64_t id = 0;  // Assigned by the store when the run is accepted; 0 before.
  std::string model;    // The configured model's name.
  std::string trigger;  // "schedule" or "api".
  BenchmarkStatus status = BenchmarkStatus::kRunning;
  std::string error;  // Failed runs: what went wrong, in a sentence. Else "".
  WallTime started_at{};
  std::optional<WallTime> finished_at;

  // What ran: the model file and the settings, as edgemond-bench was asked to run them.
  std::string model_path;
  std::string settings;  // Canonical text of the run settings ("threads=1 warmup=3 ...").
  int threads = 1;
  int warmup_runs = 0;

  // The model, as edgemond-bench loaded it.
  std::optional<std::int64_t> model_bytes;  // File plus external data.
  std::optional<std::int64_t> parameters;
  std::optional<std::int64_t> flops;  // Per inference (multiply-add = 2).
  std::string precision;              // Element type of the model's inputs ("float32").

  // Timing.
  std::optional<double> load_ms;
  std::optional<double> warmup_ms;
  std::optional<std::int64_t> runs;      // Timed inferences.
  std::optional<WallTime> window_start;  // The timed window (every timed inference, no warm-up).
  std::optional<WallTime> window_end;
  std::optional<double> window_seconds;
  std::optional<double> latency_min_ms;
  std::optional<double> latency_mean_ms;
  std::optional<double> latency_p50_ms;
  std::optional<double> latency_p90_ms;
  std::optional<double> latency_p99_ms;
  std::optional<double> latency_max_ms;
  std::optional<double> throughput_per_second;

  // Memory: the child's peak RSS (from the kernel, whatever the child did) and the engine's arena.
  std::optional<std::int64_t> peak_rss_bytes;
  std::optional<std::int64_t> arena_bytes;

  // The child process.
  std::optional<int> exit_code;       // When it exited.
  std::optional<int> signal;          // When a signal ended it (the deadline's SIGKILL included).
  std::optional<double> cpu_seconds;  // User + system CPU time of the child.

  // Power and energy over the timed window ("input" is the whole board or the sum of the
  // measured domains; docs/selfbench.md says which sources count).
  std::string energy_method;          // "counter", "integrated", "counter+integrated" or "".
  std::string energy_missing_reason;  // Why there is no energy, when there is none.
  std::optional<double> idle_watts;   // Input power just before the run.
  std::optional<double> average_watts;
  std::optional<double> peak_watts;
  std::optional<double> energy_joules;
  std::optional<double> energy_per_inference_joules;
  std::optional<double> energy_above_idle_per_inference_joules;
  std::optional<double> inferences_per_joule;
  std::optional<double> gflops_per_second;
  std::optional<double> gflops_per_watt;
  std::vector<BenchmarkPowerSource> power;

  // The device around the run.
  std::string power_mode;  // "<id> <name>" of a Jetson's nvpmodel mode; "" where there is none.
  bool throttled = false;  // Any throttling seen from start to end.
  std::vector<std::string> throttle_reasons;            // "cpu/frequency_cap", ...
  std::optional<double> max_temperature_start_celsius;  // Hottest thermal zone.
  std::optional<double> max_temperature_end_celsius;
  std::optional<double> cpu_frequency_start_hertz;  // Mean over the online cores.
  std::optional<double> cpu_frequency_end_hertz;
  std::optional<double> gpu_frequency_start_hertz;  // Mean over the GPUs.
  std::optional<double> gpu_frequency_end_hertz;
  std::optional<int> cpu_cores;                  // Online cores.
  std::optional<double> system_cpu_utilization;  // Whole device, 0..1 of all cores.
  std::optional<double> other_cpu_utilization;   // Minus the benchmark's own share.
  std::vector<BenchmarkReading> readings;

  // Golden data (when configured).
  std::optional<bool> outputs_match;
  std::optional<double> max_abs_error;
  std::optional<bool> top1_match;

  // The verdict: which checks the run failed ("failed", "output", "latency", "energy", "memory",
  // "latency_budget", "energy_budget"), the cause hints, and the baseline it was compared with.
  std::vector<std::string> regressions;
  std::vector<std::string> hints;
  int baseline_runs = 0;  // Good runs behind the baseline; 0: there was none.
  std::optional<double> baseline_latency_p50_ms;
  std::optional<double> baseline_energy_per_inference_joules;
  std::optional<double> baseline_peak_rss_bytes;
};

// A model's baseline in one power mode: the medians of its recent good runs.
struct BenchmarkBaseline {
  std::string power_mode;
  int runs = 0;
  std::optional<double> latency_p50_ms;
  std::optional<double> energy_per_inference_joules;
  std::optional<double> peak_rss_bytes;
  std::optional<double> max_temperature_start_celsius;
  std::optional<double> cpu_frequency_end_hertz;
  std::optional<double> gpu_frequency_end_hertz;
};

// A configured model and where its benchmarks stand, as GET /api/v1/benchmarks lists it.
struct ModelBenchmarkState {
  std::string model;
  std::string path;
  bool enabled = true;
  std::uint32_t interval_seconds = 0;  // 0: only when asked.
  bool only_when_idle = true;
  std::string settings;                        // As BenchmarkRun::settings.
  std::optional<WallTime> next_run;            // When the next scheduled run is due.
  bool waiting_for_idle = false;               // Due, and waiting for the device to be idle.
  std::optional<std::int64_t> running_run_id;  // A run of this model under way.
  std::optional<BenchmarkRun> latest;          // The most recent finished run.
  std::vector<BenchmarkBaseline> baselines;    // One per power mode with enough good runs.
};

struct BenchmarkHistoryQuery {
  std::string model;
  std::int64_t from_ms = 0;  // Inclusive, Unix milliseconds, on started_at.
  std::int64_t to_ms = 0;    // Inclusive.
  std::size_t limit = 100;   // Newest first; at most this many.
};

}  // namespace edgemond

#endif  // EDGEMOND_CORE_BENCHMARK_H_
