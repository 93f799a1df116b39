#include "engine/tools/bench_cli.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "core/clock.h"
#include "engine/benchmark.h"
#include "engine/compare.h"
#include "engine/onnx/onnx_loader.h"
#include "engine/session.h"
#include "engine/tools/chrome_trace.h"
#include "engine/tools/report.h"

namespace edgemond::engine {
namespace {

using Json = nlohmann::ordered_json;

// Accepts only a whole decimal number.
template <typename T>
bool ParseNumber(std::string_view text, T& value) {
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  return error == std::errc() && ptr == end;
}

// "NAME:1x3x224x224" (the name may itself contain ':', the dims never do).
Status ParseInputShape(std::string_view text, InputShapes& shapes) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == text.size()) {
    return Status::InvalidArgument(
        "--input-shape wants NAME:DIMS such as input:1x3x224x224, "
        "not '" +
        std::string(text) + "'");
  }
  std::vector<std::int64_t> dims;
  std::string_view rest = text.substr(colon + 1);
  while (true) {
    const std::size_t x = rest.find_first_of("x,");
    std::int64_t dim = 0;
    if (!ParseNumber(rest.substr(0, x), dim) || dim < 0) {
      return Status::InvalidArgument("--input-shape: bad dimension in '" + std::string(text) + "'");
    }
    dims.push_back(dim);
    if (x == std::string_view::npos) break;
    rest.remove_prefix(x + 1);
  }
  shapes[std::string(text.substr(0, colon))] = std::move(dims);
  return Status::Ok();
}

double Milliseconds(std::chrono::nanoseconds d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

// CLOCK_MONOTONIC in nanoseconds (steady_clock's epoch on Linux), comparable across processes.
std::int64_t MonotonicNanoseconds(SteadyTime time) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
}

// Process CPU time (all threads): next to wall time it tells waiting from working, and a busy
// machine (less CPU than wall time at one thread) from a slow engine.
double ProcessCpuMilliseconds() {
  struct timespec ts = {};
  if (::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0.0;
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// Resident memory now, from /proc/self/statm; -1 when unknown.
std::int64_t CurrentRssBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return -1;
  long long size = 0, resident = 0;
  const int read = std::fscanf(f, "%lld %lld", &size, &resident);
  std::fclose(f);
  if (read != 2) return -1;
  return static_cast<std::int64_t>(resident) * ::sysconf(_SC_PAGESIZE);
}

std::int64_t PeakRssBytes() {
  struct rusage usage = {};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return -1;
  return static_cast<std::int64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB.
}

std::string HumanBytes(std::int64_t bytes) {
  char buffer[32];
  if (bytes >= (1 << 20)) {
    std::snprintf(buffer, sizeof(buffer), "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  } else if (bytes >= (1 << 10)) {
    std::snprintf(buffer, sizeof(buffer), "%.1f KiB", static_cast<double>(bytes) / (1 << 10));
  } else {
    std::snprintf(buffer, sizeof(buffer), "%lld B", static_cast<long long>(bytes));
  }
  return buffer;
}

std::string Fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", digits, value);
  return buffer;
}

Json TensorInfoJson(const IoInfo& io) {
  return Json{{"name", io.name},
              {"type", std::string(DataTypeName(io.info.dtype))},
              {"shape", io.info.shape.vector()}};
}

struct CheckReport {
  bool passed = true;
  Json outputs = Json::array();
};

bool Exists(const std::string& path) {
  struct stat st = {};
  return ::stat(path.c_str(), &st) == 0;
}

// One golden data set in the model-zoo layout: DIR/input_K.pb and DIR/output_K.pb.
Result<std::vector<std::pair<std::string, Tensor>>> ReadGolden(const std::string& dir,
                                                               std::string_view prefix) {
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (int k = 0;; ++k) {
    const std::string path = dir + "/" + std::string(prefix) + std::to_string(k) + ".pb";
    if (!Exists(path)) break;
    std::string name;
    EDGEMOND_ASSIGN_OR_RETURN(Tensor tensor, ReadOnnxTensorFile(path, &name));
    tensors.emplace_back(std::move(name), std::move(tensor));
  }
  if (tensors.empty()) {
    return Status::NotFound("no " + std::string(prefix) + "0.pb in " + dir);
  }
  return tensors;
}

struct GoldenSet {
  std::string dir;
  std::vector<std::pair<std::string, Tensor>> inputs;
  std::vector<std::pair<std::string, Tensor>> outputs;
};

// --check DIR: DIR is one data set (it holds input_0.pb) or a model-zoo model directory, whose
// test_data_set_0, test_data_set_1, ... are all read.
Result<std::vector<GoldenSet>> ReadGoldenSets(const std::string& dir) {
  std::vector<std::string> dirs;
  if (Exists(dir + "/input_0.pb")) {
    dirs.push_back(dir);
  } else {
    for (int n = 0; Exists(dir + "/test_data_set_" + std::to_string(n)); ++n) {
      dirs.push_back(dir + "/test_data_set_" + std::to_string(n));
    }
  }
  if (dirs.empty()) return Status::NotFound("no input_0.pb or test_data_set_0 in " + dir);
  std::vector<GoldenSet> sets;
  for (std::string& set_dir : dirs) {
    GoldenSet set;
    EDGEMOND_ASSIGN_OR_RETURN(set.inputs, ReadGolden(set_dir, "input_"));
    EDGEMOND_ASSIGN_OR_RETURN(set.outputs, ReadGolden(set_dir, "output_"));
    set.dir = std::move(set_dir);
    sets.push_back(std::move(set));
  }
  return sets;
}

int Fail(const Status& status, bool json, std::ostream& out, std::ostream& err) {
  err << "edgemond-bench: " << status.ToString() << "\n";
  if (json) {
    out << Json{{"error",
                 {{"code", std::string(StatusCodeName(status.code()))},
                  {"message", std::string(status.message())}}}}
               .dump(2, ' ', false, Json::error_handler_t::replace)
        << "\n";
  }
  return 1;
}

}  // namespace

