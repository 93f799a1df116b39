#include "daemon/config.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "alerts/rule_parser.h"
#include "core/json_locator.h"
#include "core/text.h"
#include "daemon/config_schema.h"
#include "selfbench/model_alerts.h"

namespace edgemond::daemon {
namespace {

using Json = nlohmann::json;

const FieldSpec* FindField(std::string_view key) {
  for (const FieldSpec& field : ConfigSchema()) {
    if (field.key == key) return &field;
  }
  return nullptr;
}

bool IsSection(std::string_view key) {
  for (const SectionSpec& section : ConfigSections()) {
    if (section.key == key) return true;
  }
  return false;
}

std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string UnknownKeyMessage(std::string_view key) {
  std::string message = "unknown key";
  std::string_view best;
  std::size_t best_distance = 3;
  const auto consider = [&](std::string_view candidate) {
    const std::size_t distance = EditDistance(key, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  };
  for (const FieldSpec& field : ConfigSchema()) consider(field.key);
  for (const SectionSpec& section : ConfigSections()) consider(section.key);
  if (!best.empty()) message += " (did you mean \"" + std::string(best) + "\"?)";
  return message;
}

std::string_view KindName(FieldKind kind) {
  switch (kind) {
    case FieldKind::kString:
      return "a string";
    case FieldKind::kUint32:
      return "a whole number";
    case FieldKind::kDouble:
      return "a number";
    case FieldKind::kBool:
      return "true or false";
    case FieldKind::kStringList:
      return "a list of strings";
    case FieldKind::kAlertRules:
      return "a list of alert rules";
    case FieldKind::kModels:
      return "a list of models";
  }
  return "a value";
}

std::string_view JsonTypeName(const Json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "a list";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number_float()) return "a fractional number";
  if (value.is_number_integer() && value.get<std::int64_t>() < 0) return "a negative number";
  if (value.is_number()) return "a number";
  return "null";
}

// Sets the field from JSON; returns an error message, or "".
std::string Assign(const FieldSpec& spec, Config& config, const Json& value) {
  void* field = FieldAddress(spec, config);
  const std::string wrong =
      "expected " + std::string(KindName(spec.kind)) + ", got " + std::string(JsonTypeName(value));
  switch (spec.kind) {
    case FieldKind::kString:
      if (!value.is_string()) return wrong;
      *static_cast<std::string*>(field) = value.get<std::string>();
      return "";
    case FieldKind::kBool:
      if (!value.is_boolean()) return wrong;
      *static_cast<bool*>(field) = value.get<bool>();
      return "";
    case FieldKind::kUint32: {
      if (!value.is_number_unsigned()) return wrong;
      const auto number = value.get<std::uint64_t>();
      if (number > 0xFFFFFFFFu) return "value out of range";
      *static_cast<std::uint32_t*>(field) = static_cast<std::uint32_t>(number);
      return "";
    }
    case FieldKind::kDouble:
      if (!value.is_number()) return wrong;
      *static_cast<double*>(field) = value.get<double>();
      return "";
    case FieldKind::kStringList: {
      if (!value.is_array()) return wrong;
      std::vector<std::string> items;
      for (const Json& item : value) {
        if (!item.is_string())
          return "expected a list of strings, found " + std::string(JsonTypeName(item)) + " in it";
        items.push_back(item.get<std::string>());
      }
      *static_cast<std::vector<std::string>*>(field) = std::move(items);
      return "";
    }
    case FieldKind::kAlertRules:
    case FieldKind::kModels:
      break;  // Parsed by Apply(), which knows where each rule or model is in the file.
  }
  return "cannot be set this way";
}

std::string RangeError(const FieldSpec& spec, Config& config) {
  double number;
  if (spec.kind == FieldKind::kUint32) {
    number = *static_cast<std::uint32_t*>(FieldAddress(spec, config));
  } else if (spec.kind == FieldKind::kDouble) {
    number = *static_cast<double*>(FieldAddress(spec, config));
  } else {
    return "";
  }
  if (spec.min == spec.max) return "";
  if (!(number >= spec.min && number <= spec.max)) {
    std::ostringstream out;
    out << "must be between " << spec.min << " and " << spec.max;
    return out.str();
  }
  return "";
}

nlohmann::ordered_json ValueToJson(const FieldSpec& spec, Config& config) {
  void* field = FieldAddress(spec, config);
  switch (spec.kind) {
    case FieldKind::kString:
      return *static_cast<std::string*>(field);
    case FieldKind::kBool:
      return *static_cast<bool*>(field);
    case FieldKind::kUint32:
      return *static_cast<std::uint32_t*>(field);
    case FieldKind::kDouble:
      return *static_cast<double*>(field);
    case FieldKind::kStringList:
      return *static_cast<std::vector<std::string>*>(field);
    case FieldKind::kAlertRules: {
      nlohmann::ordered_json rules = nlohmann::ordered_json::array();
      for (const alerts::Rule& rule : *static_cast<std::vector<alerts::Rule>*>(field)) {
        rules.push_back(alerts::RuleToJson(rule));
      }
      return rules;
    }
    case FieldKind::kModels: {
      nlohmann::ordered_json models = nlohmann::ordered_json::array();
      for (const selfbench::ModelSpec& model :
           *static_cast<std::vector<selfbench::ModelSpec>*>(field)) {
        models.push_back(selfbench::ModelSpecToJson(model));
      }
      return models;
    }
  }
  return nullptr;
}

// Applies `object` (at dotted `prefix`) to `config`, checking every key against the schema.
std::optional<ConfigError> Apply(const Json& object, const std::string& prefix, Config& config,
                                 const std::string& file, const JsonLocator& locator) {
  for (const auto& [name, value] : object.items()) {
    const std::string key = prefix.empty() ? name : prefix + "." + name;
    const auto error = [&](std::string message) {
      return ConfigError{file, locator.LineOf(key), key, std::move(message)};
    };
    if (IsSection(key)) {
      if (!value.is_object()) {
        return error("expected an object (a section), got " + std::string(JsonTypeName(value)));
      }
      if (auto nested = Apply(value, key, config, file, locator)) return nested;
      continue;
    }
    const FieldSpec* spec = FindField(key);
    if (spec == nullptr) return error(UnknownKeyMessage(key));
    if (spec->kind == FieldKind::kAlertRules) {
      auto rules = alerts::ParseRuleList(value, file, locator, key);
      if (auto* rule_error = std::get_if<ConfigError>(&rules)) return *rule_error;
      alerts::MergeRules(*static_cast<std::vector<alerts::Rule>*>(FieldAddress(*spec, config)),
                         std::get<std::vector<alerts::Rule>>(std::move(rules)));
      continue;
    }
    if (spec->kind == FieldKind::kModels) {
      auto models = selfbench::ParseModelList(value, file, locator, key);
      if (auto* model_error = std::get_if<ConfigError>(&models)) return *model_error;
      selfbench::MergeModels(
          *static_cast<std::vector<selfbench::ModelSpec>*>(FieldAddress(*spec, config)),
          std::get<std::vector<selfbench::ModelSpec>>(std::move(models)));
      continue;
    }
    if (std::string message = Assign(*spec, config, value); !message.empty()) {
      return error(std::move(message));
    }
    if (std::string message = RangeError(*spec, config); !message.empty()) {
      return error(std::move(message));
    }
    if (spec->check != nullptr) {
      if (std::string message = spec->check(config); !message.empty()) {
        return error(std::move(message));
      }
    }
  }
  return std::nullopt;
}

// The self-benchmarks' alert rules are built in (selfbench/model_alerts.h); a configured rule of
// the same name would be two rules under one name.
std::optional<ConfigError> ReservedRuleNameError(const std::vector<alerts::Rule>& rules) {
  for (const alerts::Rule& rule : rules) {
    if (!selfbench::IsModelAlertRule(rule.name)) continue;
    // rule.source is "FILE:LINE" (the line of the rule's object).
    ConfigError error{rule.source, 0, "name",
                      "\"" + rule.name +
                          "\" is the name of a built-in self-benchmark alert rule "
                          "(docs/selfbench.md); choose another name"};
    const std::string& source = rule.source;
    if (const auto colon = source.rfind(':'); colon != std::string::npos) {
      const char* end = source.data() + source.size();
      int line = 0;
      const auto parsed = std::from_chars(source.data() + colon + 1, end, line);
      if (parsed.ec == std::errc() && parsed.ptr == end) {
        error.file = source.substr(0, colon);
        error.line = line;
      }
    }
    return error;
  }
  return std::nullopt;
}

std::optional<ConfigError> ReadFile(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ConfigError{path, 0, "", "cannot read the file: " + std::string(strerror(errno))};
  std::ostringstream buffer;
  buffer << in.rdbuf();
  out = buffer.str();
  return std::nullopt;
}

}  // namespace

std::variant<Config, ConfigError> ParseConfig(std::string_view text, const std::string& file,
                                              Config base) {
  Json json;
  try {
    json = Json::parse(text, /*cb=*/nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const Json::parse_error& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line L, column C: ..."; keep
    // the part after the location prefix and compute the line from the byte offset ourselves.
    std::string what = e.what();
    const std::size_t colon = what.find(": ", what.find("parse error"));
    std::string detail = colon == std::string::npos ? what : what.substr(colon + 2);
    return ConfigError{file, JsonLocator::LineAtOffset(text, e.byte > 0 ? e.byte - 1 : 0), "",
                       "syntax error: " + detail};
  } catch (const Json::out_of_range& e) {  // A number beyond a double: "1e999".
    return ConfigError{file, JsonLocator::LineOfOverflow(text, e.what()), "",
                       "syntax error: " + JsonLocator::OverflowDetail(e.what())};
  }
  if (!json.is_object()) {
    return ConfigError{file, 1, "", "the configuration must be a JSON object ({ ... })"};
  }
  const JsonLocator locator(text);
  if (auto error = Apply(json, "", base, file, locator)) return *error;
  return base;
}

std::variant<Config, ConfigError> LoadConfigFile(const std::string& path, bool path_must_exist) {
  namespace fs = std::filesystem;
  Config config;
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    if (path_must_exist) return ConfigError{path, 0, "", "no such file"};
  } else {
    std::string text;
    if (auto error = ReadFile(path, text)) return *error;
    auto parsed = ParseConfig(text, path, config);
    if (auto* error = std::get_if<ConfigError>(&parsed)) return *error;
    config = std::get<Config>(std::move(parsed));
  }
  // Drop-ins: <dir>/conf.d/*.json in name order, applied even when the main file is absent.
  const fs::path dropin_dir = fs::path(path).parent_path() / "conf.d";
  std::vector<fs::path> dropins;
  for (auto it = fs::directory_iterator(dropin_dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    if (it->path().extension() == ".json") dropins.push_back(it->path());
  }
  std::sort(dropins.begin(), dropins.end());
  for (const fs::path& dropin : dropins) {
    std::string text;
    if (auto error = ReadFile(dropin, text)) return *error;
    auto parsed = ParseConfig(text, dropin, config);
    if (auto* error = std::get_if<ConfigError>(&parsed)) return *error;
    config = std::get<Config>(std::move(parsed));
  }
  // Alert rules: <dir>/alerts.d/*.json in name order, on top of the configuration's own.
  auto rules = alerts::LoadRuleDirectory(fs::path(path).parent_path() / "alerts.d");
  if (auto* error = std::get_if<ConfigError>(&rules)) return *error;
  alerts::MergeRules(config.alerts.rules, std::get<std::vector<alerts::Rule>>(std::move(rules)));
  if (auto error = ReservedRuleNameError(config.alerts.rules)) return *error;
  return config;
}

std::optional<ConfigError> SetConfigValue(Config& config, std::string_view key,
                                          std::string_view text) {
  const FieldSpec* spec = FindField(key);
  if (spec == nullptr) return ConfigError{"", 0, std::string(key), UnknownKeyMessage(key)};
  const std::string where = spec->flag.empty() ? std::string(key) : std::string(spec->flag);
  Json value;
  switch (spec->kind) {
    case FieldKind::kString:
      value = std::string(text);
      break;
    case FieldKind::kBool:
      if (text != "true" && text != "false") {
        return ConfigError{"", 0, where, "expected true or false"};
      }
      value = text == "true";
      break;
    case FieldKind::kUint32: {
      auto number = ParseUint64(text);
      if (!number.ok()) return ConfigError{"", 0, where, "expected a whole number"};
      value = *number;
      break;
    }
    case FieldKind::kDouble: {
      auto number = ParseDouble(text);
      if (!number.ok() || !std::isfinite(*number)) {
        return ConfigError{"", 0, where, "expected a number"};
      }
      value = *number;
      break;
    }
    case FieldKind::kStringList:
      value = Json::array({std::string(text)});
      break;
    case FieldKind::kAlertRules:
      return ConfigError{"", 0, where, "alert rules cannot be set from the command line"};
    case FieldKind::kModels:
      return ConfigError{"", 0, where, "models cannot be set from the command line"};
  }
  Config updated = config;
  if (std::string message = Assign(*spec, updated, value); !message.empty()) {
    return ConfigError{"", 0, where, message};
  }
  if (std::string message = RangeError(*spec, updated); !message.empty()) {
    return ConfigError{"", 0, where, message};
  }
  if (spec->check != nullptr) {
    if (std::string message = spec->check(updated); !message.empty()) {
      return ConfigError{"", 0, where, message};
    }
  }
  config = std::move(updated);
  return std::nullopt;
}

std::optional<ConfigError> ValidateConfig(const Config& config) {
  Config copy = config;
  for (const FieldSpec& spec : ConfigSchema()) {
    if (std::string message = RangeError(spec, copy); !message.empty()) {
      return ConfigError{"", 0, std::string(spec.key), message};
    }
    if (spec.check != nullptr) {
      if (std::string message = spec.check(copy); !message.empty()) {
        return ConfigError{"", 0, std::string(spec.key), message};
      }
    }
  }
  return std::nullopt;
}

std::vector<RestartPending> KeepValuesThatNeedARestart(const Config& running, Config& next) {
  const auto printed = [](const nlohmann::ordered_json& value) {
    return value.is_string() ? value.get<std::string>() : value.dump();
  };
  Config copy = running;
  std::vector<RestartPending> pending;
  for (const FieldSpec& spec : ConfigSchema()) {
    if (!spec.needs_restart) continue;
    const nlohmann::ordered_json was = ValueToJson(spec, copy);
    const nlohmann::ordered_json wanted = ValueToJson(spec, next);
    if (was == wanted) continue;
    pending.push_back({std::string(spec.key), printed(was), printed(wanted)});
    (void)Assign(spec, next, Json::parse(was.dump()));  // A value that was valid once.
  }
  return pending;
}

nlohmann::ordered_json ConfigToJson(const Config& config) {
  Config copy = config;
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const FieldSpec& spec : ConfigSchema()) {
    const std::size_t dot = spec.key.find('.');
    const nlohmann::ordered_json value = ValueToJson(spec, copy);
    if (dot == std::string_view::npos) {
      out[std::string(spec.key)] = value;
    } else {
      out[std::string(spec.key.substr(0, dot))][std::string(spec.key.substr(dot + 1))] = value;
    }
  }
  return out;
}

namespace {

// Wraps `text` into comment lines of at most ~96 columns with the given indent.
void AppendComment(std::string& out, std::string_view text, std::string_view indent) {
  std::string line;
  for (std::string_view word : SplitFields(text)) {
    if (!line.empty() && indent.size() + 3 + line.size() + 1 + word.size() > 96) {
      out += std::string(indent) + "// " + line + "\n";
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
  }
  if (!line.empty()) out += std::string(indent) + "// " + line + "\n";
}

}  // namespace

std::string DefaultConfigFileText() {
  Config defaults;
  std::string out =
      "// edgemond configuration. Every key is listed with its default value; delete what you\n"
      "// do not change, or put changes in conf.d/*.json drop-ins next to this file (applied in\n"
      "// name order on top of it). JSON with comments. Check a file with:\n"
      "//   edgemond --config /etc/edgemond/edgemond.json --check-config\n"
      "// This file is generated from the compiled defaults (edgemond --print-default-config).\n"
      "{\n";
  std::string current_section;
  bool first_in_block = true;
  const auto schema = ConfigSchema();
  for (std::size_t i = 0; i < schema.size(); ++i) {
    const FieldSpec& spec = schema[i];
    const std::size_t dot = spec.key.find('.');
    const std::string section =
        dot == std::string_view::npos ? std::string() : std::string(spec.key.substr(0, dot));
    const std::string name(dot == std::string_view::npos ? spec.key : spec.key.substr(dot + 1));
    if (section != current_section) {
      if (!current_section.empty()) out += "\n  },\n";
      if (!section.empty()) {
        if (current_section.empty() && i > 0) out += ",\n";
        out += "\n";
        for (const SectionSpec& s : ConfigSections()) {
          if (s.key == section) AppendComment(out, s.help, "  ");
        }
        out += "  \"" + section + "\": {\n";
      }
      current_section = section;
      first_in_block = true;
    }
    const std::string indent = section.empty() ? "  " : "    ";
    if (!first_in_block) out += ",\n";
    if (first_in_block && section.empty() && i > 0) out += "\n";
    AppendComment(out, spec.help, indent);
    out += indent + "\"" + name + "\": " + ValueToJson(spec, defaults).dump();
    first_in_block = false;
  }
  out += current_section.empty() ? "\n}\n" : "\n  }\n}\n";
  return out;
}

}  // namespace edgemond::daemon
