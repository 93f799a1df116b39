#include "engine/tools/bench_cli.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/tools/report.h"
#include "tests/testing/child_process.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::engine {
namespace {

using edgemond::testing::TempDir;

Result<BenchOptions> Parse(std::vector<std::string_view> args) { return ParseBenchArgs(args); }

TEST(BenchArgsTest, ParsesEveryOption) {
  Result<BenchOptions> options =
      Parse({"m.onnx", "--warmup", "0", "--runs", "7", "--threads", "2", "--input-shape",
             "in:put:1x3x8x8", "--input-shape", "mask:4,5", "--check", "golden", "--tolerance",
             "1e-3", "--profile", "--trace", "t.json", "--json"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->model_path, "m.onnx");
  EXPECT_EQ(options->warmup_runs, 0);
  EXPECT_EQ(options->runs, 7);
  EXPECT_EQ(options->threads, 2);
  EXPECT_EQ(options->input_shapes.at("in:put"), (std::vector<std::int64_t>{1, 3, 8, 8}));
  EXPECT_EQ(options->input_shapes.at("mask"), (std::vector<std::int64_t>{4, 5}));
  EXPECT_EQ(options->check_dir, "golden");
  EXPECT_DOUBLE_EQ(options->tolerance, 1e-3);
  EXPECT_TRUE(options->profile);
  EXPECT_EQ(options->trace_path, "t.json");
  EXPECT_TRUE(options->json);
  EXPECT_DOUBLE_EQ(Parse({"m.onnx", "--duration", "2.5"})->duration_seconds, 2.5);
}

TEST(BenchArgsTest, RefusesBadArguments) {
  for (const std::vector<std::string_view>& args :
       std::vector<std::vector<std::string_view>>{{},
                                                  {"m.onnx", "--runs"},
                                                  {"m.onnx", "--runs", "0"},
                                                  {"m.onnx", "--runs", "ten"},
                                                  {"m.onnx", "--threads", "-1"},
                                                  {"m.onnx", "--duration", "0"},
                                                  {"m.onnx", "--runs", "3", "--duration", "1"},
                                                  {"m.onnx", "--input-shape", "1x3"},
                                                  {"m.onnx", "--input-shape", "x:1xy"},
                                                  {"m.onnx", "--frobnicate"},
                                                  {"m.onnx", "--trace"},
                                                  {"m.onnx", "--trace", ""},
                                                  {"a.onnx", "b.onnx"}}) {
    EXPECT_FALSE(Parse(args).ok()) << (args.empty() ? "(none)" : args.back());
  }
  EXPECT_TRUE(Parse({"--help"})->help);
}

// y = Softmax(x @ w), x [1, 3] input, w [3, 4] initializer.
std::string WriteModel(const TempDir& dir) {
  onnx::ModelProto model;
  model.set_ir_version(7);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("softmax_of_matmul");
  auto value = [](onnx::ValueInfoProto* info, const std::string& name,
                  std::vector<std::int64_t> dims) {
    info->set_name(name);
    auto* tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto::FLOAT);
    for (const std::int64_t d : dims) tensor->mutable_shape()->add_dim()->set_dim_value(d);
  };
  value(graph->add_input(), "x", {1, 3});
  value(graph->add_output(), "y", {1, 4});
  onnx::TensorProto* w = graph->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(3);
  w->add_dims(4);
  for (int i = 0; i < 12; ++i) w->add_float_data(static_cast<float>(i % 5) - 2.0f);
  onnx::NodeProto* matmul = graph->add_node();
  matmul->set_op_type("MatMul");
  matmul->add_input("x");
  matmul->add_input("w");
  matmul->add_output("logits");
  onnx::NodeProto* softmax = graph->add_node();
  softmax->set_op_type("Softmax");
  softmax->add_input("logits");
  softmax->add_output("y");
  const std::string path = dir.Join("model.onnx");
  std::ofstream(path, std::ios::binary) << model.SerializeAsString();
  return path;
}

void WriteTensor(const std::string& path, const std::string& name, std::vector<std::int64_t> dims,
                 std::vector<float> values) {
  onnx::TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(onnx::TensorProto::FLOAT);
  for (const std::int64_t d : dims) proto.add_dims(d);
  for (const float v : values) proto.add_float_data(v);
  std::ofstream(path, std::ios::binary) << proto.SerializeAsString();
}

int RunCli(std::vector<std::string_view> args, std::string& out, std::string& err) {
  Result<BenchOptions> options = Parse(std::move(args));
  EXPECT_TRUE(options.ok()) << options.status();
  std::ostringstream out_stream;
  std::ostringstream err_stream;
  const int status = RunBench(*options, out_stream, err_stream);
  out = out_stream.str();
  err = err_stream.str();
  return status;
}

TEST(BenchCliTest, ReportsEverythingAsJson) {
  TempDir dir;
  const std::string model = WriteModel(dir);
  std::string out, err;
  ASSERT_EQ(RunCli({model, "--runs", "3", "--warmup", "1", "--json", "--profile"}, out, err), 0)
      << err;
  const nlohmann::json report = nlohmann::json::parse(out);
  EXPECT_EQ(report["model"]["parameters"], 12);
  EXPECT_EQ(report["model"]["flops"], 2 * 3 * 4 + 5 * 4);
  EXPECT_EQ(report["model"]["ops"]["MatMul"], 1);
  EXPECT_EQ(report["model"]["inputs"][0]["shape"], nlohmann::json({1, 3}));
  EXPECT_EQ(report["model"]["opsets"]["ai.onnx"], 13);
  EXPECT_EQ(report["latency_ms"]["runs"], 3);
  EXPECT_GE(report["latency_ms"]["max"].get<double>(), report["latency_ms"]["min"].get<double>());
  EXPECT_GT(report["memory"]["arena_bytes"].get<std::int64_t>(), 0);
  EXPECT_GT(report["memory"]["peak_rss_bytes"].get<std::int64_t>(), 0);
  EXPECT_EQ(report["profile"]["nodes_ms"].size(), 2u);
  EXPECT_GT(report["load_ms"].get<double>(), 0.0);
  EXPECT_GE(report["warmup_ms"].get<double>(), 0.0);
  EXPECT_GE(report["session_create_ms"].get<double>(), 0.0);
}

TEST(BenchCliTest, NamesItsTimedWindowOnTheMonotonicClock) {
  TempDir dir;
  const std::string model = WriteModel(dir);
  std::string out, err;
  const auto before = std::chrono::steady_clock::now().time_since_epoch();
  ASSERT_EQ(RunCli({model, "--runs", "20", "--json"}, out, err), 0) << err;
  const auto after = std::chrono::steady_clock::now().time_since_epoch();
  const nlohmann::json report = nlohmann::json::parse(out);
  const auto start =
      std::chrono::nanoseconds(report["window"]["start_monotonic_ns"].get<std::int64_t>());
  const auto end =
      std::chrono::nanoseconds(report["window"]["end_monotonic_ns"].get<std::int64_t>());
  EXPECT_LE(before, start);
  EXPECT_LT(start, end);
  EXPECT_LE(end, after);
  // The window holds the timed runs and nothing else: its length is their sum.
  const double seconds = report["window"]["seconds"].get<double>();
  EXPECT_NEAR(std::chrono::duration<double>(end - start).count(), seconds, 1e-9);
  EXPECT_NEAR(seconds * 1000, report["latency_ms"]["mean"].get<double>() * 20, 1e-3);
}

TEST(BenchCliTest, ChecksGoldenData) {
  TempDir dir;
  const std::string model = WriteModel(dir);
  // softmax([1, 0, 0] @ w) with w's first row [-2, -1, 0, 1].
  std::vector<float> expected;
  double sum = 0;
  for (const float v : {-2.0f, -1.0f, 0.0f, 1.0f}) sum += std::exp(v);
  for (const float v : {-2.0f, -1.0f, 0.0f, 1.0f}) {
    expected.push_back(static_cast<float>(std::exp(v) / sum));
  }
  ASSERT_EQ(::mkdir(dir.Join("good").c_str(), 0755), 0);
  WriteTensor(dir.Join("good/input_0.pb"), "x", {1, 3}, {1, 0, 0});
  WriteTensor(dir.Join("good/output_0.pb"), "y", {1, 4}, expected);
  std::string out, err;
  EXPECT_EQ(RunCli({model, "--check", dir.Join("good"), "--runs", "1"}, out, err), 0) << out << err;
  EXPECT_NE(out.find("check          passed"), std::string::npos) << out;

  ASSERT_EQ(::mkdir(dir.Join("bad").c_str(), 0755), 0);
  WriteTensor(dir.Join("bad/input_0.pb"), "x", {1, 3}, {1, 0, 0});
  expected[3] += 0.01f;
  WriteTensor(dir.Join("bad/output_0.pb"), "y", {1, 4}, expected);
  EXPECT_EQ(RunCli({model, "--check", dir.Join("bad"), "--runs", "1", "--json"}, out, err), 1);
  const nlohmann::json report = nlohmann::json::parse(out);
  EXPECT_FALSE(report["check"]["passed"].get<bool>());
  EXPECT_EQ(report["check"]["outputs"][0]["mismatches"], 1);
}

// softmax(x @ w) for x = [1, 0, 0] picks w's first row [-2, -1, 0, 1], for [0, 1, 0] the
// second [2, -2, -1, 0].
std::vector<float> ExpectedSoftmax(std::vector<float> logits) {
  double sum = 0;
  for (const float v : logits) sum += std::exp(v);
  std::vector<float> expected;
  for (const float v : logits) expected.push_back(static_cast<float>(std::exp(v) / sum));
  return expected;
}

TEST(BenchCliTest, ChecksEveryDataSetOfAModelZooDirectory) {
  TempDir dir;
  const std::string model = WriteModel(dir);
  ASSERT_EQ(::mkdir(dir.Join("zoo").c_str(), 0755), 0);
  for (const std::string set : {"zoo/test_data_set_0", "zoo/test_data_set_1"}) {
    ASSERT_EQ(::mkdir(dir.Join(set).c_str(), 0755), 0);
  }
  WriteTensor(dir.Join("zoo/test_data_set_0/input_0.pb"), "x", {1, 3}, {1, 0, 0});
  WriteTensor(dir.Join("zoo/test_data_set_0/output_0.pb"), "y", {1, 4},
              ExpectedSoftmax({-2, -1, 0, 1}));
  WriteTensor(dir.Join("zoo/test_data_set_1/input_0.pb"), "x", {1, 3}, {0, 1, 0});
  WriteTensor(dir.Join("zoo/test_data_set_1/output_0.pb"), "y", {1, 4},
              ExpectedSoftmax({2, -2, -1, 0}));
  std::string out, err;
  ASSERT_EQ(RunCli({model, "--check", dir.Join("zoo"), "--runs", "1", "--json"}, out, err), 0)
      << out << err;
  nlohmann::json report = nlohmann::json::parse(out);
  EXPECT_EQ(report["check"]["data_sets"], 2);
  ASSERT_EQ(report["check"]["outputs"].size(), 2u);
  EXPECT_EQ(report["check"]["outputs"][1]["data_set"], dir.Join("zoo/test_data_set_1"));

  // A third set whose reference is another set's: only it fails, and the run fails.
  ASSERT_EQ(::mkdir(dir.Join("zoo/test_data_set_2").c_str(), 0755), 0);
  WriteTensor(dir.Join("zoo/test_data_set_2/input_0.pb"), "x", {1, 3}, {0, 1, 0});
  WriteTensor(dir.Join("zoo/test_data_set_2/output_0.pb"), "y", {1, 4},
              ExpectedSoftmax({-2, -1, 0, 1}));
  EXPECT_EQ(RunCli({model, "--check", dir.Join("zoo"), "--runs", "1", "--json"}, out, err), 1);
  report = nlohmann::json::parse(out);
  EXPECT_FALSE(report["check"]["passed"].get<bool>());
  EXPECT_TRUE(report["check"]["outputs"][1]["passed"].get<bool>());
  EXPECT_FALSE(report["check"]["outputs"][2]["passed"].get<bool>());
  EXPECT_FALSE(report["check"]["outputs"][2]["top1_match"].get<bool>());
  EXPECT_EQ(RunCli({model, "--check", dir.Join("zoo"), "--runs", "1"}, out, err), 1);
  EXPECT_NE(out.find("test_data_set_2 y: MISMATCH"), std::string::npos) << out;

  EXPECT_EQ(RunCli({model, "--check", dir.path(), "--runs", "1"}, out, err), 1);
  EXPECT_NE(err.find("no input_0.pb or test_data_set_0 in"), std::string::npos) << err;
}

TEST(BenchCliTest, WritesAChromeTraceOfTheTimedRuns) {
  TempDir dir;
  const std::string model = WriteModel(dir);
  const std::string trace_path = dir.Join("trace.json");
  std::string out, err;
  ASSERT_EQ(
      RunCli({model, "--runs", "3", "--warmup", "2", "--profile", "--trace", trace_path, "--json"},
             out, err),
      0)
      << err;
  EXPECT_EQ(nlohmann::json::parse(out)["trace"]["steps"], 6);

  std::ifstream file(trace_path);
  const nlohmann::json trace = nlohmann::json::parse(file);
  EXPECT_EQ(trace["otherData"]["runs"], 3);
  EXPECT_EQ(trace["otherData"]["steps_per_run"], 2);
  EXPECT_EQ(trace["otherData"]["dropped_steps"], 0);
  // Per run: its own event, then MatMul and Softmax inside it, in order; warm-ups untraced.
  std::vector<nlohmann::json> runs, steps;
  for (const nlohmann::json& event : trace["traceEvents"]) {
    if (event["ph"] == "M") continue;
    ASSERT_EQ(event["ph"], "X") << event;
    EXPECT_GE(event["ts"].get<double>(), 0.0);
    EXPECT_GE(event["dur"].get<double>(), 0.0);
    (event["name"].get<std::string>().starts_with("run ") ? runs : steps).push_back(event);
  }
  ASSERT_EQ(runs.size(), 3u);
  ASSERT_EQ(steps.size(), 6u);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(steps[i]["name"], i % 2 == 0 ? "MatMul" : "Softmax");
    EXPECT_EQ(steps[i]["args"]["step"], i % 2);
    const nlohmann::json& run = runs[i / 2];
    EXPECT_EQ(run["name"], "run " + std::to_string(i / 2));
    const double ts = steps[i]["ts"].get<double>();
    EXPECT_GE(ts, run["ts"].get<double>());
    EXPECT_LE(ts + steps[i]["dur"].get<double>(),
              run["ts"].get<double>() + run["dur"].get<double>() + 1e-6);
    if (i > 0) {
      EXPECT_GE(ts, steps[i - 1]["ts"].get<double>() + steps[i - 1]["dur"].get<double>());
    }
  }
}

