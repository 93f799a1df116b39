#include "daemon/config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "alerts/rule_parser.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::daemon {
namespace {

ConfigError ExpectError(std::string_view text) {
  auto parsed = ParseConfig(text, "edgemond.json");
  EXPECT_TRUE(std::holds_alternative<ConfigError>(parsed)) << text;
  return std::holds_alternative<ConfigError>(parsed) ? std::get<ConfigError>(parsed)
                                                     : ConfigError{};
}

TEST(ConfigTest, ShippedFileEqualsTheCompiledDefaults) {
  const std::string path = testing::SourceDir() + "/etc/edgemond/edgemond.json";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream text;
  text << in.rdbuf();
  // Byte for byte: regenerate with `edgemond --print-default-config > etc/edgemond/edgemond.json`.
  EXPECT_EQ(text.str(), DefaultConfigFileText());
  auto parsed = ParseConfig(text.str(), path);
  ASSERT_TRUE(std::holds_alternative<Config>(parsed)) << std::get<ConfigError>(parsed).ToString();
  EXPECT_EQ(ConfigToJson(std::get<Config>(parsed)), ConfigToJson(Config()));
}

TEST(ConfigTest, CommentsAndPartialFilesWork) {
  auto parsed = ParseConfig(R"({
    // Only what differs from the defaults.
    "http": { "listen": "0.0.0.0:9999" /* LAN */ },
    "storage": { "retention_days": 30 }
  })",
                            "x.json");
  ASSERT_TRUE(std::holds_alternative<Config>(parsed));
  const Config& config = std::get<Config>(parsed);
  EXPECT_EQ(config.http.listen, "0.0.0.0:9999");
  EXPECT_EQ(config.storage.retention_days, 30u);
  EXPECT_EQ(config.storage.flush_interval_seconds, 60u);
  EXPECT_EQ(config.storage.max_size_megabytes, 256u);
}

TEST(ConfigTest, SyntaxErrorNamesFileAndLine) {
  const ConfigError error =
      ExpectError("{\n  \"root\": \"/\",\n  \"http\": {\n    \"listen\": }\n}");
  EXPECT_EQ(error.file, "edgemond.json");
  EXPECT_EQ(error.line, 4);
  EXPECT_NE(error.message.find("syntax error"), std::string::npos);
  EXPECT_EQ(error.ToString().rfind("edgemond.json:4: syntax error", 0), 0u) << error.ToString();
}

// A number beyond a double is a syntax error on its line, not an exception out of the parser
// (found by the rule-file fuzzer, whose parser reads JSON the same way).
TEST(ConfigTest, ANumberTooLargeIsASyntaxErrorOnItsLine) {
  const ConfigError error =
      ExpectError("{\n  \"collection\": {\n    \"interval_seconds\": 1e999\n  }\n}");
  EXPECT_EQ(error.line, 3);
  EXPECT_EQ(error.ToString(), "edgemond.json:3: syntax error: number overflow parsing '1e999'");
}

TEST(ConfigTest, UnknownKeyNamesLineAndSuggests) {
  const ConfigError error = ExpectError("{\n  \"http\": {\n    \"listn\": \"x:1\"\n  }\n}");
  EXPECT_EQ(error.line, 3);
  EXPECT_EQ(error.key, "http.listn");
  EXPECT_EQ(error.ToString(),
            "edgemond.json:3: http.listn: unknown key (did you mean \"http.listen\"?)");
}

TEST(ConfigTest, WrongTypeNamesTheKey) {
  EXPECT_EQ(ExpectError("{\"storage\": {\"retention_days\": \"7\"}}").ToString(),
            "edgemond.json:1: storage.retention_days: expected a whole number, got a string");
  EXPECT_EQ(ExpectError("{\"storage\": {\"retention_days\": -1}}").message,
            "expected a whole number, got a negative number");
  EXPECT_EQ(ExpectError("{\"storage\": 5}").message,
            "expected an object (a section), got a number");
  EXPECT_EQ(ExpectError("{\"http\": {\"cors_allow_origins\": [1]}}").message,
            "expected a list of strings, found a number in it");
  EXPECT_EQ(ExpectError("[1]").message, "the configuration must be a JSON object ({ ... })");
}