std::string BenchUsage() {
  return "usage: edgemond-bench MODEL.onnx [options]\n"
         "  --warmup N               untimed runs first (default 1)\n"
         "  --runs N                 timed runs (default 10)\n"
         "  --duration SECONDS       run for this long instead of --runs\n"
         "  --threads N              threads kernels may use (default 1)\n"
         "  --input-shape NAME:DIMS  shape of an input, e.g. input:1x3x224x224 (repeatable)\n"
         "  --check DIR              compare outputs with DIR/output_K.pb for inputs\n"
         "                           DIR/input_K.pb, or so for every DIR/test_data_set_N (ONNX\n"
         "                           model-zoo layout); exit 1 on mismatch\n"
         "  --tolerance R            --check tolerance: |a-e| <= R*max(1,|e|) (default 1e-4)\n"
         "  --profile                time per node and per op type\n"
         "  --trace FILE             write the timed runs as a Chrome trace (Perfetto,\n"
         "                           chrome://tracing)\n"
         "  --json                   machine-readable report (docs/engine.md)\n"
         "\n"
         "       edgemond-bench --report [options] INPUT...\n"
         "  one table row per INPUT: a model (.onnx, benchmarked now with the options above),\n"
         "  an edgemond-bench --json report, or edgemond's /api/v1/benchmarks JSON (power,\n"
         "  energy and temperature come from there); \"-\" reads standard input\n";
}