TEST(BenchCliTest, RefusesAnUnwritableTraceBeforeRunning) {
  TempDir dir;
  const std::string model = WriteModel(dir);
  std::string out, err;
  EXPECT_EQ(RunCli({model, "--trace", dir.Join("missing/trace.json")}, out, err), 1);
  EXPECT_NE(err.find("--trace: cannot write " + dir.Join("missing/trace.json")), std::string::npos)
      << err;
  EXPECT_EQ(out.find("latency"), std::string::npos) << out;
}

TEST(BenchCliTest, MalformedModelsFailClearly) {
  TempDir dir;
  const std::string path = dir.Join("broken.onnx");
  std::ofstream(path, std::ios::binary) << "definitely not protobuf \xff\xff\xff";
  std::string out, err;
  EXPECT_EQ(RunCli({path}, out, err), 1);
  EXPECT_NE(err.find("not an ONNX model"), std::string::npos) << err;
  EXPECT_EQ(RunCli({path, "--json"}, out, err), 1);
  EXPECT_EQ(nlohmann::json::parse(out)["error"]["code"], "corruption");
}

// The real binary, as the daemon runs it: a child process, its exit status and stderr.
TEST(BenchCliTest, BinaryExitsNonZeroOnBadInput) {
  TempDir dir;
  const std::string path = dir.Join("broken.onnx");
  std::ofstream(path, std::ios::binary) << "\x08\x07\x12\x00garbage";
  const std::string command = testing::BuiltBinary("engine/edgemond-bench") + " " + path + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[256];
  while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) output += buffer;
  const int status = ::pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_NE(output.find("edgemond-bench: "), std::string::npos) << output;

  pipe = ::popen((testing::BuiltBinary("engine/edgemond-bench") + " --runs 2>&1").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) {
  }
  const int usage = ::pclose(pipe);
  ASSERT_TRUE(WIFEXITED(usage));
  EXPECT_EQ(WEXITSTATUS(usage), 2);
}

