#include "selfbench/bench_output.h"

#include <gtest/gtest.h>

namespace edgemond::selfbench {
namespace {

TEST(BenchOutputTest, CommandLineCarriesEverySetting) {
  ModelSpec spec;
  spec.name = "m";
  spec.path = "/models/m.onnx";
  spec.warmup_runs = 2;
  spec.duration_seconds = 1.5;
  spec.threads = 4;
  spec.input_shapes["x"] = {1, 3, 64, 64};
  spec.golden_data = "/models/m/test_data_set_0";
  spec.tolerance = 0.001;
  EXPECT_EQ(BenchCommandLine("/usr/bin/edgemond-bench", spec),
            (std::vector<std::string>{"/usr/bin/edgemond-bench", "/models/m.onnx", "--json",
                                      "--warmup", "2", "--duration", "1.5", "--threads", "4",
                                      "--input-shape", "x:1x3x64x64", "--check",
                                      "/models/m/test_data_set_0", "--tolerance", "0.001"}));
  spec.runs = 25;
  spec.golden_data.clear();
  spec.input_shapes.clear();
  EXPECT_EQ(BenchCommandLine("/b", spec),
            (std::vector<std::string>{"/b", "/models/m.onnx", "--json", "--warmup", "2", "--runs",
                                      "25", "--threads", "4"}));
}

TEST(BenchOutputTest, ReadsAReportIntoTheRunsRecord) {
  BenchmarkRun run;
  run.model = "m";
  const auto out = ParseBenchOutput(R"({
    "model": {"path": "/m.onnx", "file_bytes": 1000, "external_data_bytes": 24,
              "parameters": 250, "flops": 4000,
              "inputs": [{"name": "x", "type": "float32", "shape": [1, 16]}]},
    "load_ms": 1.5, "threads": 1, "warmup_runs": 2,
    "latency_ms": {"runs": 40, "min": 0.1, "mean": 0.2, "p50": 0.19, "p90": 0.3, "p99": 0.4,
                   "max": 0.5},
    "throughput_per_second": 5000.0,
    "warmup_ms": 0.6,
    "window": {"start_monotonic_ns": 1000000000, "end_monotonic_ns": 1008000000, "seconds": 0.008},
    "memory": {"arena_bytes": 4096, "unshared_bytes": 8192, "peak_rss_bytes": 12345678},
    "check": {"dir": "/d", "tolerance": 0.0001, "passed": false,
              "outputs": [{"name": "y", "passed": true, "max_abs_error": 1e-7, "top1_match": true},
                          {"name": "z", "passed": false, "max_abs_error": 0.5,
                           "top1_match": false, "detail": "element 3: 1 vs 1.5"}]}
  })",
                                    run);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_FALSE(out->error_message);
  EXPECT_EQ(run.model, "m");  // What the report does not measure stays.
  EXPECT_EQ(run.model_bytes, 1024);
  EXPECT_EQ(run.parameters, 250);
  EXPECT_EQ(run.flops, 4000);
  EXPECT_EQ(run.precision, "float32");
  EXPECT_EQ(run.load_ms, 1.5);
  EXPECT_EQ(run.warmup_ms, 0.6);
  EXPECT_EQ(run.runs, 40);
  EXPECT_EQ(run.latency_min_ms, 0.1);
  EXPECT_EQ(run.latency_mean_ms, 0.2);
  EXPECT_EQ(run.latency_p50_ms, 0.19);
  EXPECT_EQ(run.latency_p90_ms, 0.3);
  EXPECT_EQ(run.latency_p99_ms, 0.4);
  EXPECT_EQ(run.latency_max_ms, 0.5);
  EXPECT_EQ(run.throughput_per_second, 5000.0);
  ASSERT_TRUE(out->window_start && out->window_end);
  EXPECT_EQ(*out->window_end - *out->window_start, std::chrono::milliseconds(8));
  EXPECT_EQ(run.arena_bytes, 4096);
  EXPECT_EQ(run.peak_rss_bytes, 12345678);
  EXPECT_EQ(out->check_passed, false);
  EXPECT_EQ(run.outputs_match, false);
  EXPECT_EQ(run.max_abs_error, 0.5);
  EXPECT_EQ(run.top1_match, false);
  EXPECT_EQ(out->check_detail, "output z: element 3: 1 vs 1.5");
}

TEST(BenchOutputTest, TheDaemonsOwnPeakRssComesFirst) {
  BenchmarkRun run;
  run.peak_rss_bytes = 999;
  ASSERT_TRUE(ParseBenchOutput(R"({"memory": {"peak_rss_bytes": 12345678}})", run).ok());
  EXPECT_EQ(run.peak_rss_bytes, 999);
}

TEST(BenchOutputTest, ReadsAnErrorAndLeavesTheRecordAlone) {
  BenchmarkRun run;
  run.precision = "float32";
  const auto out = ParseBenchOutput(
      R"({"error": {"code": "corruption", "message": "not an ONNX model: parse failed"}})", run);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->error_code, "corruption");
  EXPECT_EQ(out->error_message, "not an ONNX model: parse failed");
  EXPECT_EQ(run.precision, "float32");
}

TEST(BenchOutputTest, AReportWithoutTheNewerKeysStillReads) {
  BenchmarkRun run;
  const auto out = ParseBenchOutput(R"({"latency_ms": {"runs": 3, "p50": 2.0}})", run);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(run.latency_p50_ms, 2.0);
  EXPECT_FALSE(out->window_start);
  EXPECT_FALSE(run.warmup_ms);
  EXPECT_FALSE(out->check_passed);
  EXPECT_FALSE(run.outputs_match);
}

TEST(BenchOutputTest, RefusesWhatIsNotAReport) {
  BenchmarkRun run;
  run.runs = 7;
  for (const char* text : {"", "Segmentation fault", "[1, 2]", R"({"latency_ms": )"}) {
    EXPECT_EQ(ParseBenchOutput(text, run).status().code(), StatusCode::kCorruption) << text;
  }
  EXPECT_EQ(run.runs, 7);
}

}  // namespace
}  // namespace edgemond::selfbench
