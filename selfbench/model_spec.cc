#include "selfbench/model_spec.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

namespace edgemond::selfbench {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kModelKeys[] = {
    "name",        "path",      "enabled",          "interval_seconds",  "only_when_idle",
    "warmup_runs", "runs",      "duration_seconds", "threads",           "input_shapes",
    "golden_data", "tolerance", "budget",           "regression_margin", "limits"};
constexpr std::string_view kBudgetKeys[] = {"p99_latency_ms", "energy_per_inference_millijoules"};
constexpr std::string_view kMarginKeys[] = {"latency_ratio", "energy_ratio", "memory_ratio"};
constexpr std::string_view kLimitKeys[] = {"memory_mb", "cpu_seconds", "deadline_seconds"};

std::string_view TypeName(const Json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "a list";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number_float()) return "a fractional number";
  if (value.is_number_integer() && value.get<std::int64_t>() < 0) return "a negative number";
  if (value.is_number()) return "a number";
  return "null";
}

template <std::size_t N>
std::string KeyList(const std::string_view (&keys)[N]) {
  std::string out;
  for (std::string_view key : keys) out += (out.empty() ? "" : ", ") + std::string(key);
  return out;
}

std::string Number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// Reads one model; `path` is its dotted path ("models.3").
class ModelReader {
 public:
  ModelReader(const Json& object, const std::string& file, const JsonLocator& locator,
              std::string path)
      : object_(object), file_(file), locator_(locator), path_(std::move(path)) {}

  std::variant<ModelSpec, ConfigError> Read() {
    if (!object_.is_object()) {
      return Error("", "expected a model (an object), got " + std::string(TypeName(object_)));
    }
    if (auto e = KnownKeys(object_, "", kModelKeys)) return *e;
    ModelSpec spec;
    spec.source = file_;
    if (const int line = locator_.LineOf(path_); line > 0)
      spec.source += ":" + std::to_string(line);

    if (auto e = RequiredString("name", spec.name)) return *e;
    if (!IsModelName(spec.name)) {
      return Error("name", "\"" + spec.name +
                               "\": a model name is letters, digits, '_', '.' and '-', starting "
                               "with a letter or digit, at most 64 characters");
    }
    if (auto e = RequiredString("path", spec.path)) return *e;
    if (spec.path.empty() || spec.path.front() != '/') {
      return Error("path", "\"" + spec.path + "\" must be an absolute path to an .onnx file");
    }
    if (auto e = Bool(object_, "enabled", spec.enabled)) return *e;
    if (auto e = Uint(object_, "interval_seconds", spec.interval_seconds, 0, 365 * 86400)) {
      return *e;
    }
    if (spec.interval_seconds != 0 && spec.interval_seconds < 10) {
      return Error("interval_seconds", "must be 0 (only when asked) or at least 10");
    }
    if (auto e = Bool(object_, "only_when_idle", spec.only_when_idle)) return *e;
    if (auto e = Uint(object_, "warmup_runs", spec.warmup_runs, 0, 100000)) return *e;
    if (auto e = Uint(object_, "runs", spec.runs, 0, 10000000)) return *e;
    if (auto e = Double(object_, "duration_seconds", spec.duration_seconds, 0.01, 86400)) {
      return *e;
    }
    if (auto e = Uint(object_, "threads", spec.threads, 1, 256)) return *e;
    if (auto e = InputShapes(spec.input_shapes)) return *e;
    if (const Json* value = Find(object_, "golden_data")) {
      if (!value->is_string()) return WrongType("golden_data", "a string", *value);
      spec.golden_data = value->get<std::string>();
      if (!spec.golden_data.empty() && spec.golden_data.front() != '/') {
        return Error("golden_data", "\"" + spec.golden_data +
                                        "\" must be an absolute path to a test_data_set_N "
                                        "directory, or \"\"");
      }
    }
    if (auto e = Double(object_, "tolerance", spec.tolerance, 0, 1e9)) return *e;

    if (const Json* budget = Find(object_, "budget")) {
      if (!budget->is_object()) return WrongType("budget", "an object", *budget);
      if (auto e = KnownKeys(*budget, "budget", kBudgetKeys)) return *e;
      if (auto e =
              Double(*budget, "p99_latency_ms", spec.budget_p99_latency_ms, 0, 1e9, "budget.")) {
        return *e;
      }
      if (auto e = Double(*budget, "energy_per_inference_millijoules",
                          spec.budget_energy_per_inference_millijoules, 0, 1e12, "budget.")) {
        return *e;
      }
    }
    if (const Json* margin = Find(object_, "regression_margin")) {
      if (!margin->is_object()) return WrongType("regression_margin", "an object", *margin);
      if (auto e = KnownKeys(*margin, "regression_margin", kMarginKeys)) return *e;
      const std::string prefix = "regression_margin.";
      if (auto e = Double(*margin, "latency_ratio", spec.latency_margin_ratio, 0, 100, prefix)) {
        return *e;
      }
      if (auto e = Double(*margin, "energy_ratio", spec.energy_margin_ratio, 0, 100, prefix)) {
        return *e;
      }
      if (auto e = Double(*margin, "memory_ratio", spec.memory_margin_ratio, 0, 100, prefix)) {
        return *e;
      }
    }
    if (const Json* limits = Find(object_, "limits")) {
      if (!limits->is_object()) return WrongType("limits", "an object", *limits);
      if (auto e = KnownKeys(*limits, "limits", kLimitKeys)) return *e;
      if (auto e = Uint(*limits, "memory_mb", spec.memory_limit_mb, 0, 1 << 24, "limits.")) {
        return *e;
      }
      if (spec.memory_limit_mb != 0 && spec.memory_limit_mb < 16) {
        return Error("limits.memory_mb", "must be 0 (no limit) or at least 16");
      }
      if (auto e = Uint(*limits, "cpu_seconds", spec.cpu_limit_seconds, 0, 7 * 86400, "limits.")) {
        return *e;
      }
      if (auto e =
              Uint(*limits, "deadline_seconds", spec.deadline_seconds, 1, 7 * 86400, "limits.")) {
        return *e;
      }
    }
    if (spec.runs == 0 && spec.duration_seconds * 2 + 5 > spec.deadline_seconds) {
      return Error("limits.deadline_seconds",
                   "the deadline (" + std::to_string(spec.deadline_seconds) +
                       " s) leaves too little time for a " + Number(spec.duration_seconds) +
                       " s benchmark: make it at least twice the duration plus 5 s");
    }
    return spec;
  }