TEST(ConfigTest, ValuesAreValidated) {
  EXPECT_EQ(ExpectError("{\"collection\": {\"interval_seconds\": 0}}").message,
            "must be between 0.05 and 3600");
  EXPECT_EQ(ExpectError("{\"log_level\": \"loud\"}").message,
            "must be one of trace, debug, info, warn, error, off");
  EXPECT_NE(ExpectError("{\"http\": {\"listen\": \"localhost\"}}").message.find("missing port"),
            std::string::npos);
  EXPECT_EQ(ExpectError("{\"root\": \"relative\"}").message, "must be an absolute path");
}

TEST(ConfigTest, DropInsApplyInNameOrderOnTopOfTheFile) {
  testing::FakeSysfs dir;
  dir.Write("edgemond.json", "{\"storage\": {\"retention_days\": 3}}");
  dir.Write("conf.d/20-b.json", "{\"http\": {\"listen\": \"127.0.0.1:2\"}}");
  dir.Write("conf.d/10-a.json", "{\"http\": {\"listen\": \"127.0.0.1:1\", \"threads\": 4}}");
  dir.Write("conf.d/README", "ignored: not .json");
  auto loaded = LoadConfigFile(dir.Join("edgemond.json"), true);
  ASSERT_TRUE(std::holds_alternative<Config>(loaded)) << std::get<ConfigError>(loaded).ToString();
  const Config& config = std::get<Config>(loaded);
  EXPECT_EQ(config.storage.retention_days, 3u);
  EXPECT_EQ(config.http.listen, "127.0.0.1:2");
  EXPECT_EQ(config.http.threads, 4u);
}

TEST(ConfigTest, ErrorsInDropInsNameTheDropIn) {
  testing::FakeSysfs dir;
  dir.Write("conf.d/10-a.json", "{\n\"http\": {\"thread\": 4}}");
  auto loaded = LoadConfigFile(dir.Join("edgemond.json"), false);
  ASSERT_TRUE(std::holds_alternative<ConfigError>(loaded));
  EXPECT_EQ(std::get<ConfigError>(loaded).ToString(),
            dir.Join("conf.d/10-a.json") +
                ":2: http.thread: unknown key (did you mean \"http.threads\"?)");
}

TEST(ConfigTest, MissingFileIsFineOnlyWhenNotNamed) {
  EXPECT_TRUE(std::holds_alternative<Config>(LoadConfigFile("/nonexistent/edgemond.json", false)));
  auto named = LoadConfigFile("/nonexistent/edgemond.json", true);
  ASSERT_TRUE(std::holds_alternative<ConfigError>(named));
  EXPECT_EQ(std::get<ConfigError>(named).ToString(), "/nonexistent/edgemond.json: no such file");
}

TEST(ConfigTest, FlagsAreConvertedAndValidatedLikeFileValues) {
  Config config;
  EXPECT_FALSE(SetConfigValue(config, "collection.interval_seconds", "0.25"));
  EXPECT_DOUBLE_EQ(config.collection.interval_seconds, 0.25);
  EXPECT_FALSE(SetConfigValue(config, "storage.path", "/tmp/x.db"));
  EXPECT_EQ(config.storage.path, "/tmp/x.db");
  auto error = SetConfigValue(config, "collection.interval_seconds", "fast");
  ASSERT_TRUE(error);
  EXPECT_EQ(error->ToString(), "--interval: expected a number");
  error = SetConfigValue(config, "http.listen", "nope");
  ASSERT_TRUE(error);
  EXPECT_EQ(error->key, "--listen");
  EXPECT_DOUBLE_EQ(config.collection.interval_seconds, 0.25);  // Unchanged by the failure.
}

TEST(ConfigTest, PrintedConfigRoundTrips) {
  Config config;
  config.http.cors_allow_origins = {"http://a", "http://b"};
  config.storage.retention_days = 9;
  auto parsed = ParseConfig(ConfigToJson(config).dump(), "printed");
  ASSERT_TRUE(std::holds_alternative<Config>(parsed));
  EXPECT_EQ(ConfigToJson(std::get<Config>(parsed)), ConfigToJson(config));
}

