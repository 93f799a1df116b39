// edgemond: command line -> configuration -> Daemon::Create -> Run.

#include <spdlog/spdlog.h>

#include <cstdio>
#include <iostream>

#include "daemon/cli.h"
#include "daemon/config.h"
#include "daemon/daemon.h"
#include "daemon/logging.h"
#include "daemon/systemd_notify.h"

namespace {

constexpr int kExitUsage = 64;   // EX_USAGE
constexpr int kExitConfig = 78;  // EX_CONFIG

int Main(int argc, char** argv) {
  using namespace edgemond::daemon;
  auto cli = ParseCommandLine(std::vector<std::string>(argv + 1, argv + argc));
  if (auto* error = std::get_if<CliError>(&cli)) {
    std::cerr << "edgemond: " << error->message << "\n";
    return kExitUsage;
  }
  const CliOptions& options = std::get<CliOptions>(cli);
  switch (options.action) {
    case CliAction::kHelp:
      std::cout << UsageText();
      return 0;
    case CliAction::kVersion:
      std::cout << "edgemond " << kVersion << "\n";
      return 0;
    case CliAction::kPrintDefaultConfig:
      std::cout << DefaultConfigFileText();
      return 0;
    default:
      break;
  }

  // The same steps at startup and on every SIGHUP: the file, its drop-ins and alert rules, then
  // the command-line flags on top.
  const auto load = [options]() -> std::variant<Config, edgemond::ConfigError> {
    auto loaded = LoadConfigFile(options.config_path.value_or(std::string(kDefaultConfigPath)),
                                 options.config_path.has_value());
    if (auto* error = std::get_if<edgemond::ConfigError>(&loaded)) return *error;
    Config config = std::get<Config>(std::move(loaded));
    for (const auto& [key, value] : options.overrides) {
      if (auto error = SetConfigValue(config, key, value)) return *error;
    }
    return config;
  };
  auto loaded = load();
  if (auto* error = std::get_if<edgemond::ConfigError>(&loaded)) {
    std::cerr << "edgemond: " << error->ToString() << "\n";
    return kExitConfig;
  }
  Config config = std::get<Config>(std::move(loaded));
  if (options.action == CliAction::kCheckConfig) {
    std::cout << "configuration OK (" << config.alerts.rules.size() << " alert rules, "
              << config.models.size() << " models to benchmark)\n";
    return 0;
  }
  if (options.action == CliAction::kPrintConfig) {
    std::cout << ConfigToJson(config).dump(2) << "\n";
    return 0;
  }

  SetupLogging(config.log_level);
  DaemonOptions daemon_options;
  daemon_options.reload = load;
  auto socket = TakeActivationSocket();
  if (!socket.ok()) {
    spdlog::critical("{}", socket.status().message());
    return 1;
  }
  daemon_options.listen_fd = std::move(socket).value();
  const edgemond::SystemClock clock;
  auto daemon = Daemon::Create(std::move(config), clock, std::move(daemon_options));
  if (!daemon.ok()) {
    spdlog::critical("{}", daemon.status().message());
    return 1;
  }
  return (*daemon)->Run();
}

}  // namespace

int main(int argc, char** argv) { return Main(argc, argv); }
