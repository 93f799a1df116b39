#include "selfbench/bench_output.h"

#include <nlohmann/json.hpp>
#include <sstream>

namespace edgemond::selfbench {
namespace {

using Json = nlohmann::json;

std::string Number(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

const Json* Path(const Json& root, std::initializer_list<std::string_view> keys) {
  const Json* node = &root;
  for (std::string_view key : keys) {
    if (!node->is_object()) return nullptr;
    const auto it = node->find(key);
    if (it == node->end()) return nullptr;
    node = &*it;
  }
  return node;
}

std::optional<double> DoubleAt(const Json& root, std::initializer_list<std::string_view> keys) {
  const Json* node = Path(root, keys);
  if (node == nullptr || !node->is_number()) return std::nullopt;
  return node->get<double>();
}

std::optional<std::int64_t> IntAt(const Json& root, std::initializer_list<std::string_view> keys) {
  const Json* node = Path(root, keys);
  if (node == nullptr || !node->is_number_integer()) return std::nullopt;
  return node->get<std::int64_t>();
}

std::optional<SteadyTime> MonotonicAt(const Json& root,
                                      std::initializer_list<std::string_view> keys) {
  const auto ns = IntAt(root, keys);
  if (!ns || *ns <= 0) return std::nullopt;
  return SteadyTime(
      std::chrono::duration_cast<SteadyTime::duration>(std::chrono::nanoseconds(*ns)));
}

}  // namespace

std::vector<std::string> BenchCommandLine(const std::string& bench_path, const ModelSpec& spec) {
  std::vector<std::string> argv = {bench_path, spec.path, "--json", "--warmup",
                                   std::to_string(spec.warmup_runs)};
  if (spec.runs > 0) {
    argv.insert(argv.end(), {"--runs", std::to_string(spec.runs)});
  } else {
    argv.insert(argv.end(), {"--duration", Number(spec.duration_seconds)});
  }
  argv.insert(argv.end(), {"--threads", std::to_string(spec.threads)});
  for (const auto& [name, dims] : spec.input_shapes) {
    std::string shape = name + ":";
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (i > 0) shape += 'x';
      shape += std::to_string(dims[i]);
    }
    argv.insert(argv.end(), {"--input-shape", shape});
  }
  if (!spec.golden_data.empty()) {
    argv.insert(argv.end(), {"--check", spec.golden_data, "--tolerance", Number(spec.tolerance)});
  }
  return argv;
}

Result<BenchOutput> ParseBenchOutput(std::string_view text, BenchmarkRun& run) {
  const Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return Status::Corruption("edgemond-bench did not print a JSON report");
  }
  BenchOutput out;
  if (const Json* error = Path(json, {"error"}); error != nullptr && error->is_object()) {
    const Json* code = Path(*error, {"code"});
    const Json* message = Path(*error, {"message"});
    out.error_code = code != nullptr && code->is_string() ? code->get<std::string>() : "unknown";
    out.error_message =
        message != nullptr && message->is_string() ? message->get<std::string>() : "";
    return out;
  }
  const auto file = IntAt(json, {"model", "file_bytes"});
  const auto external = IntAt(json, {"model", "external_data_bytes"});
  run.model_bytes = file ? std::optional(*file + external.value_or(0)) : std::nullopt;
  run.parameters = IntAt(json, {"model", "parameters"});
  run.flops = IntAt(json, {"model", "flops"});
  run.precision.clear();
  if (const Json* inputs = Path(json, {"model", "inputs"});
      inputs != nullptr && inputs->is_array() && !inputs->empty()) {
    if (const Json* type = Path((*inputs)[0], {"type"}); type != nullptr && type->is_string()) {
      run.precision = type->get<std::string>();
    }
  }
  run.load_ms = DoubleAt(json, {"load_ms"});
  run.warmup_ms = DoubleAt(json, {"warmup_ms"});
  run.runs = IntAt(json, {"latency_ms", "runs"});
  run.latency_min_ms = DoubleAt(json, {"latency_ms", "min"});
  run.latency_mean_ms = DoubleAt(json, {"latency_ms", "mean"});
  run.latency_p50_ms = DoubleAt(json, {"latency_ms", "p50"});
  run.latency_p90_ms = DoubleAt(json, {"latency_ms", "p90"});
  run.latency_p99_ms = DoubleAt(json, {"latency_ms", "p99"});
  run.latency_max_ms = DoubleAt(json, {"latency_ms", "max"});
  run.throughput_per_second = DoubleAt(json, {"throughput_per_second"});
  out.window_start = MonotonicAt(json, {"window", "start_monotonic_ns"});
  out.window_end = MonotonicAt(json, {"window", "end_monotonic_ns"});
  run.arena_bytes = IntAt(json, {"memory", "arena_bytes"});
  if (!run.peak_rss_bytes) run.peak_rss_bytes = IntAt(json, {"memory", "peak_rss_bytes"});

  if (const Json* check = Path(json, {"check"}); check != nullptr && check->is_object()) {
    if (const Json* passed = Path(*check, {"passed"}); passed != nullptr && passed->is_boolean()) {
      out.check_passed = passed->get<bool>();
    }
    std::optional<double> max_abs_error;
    std::optional<bool> top1_match;
    if (const Json* outputs = Path(*check, {"outputs"});
        outputs != nullptr && outputs->is_array()) {
      for (const Json& output : *outputs) {
        if (const auto error = DoubleAt(output, {"max_abs_error"})) {
          max_abs_error = std::max(max_abs_error.value_or(0.0), *error);
        }
        if (const Json* top1 = Path(output, {"top1_match"});
            top1 != nullptr && top1->is_boolean()) {
          top1_match = top1_match.value_or(true) && top1->get<bool>();
        }
        if (out.check_detail.empty()) {
          const Json* name = Path(output, {"name"});
          const std::string label = name != nullptr && name->is_string()
                                        ? "output " + name->get<std::string>() + ": "
                                        : std::string();
          if (const Json* error = Path(output, {"error"}); error != nullptr && error->is_string()) {
            out.check_detail = label + error->get<std::string>();
          } else if (const Json* passed = Path(output, {"passed"});
                     passed != nullptr && passed->is_boolean() && !passed->get<bool>()) {
            const Json* detail = Path(output, {"detail"});
            out.check_detail =
                label + (detail != nullptr && detail->is_string() ? detail->get<std::string>()
                                                                  : std::string("mismatch"));
          }
        }
      }
    }
    if (out.check_passed) {
      run.outputs_match = out.check_passed;
      run.max_abs_error = max_abs_error;
      run.top1_match = top1_match;
    }
  }
  return out;
}

}  // namespace edgemond::selfbench