std::string ReadSource(const std::string& relative) {
  std::ifstream in(testing::SourceDir() + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ConfigTest, AlertRulesComeFromTheFileItsDropInsAndAlertsD) {
  testing::TempDir dir;
  std::ofstream(dir.Join("edgemond.json")) << R"({"alerts": {"rules": [
      {"name": "a", "metric": "m", "op": ">", "trigger": 2, "clear": 1},
      {"name": "b", "metric": "m", "op": ">", "trigger": 2, "clear": 1}]}})";
  std::filesystem::create_directories(dir.Join("conf.d"));
  std::ofstream(dir.Join("conf.d/10.json")) << R"({"alerts": {"rules": [
      {"name": "b", "metric": "m", "op": ">", "trigger": 20, "clear": 10}]}})";
  std::filesystem::create_directories(dir.Join("alerts.d"));
  std::ofstream(dir.Join("alerts.d/10.json")) << R"({"rules": [
      {"name": "c", "metric": "m", "op": "<", "trigger": 1, "clear": 2},
      {"name": "a", "metric": "m", "op": ">", "trigger": 5, "clear": 4, "enabled": false}]})";
  auto loaded = LoadConfigFile(dir.Join("edgemond.json"), true);
  ASSERT_TRUE(std::holds_alternative<Config>(loaded)) << std::get<ConfigError>(loaded).ToString();
  const auto& rules = std::get<Config>(loaded).alerts.rules;
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules[0].name, "a");
  EXPECT_FALSE(rules[0].enabled);
  EXPECT_EQ(rules[1].name, "b");
  EXPECT_EQ(rules[1].trigger, 20);
  EXPECT_EQ(rules[2].name, "c");
  // The effective configuration prints every rule with every key.
  const auto printed = ConfigToJson(std::get<Config>(loaded));
  EXPECT_EQ(printed["alerts"]["rules"][1]["trigger"], 20);
  EXPECT_EQ(printed["alerts"]["rules"][2]["no_data"], "keep");

  std::ofstream(dir.Join("alerts.d/20.json")) << "{\"rules\": [\n  {\"name\": \"d\"}]}";
  auto broken = LoadConfigFile(dir.Join("edgemond.json"), true);
  ASSERT_TRUE(std::holds_alternative<ConfigError>(broken));
  EXPECT_EQ(std::get<ConfigError>(broken).file, dir.Join("alerts.d/20.json"));
  EXPECT_EQ(std::get<ConfigError>(broken).line, 2);

  const ConfigError in_file = ExpectError(R"({"alerts": {"rules": [
      {"name": "x", "metric": "m", "op": ">", "trigger": 2, "clear": 3}]}})");
  EXPECT_EQ(in_file.key, "alerts.rules.0.clear");
  EXPECT_EQ(in_file.line, 2);
}

TEST(ConfigTest, ARuleMayNotTakeTheNameOfABuiltInModelAlert) {
  testing::TempDir dir;
  std::ofstream(dir.Join("edgemond.json")) << "{}";
  std::filesystem::create_directories(dir.Join("alerts.d"));
  std::ofstream(dir.Join("alerts.d/10.json")) << R"({"rules": [
      {"name": "a", "metric": "m", "op": ">", "trigger": 2, "clear": 1},
      {"name": "model_latency_regression", "metric": "m", "op": ">", "trigger": 2,
       "clear": 1}]})";
  auto loaded = LoadConfigFile(dir.Join("edgemond.json"), true);
  ASSERT_TRUE(std::holds_alternative<ConfigError>(loaded));
  const ConfigError& error = std::get<ConfigError>(loaded);
  EXPECT_EQ(error.file, dir.Join("alerts.d/10.json"));
  EXPECT_EQ(error.line, 3);
  EXPECT_EQ(error.key, "name");
  EXPECT_NE(error.message.find("built-in self-benchmark alert rule"), std::string::npos)
      << error.message;
}

TEST(ConfigTest, ShippedAlertRulesLoad) {
  auto loaded = LoadConfigFile(testing::SourceDir() + "/etc/edgemond/edgemond.json", true);
  ASSERT_TRUE(std::holds_alternative<Config>(loaded)) << std::get<ConfigError>(loaded).ToString();
  std::vector<std::string> names;
  for (const alerts::Rule& rule : std::get<Config>(loaded).alerts.rules) {
    names.push_back(rule.name);
    EXPECT_TRUE(rule.enabled) << rule.name;
    EXPECT_FALSE(rule.annotations.empty()) << rule.name << " has no summary";
  }
  EXPECT_EQ(names, (std::vector<std::string>{
                       "thermal_near_passive_trip", "thermal_near_critical_trip",
                       "throttling_sustained", "memory_available_low", "memory_available_critical",
                       "swap_thrashing", "power_input_over_budget", "collector_failing"}));
}

