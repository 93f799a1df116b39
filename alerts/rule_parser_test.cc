#include "alerts/rule_parser.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/testing/temp_dir.h"

namespace edgemond::alerts {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

std::vector<Rule> ParseOk(std::string_view text) {
  auto parsed = ParseRuleFile(text, "rules.json");
  if (auto* error = std::get_if<ConfigError>(&parsed)) {
    ADD_FAILURE() << error->ToString();
    return {};
  }
  return std::get<std::vector<Rule>>(std::move(parsed));
}

ConfigError ParseError(std::string_view text) {
  auto parsed = ParseRuleFile(text, "rules.json");
  if (auto* error = std::get_if<ConfigError>(&parsed)) return *error;
  ADD_FAILURE() << "parsed without error: " << text;
  return {};
}

TEST(RuleParserTest, ParsesEveryKey) {
  const auto rules = ParseOk(R"({
    // Comments are allowed.
    "rules": [{
      "name": "soc_hot",
      "metric": "edgemond_thermal_zone_celsius",
      "match": {"type": "cpu-thermal"},
      "match_not": {"zone": "ignored"},
      "op": ">=",
      "trigger": 85,
      "clear": 80.5,
      "reduce": {"fn": "avg", "window": "30s"},
      "for": "1m",
      "keep_firing_for": "2m",
      "severity": "critical",
      "no_data": "keep",
      "no_data_timeout": "10m",
      "labels": {"team": "ops"},
      "annotations": {"summary": "{labels.zone} at {value} C"},
      "enabled": false
    }]})");
  ASSERT_EQ(rules.size(), 1u);
  const Rule& rule = rules[0];
  EXPECT_EQ(rule.name, "soc_hot");
  EXPECT_EQ(rule.selector.name, "edgemond_thermal_zone_celsius");
  ASSERT_EQ(rule.selector.matchers.size(), 2u);
  EXPECT_EQ(rule.selector.matchers[0].name, "type");
  EXPECT_EQ(rule.selector.matchers[0].op, LabelMatcher::Op::kEqual);
  EXPECT_EQ(rule.selector.matchers[1].op, LabelMatcher::Op::kNotEqual);
  EXPECT_EQ(rule.op, Comparison::kGreaterOrEqual);
  EXPECT_EQ(rule.trigger, 85);
  EXPECT_EQ(rule.clear, 80.5);
  EXPECT_EQ(rule.reduce.function, ReduceFunction::kAvg);
  EXPECT_EQ(rule.reduce.window, seconds(30));
  EXPECT_EQ(rule.for_duration, minutes(1));
  EXPECT_EQ(rule.keep_firing_for, minutes(2));
  EXPECT_EQ(rule.severity, AlertSeverity::kCritical);
  EXPECT_EQ(rule.no_data, NoDataPolicy::kKeep);
  EXPECT_EQ(rule.no_data_timeout, minutes(10));
  EXPECT_EQ(rule.labels, (Labels{{"team", "ops"}}));
  EXPECT_EQ(rule.annotations, (Labels{{"summary", "{labels.zone} at {value} C"}}));
  EXPECT_FALSE(rule.enabled);
  EXPECT_EQ(rule.source, "rules.json:3");
}

// Found by the rule-file fuzzer: nlohmann::json reports a number beyond a double with an
// exception of its own, which escaped and would have ended the daemon at a reload.
TEST(RuleParserTest, ANumberTooLargeIsASyntaxErrorOnItsLine) {
  const ConfigError error = ParseError(
      "{\"rules\": [\n  {\"name\": \"x\", \"metric\": \"m\", \"op\": \">\",\n"
      "   \"trigger\": 222222.2E2222022, \"clear\": 1}]}");
  EXPECT_EQ(error.line, 3);
  EXPECT_EQ(error.message, "syntax error: number overflow parsing '222222.2E2222022'");
}

