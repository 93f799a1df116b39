#include "daemon/cli.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "daemon/config.h"
#include "daemon/config_schema.h"

namespace edgemond::daemon {

std::variant<CliOptions, CliError> ParseCommandLine(const std::vector<std::string>& args) {
  CliOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::optional<std::string> inline_value;
    if (const std::size_t eq = flag.find('=');
        flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value = flag.substr(eq + 1);
      flag.resize(eq);
    }
    const auto take_value = [&]() -> std::optional<std::string> {
      if (inline_value) return inline_value;
      if (i + 1 < args.size()) return args[++i];
      return std::nullopt;
    };
    const auto action = [&](CliAction a) -> std::optional<CliError> {
      if (inline_value) return CliError{flag + " takes no value"};
      options.action = a;
      return std::nullopt;
    };
    std::optional<CliError> error;
    if (flag == "--help" || flag == "-h") {
      error = action(CliAction::kHelp);
    } else if (flag == "--version") {
      error = action(CliAction::kVersion);
    } else if (flag == "--check-config") {
      error = action(CliAction::kCheckConfig);
    } else if (flag == "--print-config") {
      error = action(CliAction::kPrintConfig);
    } else if (flag == "--print-default-config") {
      error = action(CliAction::kPrintDefaultConfig);
    } else if (flag == "--config") {
      auto value = take_value();
      if (!value) return CliError{"--config needs a file"};
      options.config_path = *value;
    } else {
      const FieldSpec* spec = nullptr;
      for (const FieldSpec& field : ConfigSchema()) {
        if (!field.flag.empty() && field.flag == flag) spec = &field;
      }
      if (spec == nullptr) {
        return CliError{"unknown option \"" + args[i] + "\" (see edgemond --help)"};
      }
      auto value = take_value();
      if (!value) return CliError{flag + " needs a value"};
      options.overrides.emplace_back(std::string(spec->key), *value);
    }
    if (error) return *error;
  }
  return options;
}

namespace {

// The compiled default of a dotted key, as a person types it on the command line.
std::string DefaultText(const nlohmann::ordered_json& defaults, std::string_view key) {
  std::string pointer = "/" + std::string(key);
  std::replace(pointer.begin(), pointer.end(), '.', '/');
  const nlohmann::ordered_json& value = defaults.at(nlohmann::ordered_json::json_pointer(pointer));
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// One option of --help: the flag in a column of its own, its description wrapped beside it.
std::string HelpEntry(const std::string& flag, const std::string& description) {
  constexpr std::size_t kColumn = 25;  // Where descriptions start.
  constexpr std::size_t kWidth = 100;  // The longest line.
  std::string text = "  " + flag;
  text.resize(std::max(text.size() + 1, kColumn), ' ');
  std::size_t line_start = 0;
  std::size_t word_start = 0;
  while (word_start < description.size()) {
    std::size_t word_end = description.find(' ', word_start);
    if (word_end == std::string::npos) word_end = description.size();
    const std::string_view word(description.data() + word_start, word_end - word_start);
    const std::size_t column = text.size() - line_start;
    if (column > kColumn && column + 1 + word.size() > kWidth) {
      text += "\n";
      line_start = text.size();
      text.append(kColumn, ' ');
    } else if (column > kColumn) {
      text += ' ';
    }
    text += word;
    word_start = word_end + 1;
  }
  return text + "\n";
}

}  // namespace

std::string UsageText() {
  std::string text =
      "Usage: edgemond [OPTIONS]\n"
      "\n"
      "Monitoring daemon for edge-AI devices: collects CPU, memory, thermal and hardware sensors,\n"
      "stores them in SQLite and serves an HTTP/JSON API and Prometheus /metrics.\n"
      "\n"
      "Options:\n";
  text += HelpEntry("--config FILE",
                    "the configuration file; its conf.d/*.json and alerts.d/*.json "
                    "are read too (default " +
                        std::string(kDefaultConfigPath) +
                        "; the embedded defaults when that file does not exist)");
  const nlohmann::ordered_json defaults = ConfigToJson(Config{});
  for (const FieldSpec& field : ConfigSchema()) {
    if (field.flag.empty()) continue;
    text +=
        HelpEntry(std::string(field.flag) + " " + std::string(field.flag_value),
                  std::string(field.flag_help) + " (default " + DefaultText(defaults, field.key) +
                      "; key " + std::string(field.key) + ")");
  }
  text += HelpEntry("--check-config", "validate the configuration and exit (status 78 if invalid)");
  text += HelpEntry("--print-config", "print the effective configuration as JSON and exit");
  text += HelpEntry("--print-default-config",
                    "print the commented default configuration file and exit");
  text += HelpEntry("--version", "print the version and exit");
  text += HelpEntry("--help", "print this help and exit");
  text +=
      "\n"
      "Signals: SIGHUP reloads the configuration and the alert rules (alerts.d/ next to the\n"
      "configuration file); SIGTERM and SIGINT write buffered samples and exit.\n"
      "Under systemd: Type=notify (READY, STATUS, RELOADING, STOPPING, WATCHDOG) and socket\n"
      "activation (a socket passed by edgemond.socket replaces --listen).\n"
      "\n"
      "Exit status: 0 on success and on SIGTERM/SIGINT, 64 for a bad command line, 78 for a bad\n"
      "configuration, 1 when the daemon cannot start or fails.\n"
      "Documentation: README.md and docs/ in the source tree.\n";
  return text;
}

}  // namespace edgemond::daemon