Result<BenchOptions> ParseBenchArgs(std::span<const std::string_view> args) {
  BenchOptions options;
  bool runs_given = false;
  std::vector<std::string> positional;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    const auto value = [&](std::string_view& out) -> Status {
      if (i + 1 >= args.size()) {
        return Status::InvalidArgument(std::string(arg) + " needs a value");
      }
      out = args[++i];
      return Status::Ok();
    };
    const auto int_value = [&](int& out, int min) -> Status {
      std::string_view text;
      EDGEMOND_RETURN_IF_ERROR(value(text));
      if (!ParseNumber(text, out) || out < min) {
        return Status::InvalidArgument(std::string(arg) + " wants an integer >= " +
                                       std::to_string(min) + ", not '" + std::string(text) + "'");
      }
      return Status::Ok();
    };
    std::string_view text;
    if (arg == "--help" || arg == "-h") {
      options.help = true;
    } else if (arg == "--warmup") {
      EDGEMOND_RETURN_IF_ERROR(int_value(options.warmup_runs, 0));
    } else if (arg == "--runs") {
      EDGEMOND_RETURN_IF_ERROR(int_value(options.runs, 1));
      runs_given = true;
    } else if (arg == "--threads") {
      EDGEMOND_RETURN_IF_ERROR(int_value(options.threads, 1));
    } else if (arg == "--duration") {
      EDGEMOND_RETURN_IF_ERROR(value(text));
      const std::string copy(text);
      char* end = nullptr;
      options.duration_seconds = std::strtod(copy.c_str(), &end);
      if (end == copy.c_str() || *end != '\0' || !(options.duration_seconds > 0) ||
          options.duration_seconds > 86400) {
        return Status::InvalidArgument("--duration wants seconds in (0, 86400], not '" + copy +
                                       "'");
      }
    } else if (arg == "--tolerance") {
      EDGEMOND_RETURN_IF_ERROR(value(text));
      const std::string copy(text);
      char* end = nullptr;
      options.tolerance = std::strtod(copy.c_str(), &end);
      if (end == copy.c_str() || *end != '\0' || !(options.tolerance >= 0)) {
        return Status::InvalidArgument("--tolerance wants a number >= 0, not '" + copy + "'");
      }
    } else if (arg == "--input-shape") {
      EDGEMOND_RETURN_IF_ERROR(value(text));
      EDGEMOND_RETURN_IF_ERROR(ParseInputShape(text, options.input_shapes));
    } else if (arg == "--check") {
      EDGEMOND_RETURN_IF_ERROR(value(text));
      options.check_dir = std::string(text);
    } else if (arg == "--profile") {
      options.profile = true;
    } else if (arg == "--trace") {
      EDGEMOND_RETURN_IF_ERROR(value(text));
      if (text.empty()) return Status::InvalidArgument("--trace needs a file name");
      options.trace_path = std::string(text);
    } else if (arg == "--json") {
      options.json = true;
    } else if (arg == "--report") {
      options.report = true;
    } else if (arg.size() > 1 && arg.front() == '-') {
      return Status::InvalidArgument("unknown option " + std::string(arg));
    } else {
      positional.emplace_back(arg);
    }
  }
  if (options.report) {
    if (options.json) return Status::InvalidArgument("--report and --json exclude each other");
    if (positional.empty() && !options.help) {
      return Status::InvalidArgument("--report needs models, report files or - (stdin)");
    }
    options.report_inputs = std::move(positional);
  } else if (positional.size() > 1) {
    return Status::InvalidArgument("more than one model given");
  } else if (!positional.empty()) {
    options.model_path = std::move(positional.front());
  }
  if (runs_given && options.duration_seconds > 0) {
    return Status::InvalidArgument("--runs and --duration exclude each other");
  }
  if (options.model_path.empty() && !options.help && !options.report) {
    return Status::InvalidArgument("no model given");
  }
  return options;
}

