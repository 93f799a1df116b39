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

#include "core/benchmark.h"
#include "core/clock.h"
#include "core/result.h"
#include "selfbench/model_spec.h"

namespace edgemond::selfbench {

// argv for `bench_path MODEL --json --warmup N (--runs N | --duration S) --threads N
// [--input-shape NAME:DIMS]... [--check DIR --tolerance R]`.
std::vector<std::string> BenchCommandLine(const std::string& bench_path, const ModelSpec& spec);

// What a --json report says beside the measurements it writes into the run's record. Absent
// keys stay empty: an older or newer edgemond-bench still reports what both know.
struct BenchOutput {
  // {"error": {"code", "message"}}: the model could not be loaded or run.
  std::optional<std::string> error_code;
  std::optional<std::string> error_message;
  // The timed window on CLOCK_MONOTONIC (the same clock as the daemon's SteadyTime).
  std::optional<SteadyTime> window_start;
  std::optional<SteadyTime> window_end;
  // --check: whether every output matched, and the first mismatching output's detail.
  std::optional<bool> check_passed;
  std::string check_detail;
};

// Parses the report and writes its measurements into `run`: model_bytes (file plus external
// data), parameters, flops, precision (the first input's element type), load_ms, warmup_ms,
// runs, the latencies, throughput_per_second and arena_bytes; peak_rss_bytes unless `run` has
// it (the daemon's own measurement of the child comes first); and with --check outputs_match,
// max_abs_error (the largest over the outputs) and top1_match (all outputs agree). kCorruption
// when `text` is not one JSON object; then, and when the report is an error, `run` is unchanged.
Result<BenchOutput> ParseBenchOutput(std::string_view text, BenchmarkRun& run);

}  // namespace edgemond::selfbench

#endif  // EDGEMOND_SELFBENCH_BENCH_OUTPUT_H_