TEST(RuleParserTest, OptionalKeysHaveDefaults) {
  const auto rules = ParseOk(R"({"rules": [{"name": "x", "metric": "m", "op": "<",
                                            "trigger": 1, "clear": 2}]})");
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].reduce.function, ReduceFunction::kLast);
  EXPECT_EQ(rules[0].for_duration, milliseconds(0));
  EXPECT_EQ(rules[0].keep_firing_for, milliseconds(0));
  EXPECT_EQ(rules[0].severity, AlertSeverity::kWarning);
  EXPECT_EQ(rules[0].no_data, NoDataPolicy::kKeep);
  EXPECT_EQ(rules[0].no_data_timeout, minutes(5));
  EXPECT_TRUE(rules[0].enabled);
}

TEST(RuleParserTest, ErrorsNameTheFileTheLineAndTheKey) {
  const ConfigError error = ParseError(R"({
  "rules": [
    {"name": "ok", "metric": "m", "op": ">", "trigger": 1, "clear": 1},
    {"name": "hot",
     "metric": "edgemond_thermal_zone_celsius",
     "op": ">",
     "trigger": 80,
     "clear": 85}
  ]
})");
  EXPECT_EQ(error.file, "rules.json");
  EXPECT_EQ(error.line, 8);
  EXPECT_EQ(error.key, "rules.1.clear");
  EXPECT_EQ(error.ToString(),
            "rules.json:8: rules.1.clear: for op \">\" clear must be <= trigger (it is the level "
            "the value must fall to before the alert resolves)");
}

TEST(RuleParserTest, RejectsWhatIsWrong) {
  const auto key_of = [](std::string_view rule) {
    return ParseError("{\"rules\": [" + std::string(rule) + "]}").key;
  };
  const std::string base = R"("name": "r", "metric": "m", "op": ">", "trigger": 2, "clear": 1)";
  EXPECT_EQ(key_of("{" + base + ", \"treshold\": 3}"), "rules.0.treshold");
  EXPECT_EQ(key_of(R"({"name": "r", "metric": "m", "op": ">", "trigger": 2})"), "rules.0");
  EXPECT_EQ(key_of(R"({"name": "Bad Name", "metric": "m", "op": ">", "trigger": 2, "clear": 1})"),
            "rules.0.name");
  EXPECT_EQ(key_of(R"({"name": "r", "metric": "1m", "op": ">", "trigger": 2, "clear": 1})"),
            "rules.0.metric");
  EXPECT_EQ(key_of(R"({"name": "r", "metric": "m", "op": "=", "trigger": 2, "clear": 1})"),
            "rules.0.op");
  EXPECT_EQ(key_of(R"({"name": "r", "metric": "m", "op": ">", "trigger": "2", "clear": 1})"),
            "rules.0.trigger");
  EXPECT_EQ(key_of(R"({"name": "r", "metric": "m", "op": "<", "trigger": 2, "clear": 1})"),
            "rules.0.clear");
  EXPECT_EQ(key_of("{" + base + ", \"for\": \"5 minutes\"}"), "rules.0.for");
  EXPECT_EQ(key_of("{" + base + ", \"for\": 60}"), "rules.0.for");
  EXPECT_EQ(key_of("{" + base + ", \"severity\": \"info\"}"), "rules.0.severity");
  EXPECT_EQ(key_of("{" + base + ", \"no_data\": \"ignore\"}"), "rules.0.no_data");
  EXPECT_EQ(key_of("{" + base + ", \"no_data\": \"fire\", \"no_data_timeout\": \"1m\"}"),
            "rules.0.no_data_timeout");
  EXPECT_EQ(key_of("{" + base + ", \"no_data_timeout\": \"0s\"}"), "rules.0.no_data_timeout");
  EXPECT_EQ(key_of("{" + base + ", \"match\": {\"zone\": 1}}"), "rules.0.match.zone");
  EXPECT_EQ(key_of("{" + base + ", \"match\": {\"a-b\": \"x\"}}"), "rules.0.match.a-b");
  EXPECT_EQ(key_of("{" + base + ", \"annotations\": {\"summary\": \"{valeu}\"}}"),
            "rules.0.annotations.summary");
  EXPECT_EQ(key_of("{" + base + ", \"reduce\": {\"fn\": \"rate\"}}"), "rules.0.reduce.window");
  EXPECT_EQ(key_of("{" + base + ", \"reduce\": {\"fn\": \"last\", \"window\": \"1m\"}}"),
            "rules.0.reduce.window");
  EXPECT_EQ(key_of("{" + base + ", \"reduce\": {\"fn\": \"median\", \"window\": \"1m\"}}"),
            "rules.0.reduce.fn");
  EXPECT_EQ(key_of("{" + base + ", \"enabled\": \"yes\"}"), "rules.0.enabled");
  EXPECT_EQ(key_of("{" + base + "}, {" + base + "}"), "rules.1.name");
  EXPECT_EQ(ParseError(R"({"rule": []})").key, "rule");
  EXPECT_EQ(ParseError(R"({"rules": {}})").key, "rules");
  EXPECT_EQ(ParseError("[]").line, 1);
  const ConfigError syntax = ParseError("{\n\"rules\": [\n{,}\n]}");
  EXPECT_EQ(syntax.line, 3);
  EXPECT_NE(syntax.message.find("syntax error"), std::string::npos);
}