int RunBench(const BenchOptions& options, std::ostream& out, std::ostream& err) {
  const SystemClock clock;
  ModelOptions model_options;
  model_options.input_shapes = options.input_shapes;
  // An unwritable --trace file is found before the model is loaded and run, not after.
  if (!options.trace_path.empty()) {
    std::FILE* probe = std::fopen(options.trace_path.c_str(), "ab");
    if (probe == nullptr) {
      return Fail(Status::FromErrno(errno, "--trace: cannot write " + options.trace_path),
                  options.json, out, err);
    }
    std::fclose(probe);
  }

  std::vector<GoldenSet> golden;
  if (!options.check_dir.empty()) {
    Result<std::vector<GoldenSet>> sets = ReadGoldenSets(options.check_dir);
    if (!sets.ok()) return Fail(sets.status(), options.json, out, err);
    golden = std::move(sets).value();
  }

  // Golden inputs fix the input shapes, so that models with symbolic dimensions load (every
  // data set must then have the first one's shapes). Unnamed golden tensors bind by position
  // when they are set, which needs static shapes.
  if (!golden.empty()) {
    for (const auto& [name, tensor] : golden.front().inputs) {
      if (!name.empty()) model_options.input_shapes.try_emplace(name, tensor.shape().vector());
    }
  }

  OnnxModelInfo info;
  const std::int64_t baseline_rss = CurrentRssBytes();
  const SteadyTime load_start = clock.Now();
  Result<std::shared_ptr<const Model>> loaded = Status::Internal("not loaded");
  loaded = LoadOnnxModel(options.model_path, model_options, &info);
  const SteadyTime load_end = clock.Now();
  if (!loaded.ok()) return Fail(loaded.status(), options.json, out, err);
  const std::shared_ptr<const Model> model = std::move(loaded).value();
  const ModelStats& stats = model->stats();

  SessionOptions session_options;
  session_options.threads = options.threads;
  const SteadyTime session_start = clock.Now();
  Result<std::unique_ptr<Session>> created = Session::Create(model, session_options);
  const SteadyTime session_end = clock.Now();
  if (!created.ok()) return Fail(created.status(), options.json, out, err);
  Session& session = **created;

  // --check: per data set, its inputs, one run, compare. The timed runs then reuse the last
  // set's inputs.
  CheckReport check;
  const Tolerance tolerance{options.tolerance, 0.0, /*floor_one=*/true, /*check_top1=*/true};
  for (const GoldenSet& set : golden) {
    for (std::size_t k = 0; k < set.inputs.size(); ++k) {
      std::string name = set.inputs[k].first;
      if (name.empty() && k < model->inputs().size()) name = model->inputs()[k].name;
      const Status set_input = session.SetInput(name, set.inputs[k].second.view());
      if (!set_input.ok()) {
        return Fail(set_input.WithContext(set.dir), options.json, out, err);
      }
    }
    const Status run = session.Run();
    if (!run.ok()) return Fail(run, options.json, out, err);
    for (std::size_t k = 0; k < set.outputs.size(); ++k) {
      std::string name = set.outputs[k].first;
      if (name.empty() && k < model->outputs().size()) name = model->outputs()[k].name;
      Json entry{{"data_set", set.dir}, {"name", name}};
      const Result<ConstTensorView> actual = session.Output(name);
      if (!actual.ok()) {
        entry["error"] = std::string(actual.status().message());
        check.passed = false;
      } else {
        const Comparison comparison =
            CompareTensors(*actual, set.outputs[k].second.view(), tolerance);
        entry["passed"] = comparison.ok();
        entry["elements"] = comparison.elements;
        entry["mismatches"] = comparison.mismatches;
        entry["max_abs_error"] = comparison.max_abs_error;
        entry["max_scaled_error"] = comparison.max_scaled_error;
        entry["top1_match"] = comparison.top1_match;
        if (!comparison.detail.empty()) entry["detail"] = comparison.detail;
        check.passed = check.passed && comparison.ok();
      }
      check.outputs.push_back(std::move(entry));
    }
  }
  if (golden.empty()) {
    const Status set = SetDeterministicInputs(session, /*seed=*/1);
    if (!set.ok()) return Fail(set, options.json, out, err);
  }

  BenchmarkSpec spec;
  spec.warmup_runs = options.warmup_runs;
  spec.runs = options.runs;
  spec.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(options.duration_seconds));
  // --trace records every step of the timed runs (of at most kMaxTraceSteps steps).
  constexpr std::size_t kMaxTraceSteps = std::size_t{1} << 20;
  const std::size_t timed_steps =
      model->steps().size() *
      static_cast<std::size_t>(options.duration_seconds > 0 ? 0 : spec.runs);
  StepTrace trace(clock,
                  options.trace_path.empty()
                      ? 0
                      : (timed_steps > 0 ? std::min(timed_steps, kMaxTraceSteps) : kMaxTraceSteps));
  if (!options.trace_path.empty()) spec.tracer = &trace;
  StepProfile profile(clock, model->steps().size());
  if (options.profile) spec.observer = &profile;
  const SteadyTime bench_start = clock.Now();
  const double cpu_start_ms = ProcessCpuMilliseconds();
  const Result<LatencyStats> latency = RunBenchmark(session, spec, clock);
  const SteadyTime bench_end = clock.Now();
  if (!latency.ok()) return Fail(latency.status(), options.json, out, err);
  // The timed runs are the last `total` of the benchmark (the gaps between them are a clock read
  // each): the window whose energy a monitoring process measures on the same monotonic clock.
  const SteadyTime window_start = bench_end - latency->total;
  // Includes the warm-up runs, which RunBenchmark does first.
  const int all_runs = latency->runs + options.warmup_runs;
  const double cpu_ms_per_run =
      all_runs > 0 ? (ProcessCpuMilliseconds() - cpu_start_ms) / all_runs : 0.0;

  const double load_ms = Milliseconds(load_end - load_start);
  const std::int64_t model_bytes = info.file_bytes + info.external_data_bytes;
  const std::int64_t rss = PeakRssBytes();
  // Written after the peak RSS is read: the trace's JSON text is not the engine's memory.
  if (!options.trace_path.empty()) {
    const Status written =
        WriteChromeTrace(options.trace_path, *model, trace,
                         {.model_path = options.model_path, .threads = options.threads});
    if (!written.ok()) return Fail(written, options.json, out, err);
  }

  // Per-op-type and per-node profile, in ms per run.
  std::map<std::string, double> op_ms;
  std::map<std::string, double> op_min_ms;
  std::vector<std::pair<double, std::size_t>> node_ms;
  if (options.profile && latency->runs > 0) {
    for (std::size_t s = 0; s < model->steps().size(); ++s) {
      const double ms = Milliseconds(profile.totals()[s]) / latency->runs;
      op_ms[model->steps()[s].label] += ms;
      op_min_ms[model->steps()[s].label] += Milliseconds(profile.minimums()[s]);
      node_ms.emplace_back(ms, s);
    }
    std::stable_sort(node_ms.begin(), node_ms.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
  }

  if (options.json) {
    Json report;
    Json model_json{{"path", options.model_path},
                    {"file_bytes", info.file_bytes},
                    {"external_data_bytes", info.external_data_bytes},
                    {"ir_version", info.ir_version},
                    {"producer", info.producer},
                    {"fully_checked", info.fully_checked}};
    Json opsets = Json::object();
    for (const auto& [domain, version] : info.opsets) {
      opsets[domain.empty() ? "ai.onnx" : domain] = version;
    }
    model_json["opsets"] = opsets;
    model_json["parameters"] = stats.parameters;
    model_json["flops"] = stats.flops;
    model_json["nodes"] = stats.model_nodes;
    model_json["executed_nodes"] = stats.executed_nodes;
    model_json["folded_nodes"] = stats.folded_nodes;
    model_json["removed_nodes"] = stats.removed_nodes;
    model_json["fused_nodes"] = stats.fused_nodes;
    model_json["constant_bytes"] = stats.constant_bytes;
    model_json["inputs"] = Json::array();
    for (const IoInfo& io : model->inputs()) model_json["inputs"].push_back(TensorInfoJson(io));
    model_json["outputs"] = Json::array();
    for (const IoInfo& io : model->outputs()) model_json["outputs"].push_back(TensorInfoJson(io));
    model_json["ops"] = Json::object();
    for (const auto& [op, count] : stats.model_ops) model_json["ops"][op] = count;
    model_json["executed_ops"] = Json::object();
    for (const auto& [op, count] : stats.executed_ops) {
      model_json["executed_ops"][op] = Json{{"nodes", count.nodes}, {"flops", count.flops}};
    }
    report["model"] = std::move(model_json);
    report["load_ms"] = load_ms;
    report["session_create_ms"] = Milliseconds(session_end - session_start);
    report["threads"] = options.threads;
    report["warmup_runs"] = options.warmup_runs;
    report["latency_ms"] = Json{{"runs", latency->runs},
                                {"min", Milliseconds(latency->min)},
                                {"mean", Milliseconds(latency->mean)},
                                {"p50", Milliseconds(latency->p50)},
                                {"p90", Milliseconds(latency->p90)},
                                {"p99", Milliseconds(latency->p99)},
                                {"max", Milliseconds(latency->max)}};
    report["cpu_ms_per_run"] = cpu_ms_per_run;
    report["throughput_per_second"] = latency->throughput_per_second;
    report["warmup_ms"] = Milliseconds(window_start - bench_start);
    report["window"] = Json{{"start_monotonic_ns", MonotonicNanoseconds(window_start)},
                            {"end_monotonic_ns", MonotonicNanoseconds(bench_end)},
                            {"seconds", std::chrono::duration<double>(latency->total).count()}};
    report["memory"] = Json{{"arena_bytes", stats.arena_bytes},
                            {"unshared_bytes", stats.unshared_bytes},
                            {"baseline_rss_bytes", baseline_rss},
                            {"peak_rss_bytes", rss}};
    if (!options.check_dir.empty()) {
      report["check"] = Json{{"dir", options.check_dir},
                             {"data_sets", golden.size()},
                             {"tolerance", options.tolerance},
                             {"passed", check.passed},
                             {"outputs", check.outputs}};
    }
    if (options.profile) {
      Json nodes = Json::array();
      for (const auto& [ms, s] : node_ms) {
        nodes.push_back(Json{{"name", model->steps()[s].name},
                             {"op", model->steps()[s].label},
                             {"ms", ms},
                             {"min_ms", Milliseconds(profile.minimums()[s])}});
      }
      Json ops = Json::object();
      for (const auto& [op, ms] : op_ms) ops[op] = ms;
      Json ops_min = Json::object();
      for (const auto& [op, ms] : op_min_ms) ops_min[op] = ms;
      report["profile"] = Json{{"ops_ms", ops}, {"ops_min_ms", ops_min}, {"nodes_ms", nodes}};
    }
    if (!options.trace_path.empty()) {
      report["trace"] = Json{{"path", options.trace_path},
                             {"steps", trace.records().size()},
                             {"dropped_steps", trace.dropped()}};
    }
    out << report.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
  } else {
    std::string opsets;
    for (const auto& [domain, version] : info.opsets) {
      opsets += (opsets.empty() ? "" : ", ") + (domain.empty() ? "ai.onnx" : domain) + " " +
                std::to_string(version);
    }
    out << "model          " << options.model_path << "\n";
    out << "               " << HumanBytes(model_bytes) << ", IR " << info.ir_version << ", "
        << opsets << (info.producer.empty() ? "" : ", " + info.producer)
        << (info.fully_checked ? "" : " (newer than the ONNX library: kernel checks only)") << "\n";
    for (const IoInfo& io : model->inputs()) {
      out << "input          " << io.name << " " << io.info.ToString() << "\n";
    }
    for (const IoInfo& io : model->outputs()) {
      out << "output         " << io.name << " " << io.info.ToString() << "\n";
    }
    out << "load           " << Fixed(load_ms, 1) << " ms, session "
        << Fixed(Milliseconds(session_end - session_start), 1) << " ms\n";
    out << "parameters     " << stats.parameters << "\n";
    out << "FLOPs          " << Fixed(static_cast<double>(stats.flops) / 1e9, 3)
        << " G per inference\n";
    out << "nodes          " << stats.model_nodes << " in the model, " << stats.executed_nodes
        << " executed (" << stats.folded_nodes << " folded at load, " << stats.removed_nodes
        << " removed, " << stats.fused_nodes << " fused)\n";
    out << "memory         arena " << HumanBytes(stats.arena_bytes) << " (without reuse "
        << HumanBytes(stats.unshared_bytes) << "), constants " << HumanBytes(stats.constant_bytes)
        << ", peak RSS " << HumanBytes(rss) << "\n";
    out << "threads        " << options.threads << " (CPU " << Fixed(cpu_ms_per_run, 3)
        << " ms per run)\n";
    out << "runs           " << latency->runs << " timed, " << options.warmup_runs << " warm-up\n";
    out << "latency ms     min " << Fixed(Milliseconds(latency->min), 3) << "  mean "
        << Fixed(Milliseconds(latency->mean), 3) << "  p50 " << Fixed(Milliseconds(latency->p50), 3)
        << "  p90 " << Fixed(Milliseconds(latency->p90), 3) << "  p99 "
        << Fixed(Milliseconds(latency->p99), 3) << "  max " << Fixed(Milliseconds(latency->max), 3)
        << "\n";
    out << "throughput     " << Fixed(latency->throughput_per_second, 2) << " inferences/s\n";
    out << "ops            ";
    std::vector<std::pair<int, std::string>> ops;
    for (const auto& [op, count] : stats.model_ops) ops.emplace_back(count, op);
    std::stable_sort(ops.begin(), ops.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t i = 0; i < ops.size(); ++i) {
      out << (i > 0 ? ", " : "") << ops[i].second << " " << ops[i].first;
    }
    out << "\n";
    if (!options.check_dir.empty()) {
      out << "check          " << (check.passed ? "passed" : "FAILED") << " against "
          << options.check_dir << " (" << golden.size() << " data set"
          << (golden.size() > 1 ? "s" : "") << ", tolerance " << options.tolerance
          << " x max(1, |ref|))\n";
      for (const Json& entry : check.outputs) {
        out << "               ";
        if (golden.size() > 1) {
          const std::string set = entry["data_set"].get<std::string>();
          out << set.substr(set.rfind('/') + 1) << " ";
        }
        out << entry["name"].get<std::string>() << ": ";
        if (entry.contains("error")) {
          out << entry["error"].get<std::string>() << "\n";
          continue;
        }
        out << (entry["passed"].get<bool>() ? "ok" : "MISMATCH") << ", max |error| "
            << entry["max_abs_error"].get<double>() << ", top-1 "
            << (entry["top1_match"].get<bool>() ? "same" : "DIFFERENT");
        if (entry.contains("detail")) out << " (" << entry["detail"].get<std::string>() << ")";
        out << "\n";
      }
    }
    if (options.profile) {
      out << "profile        ms per run by op type (mean, sum of the steps' fastest runs):\n";
      std::vector<std::pair<double, std::string>> by_op;
      for (const auto& [op, ms] : op_ms) by_op.emplace_back(ms, op);
      std::stable_sort(by_op.begin(), by_op.end(),
                       [](const auto& a, const auto& b) { return a.first > b.first; });
      for (const auto& [ms, op] : by_op) {
        out << "                 " << Fixed(ms, 3) << "  " << Fixed(op_min_ms[op], 3) << "  " << op
            << "\n";
      }
      out << "               slowest nodes (mean, fastest run):\n";
      for (std::size_t i = 0; i < node_ms.size() && i < 10; ++i) {
        const std::size_t s = node_ms[i].second;
        const Model::Step& step = model->steps()[s];
        out << "                 " << Fixed(node_ms[i].first, 3) << "  "
            << Fixed(Milliseconds(profile.minimums()[s]), 3) << "  " << step.name << " ("
            << step.label << ")\n";
      }
    }
    if (!options.trace_path.empty()) {
      out << "trace          " << options.trace_path << " (" << trace.records().size() << " steps";
      if (trace.dropped() > 0) out << ", " << trace.dropped() << " more not recorded";
      out << ")\n";
    }
  }
  return check.passed ? 0 : 1;
}

