#include "daemon/cli.h"

#include <gtest/gtest.h>

#include <regex>

namespace edgemond::daemon {
namespace {

TEST(CliTest, ValueFlagsBecomeConfigOverrides) {
  auto parsed =
      ParseCommandLine({"--root", "/tmp/fixture", "--db=/tmp/x.db", "--listen", "127.0.0.1:0",
                        "--interval", "0.5", "--log-level", "debug", "--config", "/etc/e.json"});
  ASSERT_TRUE(std::holds_alternative<CliOptions>(parsed)) << std::get<CliError>(parsed).message;
  const CliOptions& options = std::get<CliOptions>(parsed);
  EXPECT_EQ(options.action, CliAction::kRun);
  EXPECT_EQ(options.config_path, "/etc/e.json");
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"root", "/tmp/fixture"},
      {"storage.path", "/tmp/x.db"},
      {"http.listen", "127.0.0.1:0"},
      {"collection.interval_seconds", "0.5"},
      {"log_level", "debug"}};
  EXPECT_EQ(options.overrides, expected);
}

TEST(CliTest, Actions) {
  EXPECT_EQ(std::get<CliOptions>(ParseCommandLine({"--check-config"})).action,
            CliAction::kCheckConfig);
  EXPECT_EQ(std::get<CliOptions>(ParseCommandLine({"--print-config"})).action,
            CliAction::kPrintConfig);
  EXPECT_EQ(std::get<CliOptions>(ParseCommandLine({"--version"})).action, CliAction::kVersion);
  EXPECT_EQ(std::get<CliOptions>(ParseCommandLine({"-h"})).action, CliAction::kHelp);
}

TEST(CliTest, ErrorsNameTheFlag) {
  EXPECT_EQ(std::get<CliError>(ParseCommandLine({"--bogus"})).message,
            "unknown option \"--bogus\" (see edgemond --help)");
  EXPECT_EQ(std::get<CliError>(ParseCommandLine({"--db"})).message, "--db needs a value");
  EXPECT_EQ(std::get<CliError>(ParseCommandLine({"--version=1"})).message,
            "--version takes no value");
}

TEST(CliTest, UsageListsEveryFlag) {
  const std::string usage = UsageText();
  for (const char* flag : {"--config", "--root", "--db", "--listen", "--interval", "--check-config",
                           "--print-config", "--log-level", "--version", "--help"}) {
    EXPECT_NE(usage.find(flag), std::string::npos) << flag;
  }
}

TEST(CliTest, UsageSaysWhatEachValueFlagTakesAndItsDefault) {
  const std::string usage = UsageText();
  // A description wrapped onto the next lines reads as one line here.
  const std::string flat = std::regex_replace(usage, std::regex("\n {25}"), " ");
  EXPECT_NE(flat.find("--root DIR"), std::string::npos) << flat;
  EXPECT_NE(flat.find("read /proc, /sys and /etc below DIR instead of / (default /; key root)\n"),
            std::string::npos)
      << flat;
  EXPECT_NE(flat.find("--db FILE"), std::string::npos) << flat;
  EXPECT_NE(flat.find("(default /var/lib/edgemond/edgemond.db; key storage.path)"),
            std::string::npos)
      << flat;
  EXPECT_NE(flat.find("--listen HOST:PORT"), std::string::npos) << flat;
  EXPECT_NE(flat.find("(default 127.0.0.1:8867; key http.listen)"), std::string::npos) << flat;
  EXPECT_NE(flat.find("--interval SECONDS"), std::string::npos) << flat;
  EXPECT_NE(flat.find("--log-level LEVEL"), std::string::npos) << flat;
  EXPECT_EQ(flat.find("VALUE"), std::string::npos) << flat;
  // Every line fits a terminal.
  std::size_t start = 0;
  while (start < usage.size()) {
    const std::size_t end = usage.find('\n', start);
    EXPECT_LE(end - start, 100u) << usage.substr(start, end - start);
    start = end + 1;
  }
}

}  // namespace
}  // namespace edgemond::daemon
