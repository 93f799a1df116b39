#include "daemon/cli.h"

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

std::string UsageText() {
  std::string text =
      "Usage: edgemond [OPTIONS]\n"
      "\n"
      "Monitoring daemon for edge-AI devices: collects CPU, memory, thermal and hardware sensors,\n"
      "stores them in SQLite and serves an HTTP/JSON API and Prometheus /metrics.\n"
      "\n"
      "Options:\n"
      "  --config FILE          configuration file (default " +
      std::string(kDefaultConfigPath) +
      "; embedded defaults\n"
      "                         when that file does not exist)\n";
  for (const FieldSpec& field : ConfigSchema()) {
    if (field.flag.empty()) continue;
    std::string left = "  " + std::string(field.flag) + " VALUE";
    left.resize(25, ' ');
    text += left + "sets " + std::string(field.key) + "\n";
  }
  text +=
      "  --check-config         validate the configuration and exit (status 78 if invalid)\n"
      "  --print-config         print the effective configuration as JSON and exit\n"
      "  --print-default-config print the commented default configuration file and exit\n"
      "  --version              print the version and exit\n"
      "  --help                 print this help and exit\n"
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