int RunReport(const BenchOptions& options, std::istream& in, std::ostream& out, std::ostream& err) {
  std::vector<ReportRow> rows;
  bool ok = true;
  bool measured_here = false;
  for (const std::string& input : options.report_inputs) {
    const std::filesystem::path path(input);
    std::string text;
    if (path.extension() == ".onnx") {
      BenchOptions one = options;
      one.report = false;
      one.report_inputs.clear();
      one.model_path = input;
      one.json = true;
      std::ostringstream json;
      ok = RunBench(one, json, err) == 0 && ok;
      text = json.str();
      measured_here = true;
    } else if (input == "-") {
      text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } else {
      std::ifstream file(input, std::ios::binary);
      if (!file) {
        err << "edgemond-bench: cannot read " << input << "\n";
        ok = false;
        continue;
      }
      text.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    }
    const Json document = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    Result<std::vector<ReportRow>> parsed =
        document.is_discarded()
            ? Result<std::vector<ReportRow>>(Status::InvalidArgument("not JSON"))
            : ReportRowsFromJson(document, input == "-" ? "stdin" : path.stem().string());
    if (!parsed.ok()) {
      err << "edgemond-bench: " << input << ": " << parsed.status().message() << "\n";
      ok = false;
      continue;
    }
    rows.insert(rows.end(), parsed->begin(), parsed->end());
  }
  out << RenderReport(rows);
  if (measured_here) {
    out << "\npower, energy and temperature are measured by edgemond's self-benchmarks:\n"
           "  curl -s http://127.0.0.1:8867/api/v1/benchmarks | edgemond-bench --report -\n";
  }
  return ok ? 0 : 1;
}

int BenchMain(int argc, char** argv, std::ostream& out, std::ostream& err) {
  std::vector<std::string_view> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  const Result<BenchOptions> options = ParseBenchArgs(args);
  if (!options.ok()) {
    err << "edgemond-bench: " << options.status().message() << "\n" << BenchUsage();
    return 2;
  }
  if (options->help) {
    out << BenchUsage();
    return 0;
  }
  if (options->report) return RunReport(*options, std::cin, out, err);
  return RunBench(*options, out, err);
}

}  // namespace edgemond::engine
