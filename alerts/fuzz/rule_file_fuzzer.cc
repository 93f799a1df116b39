// Fuzz target for alert rule files (alerts.d/*.json; alerts/rule_parser.h): any text gives rules
// or an error that names the file, and names the line of the key it names. Every rule that parses,
// written back as a drop-in (RuleToJson), parses to the same definition.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "alerts/rule_parser.h"
#include "tests/fuzz/config_error_check.h"
#include "tests/fuzz/fuzz_check.h"

namespace edgemond::alerts {
namespace {

constexpr const char* kFile = "/etc/edgemond/alerts.d/50-fuzz.json";

void Check(std::string_view text) {
  RulesOrError parsed = ParseRuleFile(text, kFile);
  if (const auto* error = std::get_if<ConfigError>(&parsed))
    return fuzz::CheckConfigError(*error, kFile, text);
  const auto& rules = std::get<std::vector<Rule>>(parsed);
  nlohmann::ordered_json written = {{"rules", nlohmann::ordered_json::array()}};
  for (const Rule& rule : rules) written["rules"].push_back(RuleToJson(rule));
  RulesOrError again = ParseRuleFile(written.dump(2), kFile);
  const auto* rules_again = std::get_if<std::vector<Rule>>(&again);
  FUZZ_CHECK(rules_again != nullptr && rules_again->size() == rules.size(),
             "rules written back parse again");
  for (std::size_t i = 0; i < rules.size(); ++i) {
    FUZZ_CHECK(SameDefinition(rules[i], (*rules_again)[i]), "a rule written back is the same");
  }
}

}  // namespace
}  // namespace edgemond::alerts

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  edgemond::alerts::Check(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
