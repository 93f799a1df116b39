#include "alerts/rule_parser.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace edgemond::alerts {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kRuleKeys[] = {
    "name",        "metric", "match",           "match_not", "op",      "trigger",         "clear",
    "reduce",      "for",    "keep_firing_for", "severity",  "no_data", "no_data_timeout", "labels",
    "annotations", "enabled"};

bool IsMetricName(std::string_view name) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
                    (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

bool IsRuleName(std::string_view name) {
  if (name.empty() || name.size() > 128 || !(name[0] >= 'a' && name[0] <= 'z')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::string_view TypeName(const Json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "a list";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number()) return "a number";
  return "null";
}

// Parses one rule; `path` is its dotted path ("alerts.rules.3").
class RuleReader {
 public:
  RuleReader(const Json& object, const std::string& file, const JsonLocator& locator,
             std::string path)
      : object_(object), file_(file), locator_(locator), path_(std::move(path)) {}

  std::variant<Rule, ConfigError> Read() {
    if (!object_.is_object()) {
      return Error("", "expected a rule (an object), got " + std::string(TypeName(object_)));
    }
    for (const auto& [key, value] : object_.items()) {
      if (std::find(std::begin(kRuleKeys), std::end(kRuleKeys), key) == std::end(kRuleKeys)) {
        std::string known;
        for (std::string_view k : kRuleKeys) known += (known.empty() ? "" : ", ") + std::string(k);
        return Error(key, "unknown key (a rule has: " + known + ")");
      }
    }
    Rule rule;
    rule.source = file_;
    if (const int line = locator_.LineOf(path_); line > 0) {
      rule.source += ":" + std::to_string(line);
    }

    if (auto e = RequiredString("name", rule.name)) return *e;
    if (!IsRuleName(rule.name)) {
      return Error("name", "\"" + rule.name +
                               "\": a rule name is lower-case letters, digits and '_', "
                               "starting with a letter");
    }
    if (auto e = RequiredString("metric", rule.selector.name)) return *e;
    if (!IsMetricName(rule.selector.name)) {
      return Error("metric", "\"" + rule.selector.name + "\" is not a metric name");
    }
    if (auto e = Matchers("match", LabelMatcher::Op::kEqual, rule.selector)) return *e;
    if (auto e = Matchers("match_not", LabelMatcher::Op::kNotEqual, rule.selector)) return *e;

    std::string op_text;
    if (auto e = RequiredString("op", op_text)) return *e;
    auto op = ParseComparison(op_text);
    if (!op.ok()) return Error("op", std::string(op.status().message()));
    rule.op = *op;
    if (auto e = RequiredNumber("trigger", rule.trigger)) return *e;
    if (auto e = RequiredNumber("clear", rule.clear)) return *e;
    const bool above = rule.op == Comparison::kGreater || rule.op == Comparison::kGreaterOrEqual;
    if (above && rule.clear > rule.trigger) {
      return Error("clear", "for op \"" + op_text +
                                "\" clear must be <= trigger (it is the "
                                "level the value must fall to before the alert resolves)");
    }
    if (!above && rule.clear < rule.trigger) {
      return Error("clear", "for op \"" + op_text +
                                "\" clear must be >= trigger (it is the "
                                "level the value must rise to before the alert resolves)");
    }

    if (auto e = ReadReduce(rule.reduce)) return *e;
    if (auto e = OptionalDuration("for", rule.for_duration)) return *e;
    if (auto e = OptionalDuration("keep_firing_for", rule.keep_firing_for)) return *e;

    if (const Json* value = Find("severity")) {
      if (!value->is_string()) return WrongType("severity", "a string", *value);
      auto severity = ParseAlertSeverity(value->get<std::string>());
      if (!severity.ok()) return Error("severity", "expected \"warning\" or \"critical\"");
      rule.severity = *severity;
    }
    if (const Json* value = Find("no_data")) {
      if (!value->is_string()) return WrongType("no_data", "a string", *value);
      auto policy = ParseNoDataPolicy(value->get<std::string>());
      if (!policy.ok()) return Error("no_data", std::string(policy.status().message()));
      rule.no_data = *policy;
    }
    if (auto e = OptionalDuration("no_data_timeout", rule.no_data_timeout)) return *e;
    if (rule.no_data_timeout.count() <= 0) {
      return Error("no_data_timeout", "must be longer than 0s");
    }
    if (Find("no_data_timeout") != nullptr && rule.no_data != NoDataPolicy::kKeep) {
      return Error("no_data_timeout", "only applies with \"no_data\": \"keep\"");
    }

    if (auto e = StringMap("labels", rule.labels, /*templates=*/false)) return *e;
    if (auto e = StringMap("annotations", rule.annotations, /*templates=*/true)) return *e;
    if (const Json* value = Find("enabled")) {
      if (!value->is_boolean()) return WrongType("enabled", "true or false", *value);
      rule.enabled = value->get<bool>();
    }
    return rule;
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

  const Json* Find(std::string_view key) const {
    const auto it = object_.find(key);
    return it == object_.end() ? nullptr : &*it;
  }

  std::optional<ConfigError> RequiredString(std::string_view key, std::string& out) const {
    const Json* value = Find(key);
    if (value == nullptr) return Error("", "missing required key \"" + std::string(key) + "\"");
    if (!value->is_string()) return WrongType(key, "a string", *value);
    out = value->get<std::string>();
    return std::nullopt;
  }

  std::optional<ConfigError> RequiredNumber(std::string_view key, double& out) const {
    const Json* value = Find(key);
    if (value == nullptr) return Error("", "missing required key \"" + std::string(key) + "\"");
    if (!value->is_number()) return WrongType(key, "a number", *value);
    out = value->get<double>();
    return std::nullopt;
  }

  std::optional<ConfigError> OptionalDuration(std::string_view key,
                                              std::chrono::milliseconds& out) const {
    const Json* value = Find(key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_string()) return WrongType(key, "a duration such as \"90s\"", *value);
    auto duration = ParseDuration(value->get<std::string>());
    if (!duration.ok()) return Error(key, std::string(duration.status().message()));
    out = *duration;
    return std::nullopt;
  }

  std::optional<ConfigError> Matchers(std::string_view key, LabelMatcher::Op op,
                                      SeriesSelector& selector) const {
    const Json* value = Find(key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_object()) return WrongType(key, "an object of label: value", *value);
    for (const auto& [name, text] : value->items()) {
      const std::string child = std::string(key) + "." + name;
      if (!IsLabelName(name)) return Error(child, "\"" + name + "\" is not a label name");
      if (!text.is_string()) return WrongType(child, "a string", text);
      selector.matchers.push_back(LabelMatcher{name, op, text.get<std::string>()});
    }
    return std::nullopt;
  }

  std::optional<ConfigError> StringMap(std::string_view key, Labels& out, bool templates) const {
    const Json* value = Find(key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_object()) return WrongType(key, "an object of name: text", *value);
    for (const auto& [name, text] : value->items()) {
      const std::string child = std::string(key) + "." + name;
      if (!IsLabelName(name)) return Error(child, "\"" + name + "\" is not a valid name");
      if (!text.is_string()) return WrongType(child, "a string", text);
      const std::string string = text.get<std::string>();
      if (templates) {
        if (Status valid = ValidateTemplate(string); !valid.ok()) {
          return Error(child, std::string(valid.message()));
        }
      }
      out.push_back(Label{name, string});
    }
    return std::nullopt;
  }

  std::optional<ConfigError> ReadReduce(Reduce& reduce) const {
    const Json* value = Find("reduce");
    if (value == nullptr) return std::nullopt;
    if (!value->is_object()) {
      return WrongType("reduce", "an object such as {\"fn\": \"avg\", \"window\": \"1m\"}", *value);
    }
    for (const auto& [name, item] : value->items()) {
      if (name != "fn" && name != "window") {
        return Error("reduce." + name, "unknown key (reduce has \"fn\" and \"window\")");
      }
    }
    const auto fn = value->find("fn");
    if (fn == value->end()) return Error("reduce", "missing required key \"fn\"");
    if (!fn->is_string()) return WrongType("reduce.fn", "a string", *fn);
    auto function = ParseReduceFunction(fn->get<std::string>());
    if (!function.ok()) return Error("reduce.fn", std::string(function.status().message()));
    reduce.function = *function;
    const auto window = value->find("window");
    if (window != value->end()) {
      if (!window->is_string()) return WrongType("reduce.window", "a duration", *window);
      auto duration = ParseDuration(window->get<std::string>());
      if (!duration.ok()) return Error("reduce.window", std::string(duration.status().message()));
      reduce.window = *duration;
    }
    if (reduce.function == ReduceFunction::kLast && reduce.window.count() != 0) {
      return Error("reduce.window", "\"last\" takes no window");
    }
    if (reduce.function != ReduceFunction::kLast && reduce.window.count() <= 0) {
      return Error("reduce.window", "\"" + std::string(ReduceFunctionName(reduce.function)) +
                                        "\" needs a window longer than 0s, e.g. \"1m\"");
    }
    return std::nullopt;
  }

  const Json& object_;
  const std::string& file_;
  const JsonLocator& locator_;
  const std::string path_;
};

std::string Join(std::string_view prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : std::string(prefix) + "." + std::string(key);
}

}  // namespace

RulesOrError ParseRuleList(const Json& rules, const std::string& file, const JsonLocator& locator,
                           std::string_view path) {
  if (!rules.is_array()) {
    return ConfigError{file, locator.LineOf(path), std::string(path),
                       "expected a list of rules, got " + std::string(TypeName(rules))};
  }
  std::vector<Rule> out;
  std::set<std::string, std::less<>> names;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const std::string rule_path = Join(path, std::to_string(i));
    auto rule = RuleReader(rules[i], file, locator, rule_path).Read();
    if (auto* error = std::get_if<ConfigError>(&rule)) return *error;
    Rule& parsed = std::get<Rule>(rule);
    if (!names.insert(parsed.name).second) {
      const std::string key = rule_path + ".name";
      return ConfigError{file, locator.LineOf(key), key,
                         "another rule in this list is already named \"" + parsed.name + "\""};
    }
    out.push_back(std::move(parsed));
  }
  return out;
}

RulesOrError ParseRuleFile(std::string_view text, const std::string& file) {
  Json json;
  try {
    json = Json::parse(text, /*cb=*/nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const Json::parse_error& e) {
    std::string what = e.what();
    const std::size_t colon = what.find(": ", what.find("parse error"));
    return ConfigError{
        file, JsonLocator::LineAtOffset(text, e.byte > 0 ? e.byte - 1 : 0), "",
        "syntax error: " + (colon == std::string::npos ? what : what.substr(colon + 2))};
  } catch (const Json::out_of_range& e) {  // A number beyond a double: "1e999".
    return ConfigError{file, JsonLocator::LineOfOverflow(text, e.what()), "",
                       "syntax error: " + JsonLocator::OverflowDetail(e.what())};
  }
  const JsonLocator locator(text);
  if (!json.is_object()) {
    return ConfigError{file, 1, "", "an alert rules file is a JSON object: {\"rules\": [ ... ]}"};
  }
  for (const auto& [key, value] : json.items()) {
    if (key != "rules") {
      return ConfigError{file, locator.LineOf(key), key,
                         "unknown key (an alert rules file has only \"rules\")"};
    }
  }
  const auto rules = json.find("rules");
  if (rules == json.end()) return std::vector<Rule>();
  return ParseRuleList(*rules, file, locator, "rules");
}

RulesOrError LoadRuleDirectory(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> files;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    if (it->path().extension() == ".json") files.push_back(it->path());
  }
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return ConfigError{dir, 0, "", "cannot list the directory: " + ec.message()};
  }
  std::sort(files.begin(), files.end());
  std::vector<Rule> rules;
  for (const fs::path& path : files) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      return ConfigError{path.string(), 0, "",
                         "cannot read the file: " + std::string(strerror(errno))};
    }
    std::ostringstream text;
    text << in.rdbuf();
    auto parsed = ParseRuleFile(text.str(), path.string());
    if (auto* error = std::get_if<ConfigError>(&parsed)) return *error;
    MergeRules(rules, std::get<std::vector<Rule>>(std::move(parsed)));
  }
  return rules;
}

