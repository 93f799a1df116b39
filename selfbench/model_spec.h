// ModelSpec: one model the device benchmarks itself on, as the "models" list of the configuration
// (and its conf.d drop-ins) describes it; and the parser of that list. docs/selfbench.md documents
// every key.
//
//   "models": [
//     {"name": "detector", "path": "/opt/models/detector.onnx", "interval_seconds": 3600,
//      "input_shapes": {"images": [1, 3, 320, 320]},
//      "budget": {"p99_latency_ms": 40, "energy_per_inference_millijoules": 150}}
//   ]
//
// Errors name the file, the line and the key, as configuration errors do:
//   /etc/edgemond/conf.d/60-models.json:9: models.0.threads: must be between 1 and 256
// Nothing is half-loaded: a list with one bad model is an error as a whole.

#ifndef EDGEMOND_SELFBENCH_MODEL_SPEC_H_
#define EDGEMOND_SELFBENCH_MODEL_SPEC_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/config_error.h"
#include "core/json_locator.h"

namespace edgemond::selfbench {

struct ModelSpec {
  std::string name;  // [A-Za-z0-9][A-Za-z0-9_.-]*, at most 64: a label value and a URL segment.
  std::string path;  // Absolute path of the .onnx file.
  bool enabled = true;

  // Schedule. 0: only when asked through the API.
  std::uint32_t interval_seconds = 3600;
  // Scheduled runs wait until the device is idle (selfbench.idle_* settings); runs asked for
  // through the API start at once.
  bool only_when_idle = true;

  // What edgemond-bench runs. `runs` > 0 times that many inferences; otherwise it runs for
  // `duration_seconds`.
  std::uint32_t warmup_runs = 3;
  std::uint32_t runs = 0;
  double duration_seconds = 10;
  // Threads the engine may use. 1 by default: on a device that is busy with its real work, more
  // threads measure contention rather than the model.
  std::uint32_t threads = 1;
  // Shapes for inputs with symbolic dimensions, by input name.
  std::map<std::string, std::vector<std::int64_t>> input_shapes;
  // A test_data_set_N directory (input_K.pb, output_K.pb) the outputs are checked against.
  std::string golden_data;
  double tolerance = 1e-4;  // |actual - expected| <= tolerance * max(1, |expected|).

  // Budgets (0: none). Exceeding one raises an alert.
  double budget_p99_latency_ms = 0;
  double budget_energy_per_inference_millijoules = 0;

  // Regression margins: a run whose p50 latency, energy per inference or peak memory exceeds
  // the baseline's by more than this ratio raises an alert.
  double latency_margin_ratio = 0.2;
  double energy_margin_ratio = 0.2;
  double memory_margin_ratio = 0.25;

  // Limits of the child process.
  std::uint32_t memory_limit_mb = 2048;   // Address space (RLIMIT_AS); 0: none.
  std::uint32_t cpu_limit_seconds = 600;  // CPU time (RLIMIT_CPU); 0: none.
  std::uint32_t deadline_seconds = 300;   // Wall time from start; then it is killed.

  std::string source;  // Where it was defined ("/etc/edgemond/conf.d/60-models.json:4").

  // The settings that make two runs comparable, as canonical text
  // ("threads=1 warmup=3 duration=10s input=x:1x256 golden=... tolerance=0.0001").
  std::string SettingsText() const;
};

using ModelsOrError = std::variant<std::vector<ModelSpec>, ConfigError>;

// Parses `models`, the JSON array found at dotted `path` ("models") of a document from `file`
// whose text `locator` indexes. Names must be unique within the list.
ModelsOrError ParseModelList(const nlohmann::json& models, const std::string& file,
                             const JsonLocator& locator, std::string_view path);

// Appends `later` to `models`; a later model replaces an earlier one of the same name in place,
// so a drop-in can redefine (or disable, with "enabled": false) a model.
void MergeModels(std::vector<ModelSpec>& models, std::vector<ModelSpec> later);

// A model as a configuration file spells it, every key present.
nlohmann::ordered_json ModelSpecToJson(const ModelSpec& spec);

// Whether `name` may name a model.
bool IsModelName(std::string_view name);

}  // namespace edgemond::selfbench

#endif  // EDGEMOND_SELFBENCH_MODEL_SPEC_H_
