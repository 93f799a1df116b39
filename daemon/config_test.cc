#include "daemon/config.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

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
    "storage": { "raw_retention_days": 30 }
  })",
                            "x.json");
  ASSERT_TRUE(std::holds_alternative<Config>(parsed));
  const Config& config = std::get<Config>(parsed);
  EXPECT_EQ(config.http.listen, "0.0.0.0:9999");
  EXPECT_EQ(config.storage.raw_retention_days, 30u);
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

TEST(ConfigTest, UnknownKeyNamesLineAndSuggests) {
  const ConfigError error = ExpectError("{\n  \"http\": {\n    \"listn\": \"x:1\"\n  }\n}");
  EXPECT_EQ(error.line, 3);
  EXPECT_EQ(error.key, "http.listn");
  EXPECT_EQ(error.ToString(),
            "edgemond.json:3: http.listn: unknown key (did you mean \"http.listen\"?)");
}

TEST(ConfigTest, WrongTypeNamesTheKey) {
  EXPECT_EQ(ExpectError("{\"storage\": {\"raw_retention_days\": \"7\"}}").ToString(),
            "edgemond.json:1: storage.raw_retention_days: expected a whole number, got a string");
  EXPECT_EQ(ExpectError("{\"storage\": {\"raw_retention_days\": -1}}").message,
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
  dir.Write("edgemond.json", "{\"storage\": {\"raw_retention_days\": 3}}");
  dir.Write("conf.d/20-b.json", "{\"http\": {\"listen\": \"127.0.0.1:2\"}}");
  dir.Write("conf.d/10-a.json", "{\"http\": {\"listen\": \"127.0.0.1:1\", \"threads\": 4}}");
  dir.Write("conf.d/README", "ignored: not .json");
  auto loaded = LoadConfigFile(dir.Join("edgemond.json"), true);
  ASSERT_TRUE(std::holds_alternative<Config>(loaded)) << std::get<ConfigError>(loaded).ToString();
  const Config& config = std::get<Config>(loaded);
  EXPECT_EQ(config.storage.raw_retention_days, 3u);
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
  config.storage.raw_retention_days = 9;
  auto parsed = ParseConfig(ConfigToJson(config).dump(), "printed");
  ASSERT_TRUE(std::holds_alternative<Config>(parsed));
  EXPECT_EQ(ConfigToJson(std::get<Config>(parsed)), ConfigToJson(config));
}

}  // namespace
}  // namespace edgemond::daemon