void MergeRules(std::vector<Rule>& rules, std::vector<Rule> later) {
  for (Rule& rule : later) {
    const auto same = std::find_if(rules.begin(), rules.end(),
                                   [&](const Rule& r) { return r.name == rule.name; });
    if (same != rules.end()) {
      *same = std::move(rule);
    } else {
      rules.push_back(std::move(rule));
    }
  }
}

nlohmann::ordered_json RuleToJson(const Rule& rule) {
  nlohmann::ordered_json out;
  out["name"] = rule.name;
  out["metric"] = rule.selector.name;
  nlohmann::ordered_json match = nlohmann::ordered_json::object();
  nlohmann::ordered_json match_not = nlohmann::ordered_json::object();
  for (const LabelMatcher& matcher : rule.selector.matchers) {
    (matcher.op == LabelMatcher::Op::kEqual ? match : match_not)[matcher.name] = matcher.value;
  }
  out["match"] = match;
  out["match_not"] = match_not;
  out["op"] = ComparisonSymbol(rule.op);
  out["trigger"] = rule.trigger;
  out["clear"] = rule.clear;
  nlohmann::ordered_json reduce;
  reduce["fn"] = ReduceFunctionName(rule.reduce.function);
  if (rule.reduce.function != ReduceFunction::kLast) {
    reduce["window"] = FormatDuration(rule.reduce.window);
  }
  out["reduce"] = reduce;
  out["for"] = FormatDuration(rule.for_duration);
  out["keep_firing_for"] = FormatDuration(rule.keep_firing_for);
  out["severity"] = AlertSeverityName(rule.severity);
  out["no_data"] = NoDataPolicyName(rule.no_data);
  if (rule.no_data == NoDataPolicy::kKeep) {
    out["no_data_timeout"] = FormatDuration(rule.no_data_timeout);
  }
  nlohmann::ordered_json labels = nlohmann::ordered_json::object();
  for (const Label& label : rule.labels) labels[label.name] = label.value;
  out["labels"] = labels;
  nlohmann::ordered_json annotations = nlohmann::ordered_json::object();
  for (const Label& annotation : rule.annotations) annotations[annotation.name] = annotation.value;
  out["annotations"] = annotations;
  out["enabled"] = rule.enabled;
  return out;
}

bool SameDefinition(const Rule& a, const Rule& b) { return RuleToJson(a) == RuleToJson(b); }

}  // namespace edgemond::alerts
