// Command-line parsing. Every value flag is also a configuration key (see config_schema.cc);
// flags override the file.

#ifndef EDGEMOND_DAEMON_CLI_H_
#define EDGEMOND_DAEMON_CLI_H_

#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace edgemond::daemon {

enum class CliAction { kRun, kCheckConfig, kPrintConfig, kPrintDefaultConfig, kVersion, kHelp };

struct CliOptions {
  CliAction action = CliAction::kRun;
  std::optional<std::string> config_path;  // --config; unset means the default path.
  // (config key, text) pairs from value flags, in command-line order.
  std::vector<std::pair<std::string, std::string>> overrides;
};

struct CliError {
  std::string message;
};

std::variant<CliOptions, CliError> ParseCommandLine(const std::vector<std::string>& args);

std::string UsageText();

}  // namespace edgemond::daemon

#endif  // EDGEMOND_DAEMON_CLI_H_
