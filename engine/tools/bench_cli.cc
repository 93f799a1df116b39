#include "engine/tools/bench_cli.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/clock.h"
#include "engine/benchmark.h"
#include "engine/compare.h"
#include "engine/onnx/onnx_loader.h"
#include "engine/session.h"

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

// Golden data in the model-zoo layout: DIR/input_K.pb and DIR/output_K.pb.
Result<std::vector<std::pair<std::string, Tensor>>> ReadGolden(const std::string& dir,
                                                               std::string_view prefix) {
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (int k = 0;; ++k) {
    const std::string path = dir + "/" + std::string(prefix) + std::to_string(k) + ".pb";
    struct stat st = {};
    if (::stat(path.c_str(), &st) != 0) break;
    std::string name;
    EDGEMOND_ASSIGN_OR_RETURN(Tensor tensor, ReadOnnxTensorFile(path, &name));
    tensors.emplace_back(std::move(name), std::move(tensor));
  }
  if (tensors.empty()) {
    return Status::NotFound("no " + std::string(prefix) + "0.pb in " + dir);
  }
  return tensors;
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
         "                           DIR/input_K.pb (ONNX model-zoo layout); exit 1 on mismatch\n"
         "  --tolerance R            --check tolerance: |a-e| <= R*max(1,|e|) (default 1e-4)\n"
         "  --profile                time per node and per op type\n"
         "  --json                   machine-readable report (docs/engine.md)\n";
}

Result<BenchOptions> ParseBenchArgs(std::span<const std::string_view> args) {
  BenchOptions options;
  bool runs_given = false;
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
    } else if (arg == "--json") {
      options.json = true;
    } else if (arg.size() > 1 && arg.front() == '-') {
      return Status::InvalidArgument("unknown option " + std::string(arg));
    } else if (options.model_path.empty()) {
      options.model_path = std::string(arg);
    } else {
      return Status::InvalidArgument("more than one model given");
    }
  }
  if (runs_given && options.duration_seconds > 0) {
    return Status::InvalidArgument("--runs and --duration exclude each other");
  }
  if (options.model_path.empty() && !options.help) {
    return Status::InvalidArgument("no model given");
  }
  return options;
}

int RunBench(const BenchOptions& options, std::ostream& out, std::ostream& err) {
  const SystemClock clock;
  ModelOptions model_options;
  model_options.input_shapes = options.input_shapes;

  // Golden inputs also fix the input shapes, so that models with symbolic dims load.
  std::vector<std::pair<std::string, Tensor>> golden_inputs;
  std::vector<std::pair<std::string, Tensor>> golden_outputs;
  if (!options.check_dir.empty()) {
    Result<std::vector<std::pair<std::string, Tensor>>> inputs =
        ReadGolden(options.check_dir, "input_");
    if (!inputs.ok()) return Fail(inputs.status(), options.json, out, err);
    Result<std::vector<std::pair<std::string, Tensor>>> outputs =
        ReadGolden(options.check_dir, "output_");
    if (!outputs.ok()) return Fail(outputs.status(), options.json, out, err);
    golden_inputs = std::move(inputs).value();
    golden_outputs = std::move(outputs).value();
  }

  // Golden inputs fix the input shapes, so that models with symbolic dimensions load. Unnamed
  // golden tensors bind by position when they are set, which needs static shapes.
  for (const auto& [name, tensor] : golden_inputs) {
    if (!name.empty()) model_options.input_shapes.try_emplace(name, tensor.shape().vector());
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

  // --check: golden inputs, one run, compare.
  CheckReport check;
  if (!options.check_dir.empty()) {
    for (std::size_t k = 0; k < golden_inputs.size(); ++k) {
      std::string name = golden_inputs[k].first;
      if (name.empty() && k < model->inputs().size()) name = model->inputs()[k].name;
      const Status set = session.SetInput(name, golden_inputs[k].second.view());
      if (!set.ok()) return Fail(set, options.json, out, err);
    }
    const Status run = session.Run();
    if (!run.ok()) return Fail(run, options.json, out, err);
    const Tolerance tolerance{options.tolerance, 0.0, /*floor_one=*/true, /*check_top1=*/true};
    for (std::size_t k = 0; k < golden_outputs.size(); ++k) {
      std::string name = golden_outputs[k].first;
      if (name.empty() && k < model->outputs().size()) name = model->outputs()[k].name;
      Json entry{{"name", name}};
      const Result<ConstTensorView> actual = session.Output(name);
      if (!actual.ok()) {
        entry["error"] = std::string(actual.status().message());
        check.passed = false;
      } else {
        const Comparison comparison =
            CompareTensors(*actual, golden_outputs[k].second.view(), tolerance);
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
  } else {
    const Status set = SetDeterministicInputs(session, /*seed=*/1);
    if (!set.ok()) return Fail(set, options.json, out, err);
  }

  BenchmarkSpec spec;
  spec.warmup_runs = options.warmup_runs;
  spec.runs = options.runs;
  spec.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(options.duration_seconds));
  StepProfile profile(clock, model->steps().size());
  if (options.profile) spec.observer = &profile;
  const double cpu_start_ms = ProcessCpuMilliseconds();
  const Result<LatencyStats> latency = RunBenchmark(session, spec, clock);
  if (!latency.ok()) return Fail(latency.status(), options.json, out, err);
  // Includes the warm-up runs, which RunBenchmark does first.
  const int all_runs = latency->runs + options.warmup_runs;
  const double cpu_ms_per_run =
      all_runs > 0 ? (ProcessCpuMilliseconds() - cpu_start_ms) / all_runs : 0.0;

  const double load_ms = Milliseconds(load_end - load_start);
  const std::int64_t model_bytes = info.file_bytes + info.external_data_bytes;
  const std::int64_t rss = PeakRssBytes();

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
    report["memory"] = Json{{"arena_bytes", stats.arena_bytes},
                            {"unshared_bytes", stats.unshared_bytes},
                            {"baseline_rss_bytes", baseline_rss},
                            {"peak_rss_bytes", rss}};
    if (!options.check_dir.empty()) {
      report["check"] = Json{{"dir", options.check_dir},
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
          << options.check_dir << " (tolerance " << options.tolerance << " x max(1, |ref|))\n";
      for (const Json& entry : check.outputs) {
        out << "               " << entry["name"].get<std::string>() << ": ";
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
  }
  return check.passed ? 0 : 1;
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
  return RunBench(*options, out, err);
}

}  // namespace edgemond::engine