 private:
  ConfigError Error(std::string_view key, std::string message) const {
    const std::string full = key.empty() ? path_ : path_ + "." + std::string(key);
    int line = locator_.LineOf(full);
    if (line == 0) line = locator_.LineOf(path_);
    return ConfigError{file_, line, full, std::move(message)};
  }

  ConfigError WrongType(std::string_view key, std::string_view expected, const Json& got) const {
    return Error(key, "expected " + std::string(expected) + ", got " + std::string(TypeName(got)));
  }

  static const Json* Find(const Json& object, std::string_view key) {
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }

  template <std::size_t N>
  std::optional<ConfigError> KnownKeys(const Json& object, std::string_view prefix,
                                       const std::string_view (&keys)[N]) const {
    for (const auto& [key, value] : object.items()) {
      if (std::find(std::begin(keys), std::end(keys), key) == std::end(keys)) {
        const std::string full = prefix.empty() ? key : std::string(prefix) + "." + key;
        const std::string what = prefix.empty() ? "a model" : std::string(prefix);
        return Error(full, "unknown key (" + what + " has: " + KeyList(keys) + ")");
      }
    }
    return std::nullopt;
  }

  std::optional<ConfigError> RequiredString(std::string_view key, std::string& out) const {
    const Json* value = Find(object_, key);
    if (value == nullptr) return Error("", "missing required key \"" + std::string(key) + "\"");
    if (!value->is_string()) return WrongType(key, "a string", *value);
    out = value->get<std::string>();
    return std::nullopt;
  }

  std::optional<ConfigError> Bool(const Json& object, std::string_view key, bool& out) const {
    const Json* value = Find(object, key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_boolean()) return WrongType(key, "true or false", *value);
    out = value->get<bool>();
    return std::nullopt;
  }

  std::optional<ConfigError> Uint(const Json& object, std::string_view key, std::uint32_t& out,
                                  std::uint64_t min, std::uint64_t max,
                                  std::string_view prefix = "") const {
    const Json* value = Find(object, key);
    if (value == nullptr) return std::nullopt;
    const std::string full = std::string(prefix) + std::string(key);
    if (!value->is_number_unsigned()) return WrongType(full, "a whole number", *value);
    const auto number = value->get<std::uint64_t>();
    if (number < min || number > max) {
      return Error(full, "must be between " + std::to_string(min) + " and " + std::to_string(max));
    }
    out = static_cast<std::uint32_t>(number);
    return std::nullopt;
  }

  std::optional<ConfigError> Double(const Json& object, std::string_view key, double& out,
                                    double min, double max, std::string_view prefix = "") const {
    const Json* value = Find(object, key);
    if (value == nullptr) return std::nullopt;
    const std::string full = std::string(prefix) + std::string(key);
    if (!value->is_number()) return WrongType(full, "a number", *value);
    const double number = value->get<double>();
    if (!(number >= min && number <= max)) {
      return Error(full, "must be between " + Number(min) + " and " + Number(max));
    }
    out = number;
    return std::nullopt;
  }

