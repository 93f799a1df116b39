// Parsing alert rules from JSON: the "alerts.rules" list of the configuration file and the
// drop-in files in alerts.d/ ({"rules": [...]}, comments allowed). docs/alerts.md documents every
// key; RuleToJson() writes a rule back with every key spelled out.
//
// Errors name the file, the line and the key, as configuration errors do:
//   /etc/edgemond/alerts.d/10-thermal.json:7: rules.0.clear: for op ">" clear must be <= trigger
// Nothing is half-loaded: a list with one bad rule is an error as a whole.

#ifndef EDGEMOND_ALERTS_RULE_PARSER_H_
#define EDGEMOND_ALERTS_RULE_PARSER_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "alerts/rule.h"
#include "core/config_error.h"
#include "core/json_locator.h"

namespace edgemond::alerts {

using RulesOrError = std::variant<std::vector<Rule>, ConfigError>;

// Parses `rules`, the JSON array found at dotted `path` ("alerts.rules", "rules") of a document
// from `file` whose text `locator` indexes. Rule names must be unique within the list.
RulesOrError ParseRuleList(const nlohmann::json& rules, const std::string& file,
                           const JsonLocator& locator, std::string_view path);

// Parses the text of a drop-in file: a JSON object whose only key is "rules".
RulesOrError ParseRuleFile(std::string_view text, const std::string& file);

// Reads every *.json file of `dir` in name order (a missing directory holds no rules) and merges
// them with MergeRules.
RulesOrError LoadRuleDirectory(const std::string& dir);

// Appends `later` to `rules`; a later rule replaces an earlier rule of the same name in place, so
// a drop-in can redefine (or disable, with "enabled": false) a shipped rule.
void MergeRules(std::vector<Rule>& rules, std::vector<Rule> later);

// A rule as a drop-in file spells it, every key present (defaults included).
nlohmann::ordered_json RuleToJson(const Rule& rule);

// Two rules that RuleToJson writes alike (source locations aside).
bool SameDefinition(const Rule& a, const Rule& b);

}  // namespace edgemond::alerts

#endif  // EDGEMOND_ALERTS_RULE_PARSER_H_
