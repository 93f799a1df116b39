// The contract with edgemond-bench: the command line the daemon runs it with, and what the daemon
// reads back from its --json report (docs/engine.md lists every key). Only these two functions
// know edgemond-bench's flags and keys, so the engine can grow its report without the daemon
// noticing.

#ifndef EDGEMOND_SELFBENCH_BENCH_OUTPUT_H_
#define EDGEMOND_SELFBENCH_BENCH_OUTPUT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "selfbench/model_spec.h"

namespace edgemond::selfbench {

// argv for `bench_path MODEL --json --warmup N (--runs N | --duration S) --threads N
// [--input-shape NAME:DIMS]... [--check DIR --tolerance R]`.
std::vector<std::string> BenchCommandLine(const std::string& bench_path, const ModelSpec& spec);

// What a --json report says. Absent keys stay empty: an older or newer edgemond-bench still
// reports what both know.
struct BenchOutput {
  // {"error": {"code", "message"}}: the model could not be loaded or run.
  std::optional<std::string> error_code;
  std::optional<std::string> error_message;

  std::optional<std::int64_t> model_bytes;  // file_bytes + external_data_bytes
  std::optional<std::int64_t> parameters;
  std::optional<std::int64_t> flops;
  std::string precision;  // The first input's element type.

  std::optional<double> load_ms;
  std::optional<double> warmup_ms;
  std::optional<std::int64_t> runs;
  std::optional<double> latency_min_ms, latency_mean_ms, latency_p50_ms, latency_p90_ms,
      latency_p99_ms, latency_max_ms;
  std::optional<double> throughput_per_second;
  // The timed window on CLOCK_MONOTONIC (the same clock as the daemon's SteadyTime).
  std::optional<SteadyTime> window_start;
  std::optional<SteadyTime> window_end;

  std::optional<std::int64_t> arena_bytes;
  std::optional<std::int64_t> peak_rss_bytes;

  // --check.
  std::optional<bool> check_passed;
  std::optional<double> max_abs_error;  // Largest over the outputs.
  std::optional<bool> top1_match;       // All outputs agree on their top-1.
  std::string check_detail;             // The first mismatching output's detail.
};

// Parses the report. kCorruption when `text` is not one JSON object.
Result<BenchOutput> ParseBenchOutput(std::string_view text);

}  // namespace edgemond::selfbench

#endif  // EDGEMOND_SELFBENCH_BENCH_OUTPUT_H_