TEST(BenchArgsTest, ReportTakesManyInputs) {
  Result<BenchOptions> options = Parse({"a.onnx", "--report", "b.json", "-", "--runs", "5"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_TRUE(options->report);
  EXPECT_EQ(options->report_inputs, (std::vector<std::string>{"a.onnx", "b.json", "-"}));
  EXPECT_TRUE(options->model_path.empty());
  EXPECT_EQ(options->runs, 5);
  EXPECT_FALSE(Parse({"--report"}).ok());
  EXPECT_FALSE(Parse({"--report", "a.onnx", "--json"}).ok());
  EXPECT_FALSE(Parse({"a.onnx", "b.onnx"}).ok());
}

TEST(BenchReportTest, BenchmarksModelsAndReadsReports) {
  TempDir dir;
  const std::string model = WriteModel(dir);
  // What the daemon serves at /api/v1/benchmarks, trimmed to what the table reads.
  const std::string api = dir.Join("benchmarks.json");
  std::ofstream(api) << R"({"status": "success", "data": {"models": [
      {"model": "detector", "latest": {"model": "detector", "status": "succeeded",
        "model_info": {"precision": "float32", "file_bytes": 14000000, "parameters": 3500000,
                       "flops": 614000000},
        "timing": {"latency_ms": {"p50": 12.5, "p99": 20.25}, "throughput_per_second": 80},
        "memory": {"peak_rss_bytes": 36700160},
        "power": {"average_watts": 7.5, "energy_per_inference_joules": 0.09375},
        "compute": {"gflops_per_watt": 6.55},
        "device": {"max_temperature_celsius": {"start": 50, "end": 55.5}}}},
      {"model": "broken", "latest": {"model": "broken", "status": "failed",
                                     "error": "edgemond-bench was killed by SIGSEGV"}},
      {"model": "new", "latest": null}]}})";
  TempDir out_dir;
  BenchOptions options;
  options.report = true;
  options.runs = 3;
  options.report_inputs = {model, api, "-"};
  std::istringstream in(R"({"error": {"code": "corruption", "message": "not an ONNX model"}})");
  std::ostringstream out, err;
  EXPECT_EQ(RunReport(options, in, out, err), 0) << err.str();
  const std::string table = out.str();
  EXPECT_EQ(table.rfind("model     precision  size MB  params  GFLOPs  p50 ms  p99 ms  ", 0), 0u)
      << table;
  EXPECT_NE(table.find("\nmodel       float32     0.00      12   0.000  "), std::string::npos)
      << table;
  // Column widths follow the widest cell, and the first row's throughput is measured: compare
  // the detector's cells with runs of blanks folded.
  std::string folded;
  for (const char c : table) {
    if (c != ' ' || folded.empty() || folded.back() != ' ') folded.push_back(c);
  }
  EXPECT_NE(folded.find("\ndetector float32 14.00 3.50M 0.614 12.500 20.250 80.0 36.7 7.50 93.750 "
                        "6.55 55.5\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("\nbroken: failed: edgemond-bench was killed by SIGSEGV\n"),
            std::string::npos);
  EXPECT_NE(table.find("\nnew: no run yet\n"), std::string::npos);
  EXPECT_NE(table.find("\nstdin: failed: not an ONNX model\n"), std::string::npos) << table;

  options.report_inputs = {dir.Join("missing.json")};
  std::ostringstream out2, err2;
  EXPECT_EQ(RunReport(options, in, out2, err2), 1);
  EXPECT_NE(err2.str().find("cannot read"), std::string::npos);
  EXPECT_FALSE(
      ReportRowsFromJson(nlohmann::json{{"status", "success"}, {"data", {{"x", 1}}}}, "").ok());
}

}  // namespace
}  // namespace edgemond::engine