// docs/alerts.md promises that every example can be pasted as it is: each ```json block is a
// rules file ({"rules": [...]}) or a whole configuration file.
TEST(ConfigTest, EveryExampleInTheAlertsDocParses) {
  const std::string doc = ReadSource("docs/alerts.md");
  int examples = 0;
  for (std::size_t at = doc.find("```json\n"); at != std::string::npos;
       at = doc.find("```json\n", at)) {
    at += 8;
    const std::size_t end = doc.find("```", at);
    ASSERT_NE(end, std::string::npos);
    const std::string block = doc.substr(at, end - at);
    ++examples;
    const auto json = nlohmann::json::parse(block, nullptr, /*allow_exceptions=*/false,
                                            /*ignore_comments=*/true);
    ASSERT_FALSE(json.is_discarded()) << block;
    if (json.contains("rules")) {
      auto parsed = alerts::ParseRuleFile(block, "docs/alerts.md example");
      EXPECT_TRUE(std::holds_alternative<std::vector<alerts::Rule>>(parsed))
          << std::get<ConfigError>(parsed).ToString() << "\n"
          << block;
    } else {
      auto parsed = ParseConfig(block, "docs/alerts.md example");
      EXPECT_TRUE(std::holds_alternative<Config>(parsed))
          << std::get<ConfigError>(parsed).ToString() << "\n"
          << block;
    }
    at = end + 3;
  }
  EXPECT_GE(examples, 5);
}

}  // namespace
}  // namespace edgemond::daemon

namespace edgemond::daemon {
namespace {

TEST(ConfigTest, ModelsComeFromTheFileAndDropInsMergedByName) {
  testing::FakeSysfs dir;
  dir.Write("edgemond.json", R"({"models": [{"name": "a", "path": "/m/a.onnx"},
                                           {"name": "b", "path": "/m/b.onnx"}],
                                "selfbench": {"power_sample_hz": 10}})");
  dir.Write("conf.d/60-models.json",
            R"({"models": [{"name": "b", "path": "/m/b2.onnx", "threads": 2},
                           {"name": "c", "path": "/m/c.onnx"}]})");
  auto loaded = LoadConfigFile(dir.Join("edgemond.json"), true);
  ASSERT_TRUE(std::holds_alternative<Config>(loaded)) << std::get<ConfigError>(loaded).ToString();
  const Config& config = std::get<Config>(loaded);
  ASSERT_EQ(config.models.size(), 3u);
  EXPECT_EQ(config.models[1].path, "/m/b2.onnx");
  EXPECT_EQ(config.models[1].threads, 2u);
  EXPECT_EQ(config.models[1].source, dir.Join("conf.d/60-models.json") + ":1");
  EXPECT_EQ(config.selfbench.power_sample_hz, 10);
  // --print-config shows every key of every model.
  const auto json = ConfigToJson(config);
  EXPECT_EQ(json["models"][2]["name"], "c");
  EXPECT_EQ(json["models"][2]["limits"]["deadline_seconds"], 300);
  EXPECT_EQ(json["selfbench"]["baseline_runs"], 10);
}

TEST(ConfigTest, AModelErrorNamesTheDropInTheLineAndTheKey) {
  testing::FakeSysfs dir;
  dir.Write("conf.d/60-models.json",
            "{\"models\": [\n  {\"name\": \"a\", \"path\": \"/a\",\n"
            "   \"budget\": {\"p99_latency_ms\": -1}}]}");
  auto loaded = LoadConfigFile(dir.Join("edgemond.json"), false);
  ASSERT_TRUE(std::holds_alternative<ConfigError>(loaded));
  EXPECT_EQ(std::get<ConfigError>(loaded).ToString(),
            dir.Join("conf.d/60-models.json") +
                ":3: models.0.budget.p99_latency_ms: must be between 0 and 1e+09");
  EXPECT_EQ(ExpectError(R"({"selfbench": {"bench_path": "edgemond-bench"}})").key,
            "selfbench.bench_path");
  EXPECT_EQ(ExpectError(R"({"selfbench": {"baseline_min_runs": 20}})").key,
            "selfbench.baseline_min_runs");
  Config config;
  auto flag = SetConfigValue(config, "models", "x");
  ASSERT_TRUE(flag);
  EXPECT_EQ(flag->message, "models cannot be set from the command line");
}

