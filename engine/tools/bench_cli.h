// edgemond-bench: loads an ONNX model, runs it on deterministic inputs and reports load time,
// latency, throughput, memory, model size, parameters, FLOPs and an op histogram; optionally
// checks outputs against model-zoo golden data, profiles per node and writes a Chrome trace of
// the timed runs (engine/tools/chrome_trace.h). In the spirit of
// TFLite's benchmark_model and onnxruntime_perf_test. The --json schema is in docs/engine.md.
//
// Exit status: 0 success, 1 the model could not be loaded or run or --check found a mismatch,
// 2 bad command line.

#ifndef EDGEMOND_ENGINE_TOOLS_BENCH_CLI_H_
#define EDGEMOND_ENGINE_TOOLS_BENCH_CLI_H_

#include <istream>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engine/passes.h"

namespace edgemond::engine {

struct BenchOptions {
  std::string model_path;
  int warmup_runs = 1;
  int runs = 10;
  double duration_seconds = 0.0;  // When > 0, replaces runs.
  int threads = 1;
  InputShapes input_shapes;
  std::string check_dir;    // A model-zoo test_data_set_N directory, or the directory of them.
  double tolerance = 1e-4;  // Relative, floored at 1 (see engine/compare.h).
  bool profile = false;
  std::string trace_path;  // --trace FILE; empty for none.
  bool json = false;
  bool help = false;
  // --report: a table of these models (benchmarked now) and reports (JSON files, "-" for stdin);
  // engine/tools/report.h. model_path is then empty.
  bool report = false;
  std::vector<std::string> report_inputs;
};

// Parses the arguments after the program name. kInvalidArgument explains what is wrong.
Result<BenchOptions> ParseBenchArgs(std::span<const std::string_view> args);

// The usage text.
std::string BenchUsage();

// Runs the benchmark and writes the report to `out` and errors to `err`. Returns the exit
// status.
int RunBench(const BenchOptions& options, std::ostream& out, std::ostream& err);

// --report: reads and benchmarks options.report_inputs ("-" from `in`) and writes the table.
// Returns 1 when an input could not be read or a model could not be benchmarked.
int RunReport(const BenchOptions& options, std::istream& in, std::ostream& out, std::ostream& err);

// main(): parse, run, exit status.
int BenchMain(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_TOOLS_BENCH_CLI_H_