TEST(RuleParserTest, PrintedRulesParseBackToTheSameRule) {
  const auto rules = ParseOk(R"({"rules": [
    {"name": "a", "metric": "m", "match": {"x": "y"}, "op": ">", "trigger": 2, "clear": 1,
     "reduce": {"fn": "rate", "window": "90s"}, "for": "1m", "severity": "critical",
     "labels": {"team": "ops"}, "annotations": {"summary": "{value}"}},
    {"name": "b", "metric": "m", "op": "<=", "trigger": 0.1, "clear": 0.2, "no_data": "fire"}]})");
  ASSERT_EQ(rules.size(), 2u);
  nlohmann::ordered_json file;
  file["rules"] = nlohmann::ordered_json::array();
  for (const Rule& rule : rules) file["rules"].push_back(RuleToJson(rule));
  const auto again = ParseOk(file.dump(2));
  ASSERT_EQ(again.size(), 2u);
  EXPECT_TRUE(SameDefinition(rules[0], again[0])) << file.dump(2);
  EXPECT_TRUE(SameDefinition(rules[1], again[1]));
  EXPECT_FALSE(SameDefinition(rules[0], again[1]));
}

TEST(RuleParserTest, DirectoriesLoadInNameOrderAndLaterRulesReplaceEarlierOnes) {
  testing::TempDir dir;
  std::ofstream(dir.Join("20-local.json"))
      << R"({"rules": [{"name": "hot", "metric": "m", "op": ">", "trigger": 70, "clear": 65},
                       {"name": "extra", "metric": "m", "op": ">", "trigger": 1, "clear": 1}]})";
  std::ofstream(dir.Join("10-shipped.json"))
      << R"({"rules": [{"name": "hot", "metric": "m", "op": ">", "trigger": 85, "clear": 80},
                       {"name": "cold", "metric": "m", "op": "<", "trigger": 0, "clear": 5}]})";
  std::ofstream(dir.Join("README")) << "not a rules file";
  auto loaded = LoadRuleDirectory(dir.path());
  ASSERT_TRUE(std::holds_alternative<std::vector<Rule>>(loaded))
      << std::get<ConfigError>(loaded).ToString();
  const auto& rules = std::get<std::vector<Rule>>(loaded);
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules[0].name, "hot");
  EXPECT_EQ(rules[0].trigger, 70);
  EXPECT_EQ(rules[0].source, dir.Join("20-local.json") + ":1");
  EXPECT_EQ(rules[1].name, "cold");
  EXPECT_EQ(rules[2].name, "extra");

  std::ofstream(dir.Join("30-broken.json")) << "{\"rules\": [{\"name\": 1}]}";
  auto broken = LoadRuleDirectory(dir.path());
  ASSERT_TRUE(std::holds_alternative<ConfigError>(broken));
  EXPECT_EQ(std::get<ConfigError>(broken).file, dir.Join("30-broken.json"));

  auto missing = LoadRuleDirectory(dir.Join("no-such-dir"));
  ASSERT_TRUE(std::holds_alternative<std::vector<Rule>>(missing));
  EXPECT_TRUE(std::get<std::vector<Rule>>(missing).empty());
}

}  // namespace
}  // namespace edgemond::alerts