TEST(ConfigTest, TheShippedModelsExampleLoads) {
  // etc/edgemond/conf.d/60-models.json.example, installed as it would be once copied to .json.
  testing::FakeSysfs dir;
  std::ifstream in(testing::SourceDir() + "/etc/edgemond/conf.d/60-models.json.example");
  std::stringstream text;
  text << in.rdbuf();
  ASSERT_FALSE(text.str().empty());
  dir.Write("conf.d/60-models.json", text.str());
  auto loaded = LoadConfigFile(dir.Join("edgemond.json"), false);
  ASSERT_TRUE(std::holds_alternative<Config>(loaded)) << std::get<ConfigError>(loaded).ToString();
  const Config& config = std::get<Config>(loaded);
  ASSERT_EQ(config.models.size(), 2u);
  EXPECT_EQ(config.models[0].name, "detector");
  EXPECT_EQ(config.models[0].budget_p99_latency_ms, 40);
  EXPECT_EQ(config.models[0].input_shapes.at("images"),
            (std::vector<std::int64_t>{1, 3, 320, 320}));
  EXPECT_EQ(config.models[1].name, "classifier");
  // Apart from what its comments call out, the example spells out the defaults.
  selfbench::ModelSpec defaults = config.models[0];
  defaults.input_shapes.clear();
  defaults.golden_data.clear();
  defaults.budget_p99_latency_ms = 0;
  defaults.budget_energy_per_inference_millijoules = 0;
  selfbench::ModelSpec plain = config.models[1];
  plain.name = defaults.name;
  plain.path = defaults.path;
  EXPECT_EQ(selfbench::ModelSpecToJson(defaults).dump(), selfbench::ModelSpecToJson(plain).dump());
  EXPECT_EQ(ConfigToJson(config)["selfbench"], ConfigToJson(Config())["selfbench"]);
}

TEST(ConfigTest, AReloadKeepsTheRunningValueOfKeysThatNeedARestart) {
  const Config running;
  Config next = running;
  next.root = "/tmp/board";
  next.storage.retention_days = 30;
  next.log_level = "debug";
  next.collectors.collectors["cpu"].enabled = false;
  const std::vector<RestartPending> kept = KeepValuesThatNeedARestart(running, next);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].key, "root");
  EXPECT_EQ(kept[0].running, "/");
  EXPECT_EQ(kept[0].wanted, "/tmp/board");
  EXPECT_EQ(kept[1].key, "storage.retention_days");
  EXPECT_EQ(kept[1].running, "7");
  EXPECT_EQ(kept[1].wanted, "30");
  // Those two keep their running values; what applies live is left as the reload wants it.
  EXPECT_EQ(next.root, "/");
  EXPECT_EQ(next.storage.retention_days, 7u);
  EXPECT_EQ(next.log_level, "debug");
  EXPECT_FALSE(next.collectors.OptionsFor("cpu").enabled);
  EXPECT_TRUE(KeepValuesThatNeedARestart(running, next).empty());
}

TEST(ConfigTest, EveryBuiltinCollectorHasASwitchWithItsHelp) {
  const auto defaults = ConfigToJson(Config());
  const std::string file = DefaultConfigFileText();
  ASSERT_FALSE(collectors::BuiltinCollectors().empty());
  for (const collectors::CollectorInfo& info : collectors::BuiltinCollectors()) {
    const std::string name(info.name);
    SCOPED_TRACE(name);
    EXPECT_EQ(defaults["collectors"][name], true);
    EXPECT_NE(file.find("\"" + name + "\": true"), std::string::npos);
    // The help's first words are the comment above the switch in edgemond.json.
    EXPECT_NE(file.find(std::string(info.help.substr(0, 20))), std::string::npos);
    Config config;
    EXPECT_FALSE(SetConfigValue(config, "collectors." + name, "false"));
    EXPECT_FALSE(config.collectors.OptionsFor(name).enabled);
  }
  auto parsed = ParseConfig(R"({"collectors": {"gpu": true}})", "edgemond.json");
  ASSERT_TRUE(std::holds_alternative<ConfigError>(parsed));
  EXPECT_EQ(std::get<ConfigError>(parsed).key, "collectors.gpu");
}

}  // namespace
}  // namespace edgemond::daemon