  std::optional<ConfigError> InputShapes(std::map<std::string, std::vector<std::int64_t>>& out) {
    const Json* value = Find(object_, "input_shapes");
    if (value == nullptr) return std::nullopt;
    if (!value->is_object()) {
      return WrongType("input_shapes", "an object of input name: [dimensions]", *value);
    }
    for (const auto& [name, dims] : value->items()) {
      const std::string key = "input_shapes." + name;
      if (name.empty()) return Error(key, "an input name must not be empty");
      if (!dims.is_array() || dims.empty()) {
        return WrongType(key, "a non-empty list of dimensions", dims);
      }
      std::vector<std::int64_t> shape;
      for (const Json& dim : dims) {
        if (!dim.is_number_unsigned() || dim.get<std::uint64_t>() > (1ULL << 31)) {
          return Error(key, "dimensions are whole numbers from 0 to 2147483648");
        }
        shape.push_back(static_cast<std::int64_t>(dim.get<std::uint64_t>()));
      }
      out[name] = std::move(shape);
    }
    return std::nullopt;
  }

  const Json& object_;
  const std::string& file_;
  const JsonLocator& locator_;
  std::string path_;
};

}  // namespace

bool IsModelName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  const auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (!alnum(name.front())) return false;
  return std::all_of(name.begin(), name.end(),
                     [&](char c) { return alnum(c) || c == '_' || c == '.' || c == '-'; });
}

std::string ModelSpec::SettingsText() const {
  std::string out = "threads=" + std::to_string(threads) + " warmup=" + std::to_string(warmup_runs);
  out += runs > 0 ? " runs=" + std::to_string(runs) : " duration=" + Number(duration_seconds) + "s";
  for (const auto& [input, dims] : input_shapes) {
    out += " input=" + input + ":";
    for (std::size_t i = 0; i < dims.size(); ++i) {
      out += (i > 0 ? "x" : "") + std::to_string(dims[i]);
    }
  }
  if (!golden_data.empty()) out += " golden=" + golden_data + " tolerance=" + Number(tolerance);
  return out;
}

ModelsOrError ParseModelList(const nlohmann::json& models, const std::string& file,
                             const JsonLocator& locator, std::string_view path) {
  if (!models.is_array()) {
    return ConfigError{file, locator.LineOf(path), std::string(path),
                       "expected a list of models, got " + std::string(TypeName(models))};
  }
  std::vector<ModelSpec> out;
  std::set<std::string> names;
  for (std::size_t i = 0; i < models.size(); ++i) {
    const std::string item_path = std::string(path) + "." + std::to_string(i);
    auto read = ModelReader(models[i], file, locator, item_path).Read();
    if (auto* error = std::get_if<ConfigError>(&read)) return *error;
    ModelSpec spec = std::get<ModelSpec>(std::move(read));
    if (!names.insert(spec.name).second) {
      const std::string key = item_path + ".name";
      return ConfigError{file, locator.LineOf(key), key,
                         "a model named \"" + spec.name + "\" is already defined in this list"};
    }
    out.push_back(std::move(spec));
  }
  return out;
}

void MergeModels(std::vector<ModelSpec>& models, std::vector<ModelSpec> later) {
  for (ModelSpec& spec : later) {
    const auto same = std::find_if(models.begin(), models.end(),
                                   [&](const ModelSpec& m) { return m.name == spec.name; });
    if (same != models.end()) {
      *same = std::move(spec);
    } else {
      models.push_back(std::move(spec));
    }
  }
}

nlohmann::ordered_json ModelSpecToJson(const ModelSpec& spec) {
  nlohmann::ordered_json shapes = nlohmann::ordered_json::object();
  for (const auto& [name, dims] : spec.input_shapes) shapes[name] = dims;
  return nlohmann::ordered_json{
      {"name", spec.name},
      {"path", spec.path},
      {"enabled", spec.enabled},
      {"interval_seconds", spec.interval_seconds},
      {"only_when_idle", spec.only_when_idle},
      {"warmup_runs", spec.warmup_runs},
      {"runs", spec.runs},
      {"duration_seconds", spec.duration_seconds},
      {"threads", spec.threads},
      {"input_shapes", shapes},
      {"golden_data", spec.golden_data},
      {"tolerance", spec.tolerance},
      {"budget",
       {{"p99_latency_ms", spec.budget_p99_latency_ms},
        {"energy_per_inference_millijoules", spec.budget_energy_per_inference_millijoules}}},
      {"regression_margin",
       {{"latency_ratio", spec.latency_margin_ratio},
        {"energy_ratio", spec.energy_margin_ratio},
        {"memory_ratio", spec.memory_margin_ratio}}},
      {"limits",
       {{"memory_mb", spec.memory_limit_mb},
        {"cpu_seconds", spec.cpu_limit_seconds},
        {"deadline_seconds", spec.deadline_seconds}}},
  };
}

}  // namespace edgemond::selfbench
