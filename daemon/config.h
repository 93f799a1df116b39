// edgemond's configuration: one struct with the compiled defaults, and one table
// (config_schema.cc) that drives parsing, validation, defaults, --print-config and the shipped
// etc/edgemond/edgemond.json.
//
// The file is JSON with comments (// and /* */). Drop-in files in the conf.d/ directory next to
// the main file are merged on top, in name order (objects merge key by key; other values
// replace). A syntax error, an unknown key, a wrong type or an out-of-range value is a ConfigError
// naming the file, the line and the key; nothing is started with a bad configuration.

#ifndef EDGEMOND_DAEMON_CONFIG_H_
#define EDGEMOND_DAEMON_CONFIG_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "alerts/rule.h"
#include "collectors/builtin_collectors.h"
#include "core/config_error.h"
#include "core/result.h"
#include "selfbench/model_spec.h"

namespace edgemond::daemon {

inline constexpr std::string_view kDefaultConfigPath = "/etc/edgemond/edgemond.json";

struct Config {
  // Prefix for every read of device state (/proc, /sys, /etc/nv_tegra_release, ...).
  std::string root = "/";
  std::string log_level = "info";  // trace, debug, info, warn, error, off.

  struct Collection {
    double interval_seconds = 1.0;
  } collection;

  // Which built-in collectors run (each one's key is its name; all run by default) and what the
  // nvidia_gpu collector dlopen()s.
  collectors::CollectorsConfig collectors;

  struct Storage {
    std::string path = "/var/lib/edgemond/edgemond.db";
    std::uint32_t flush_interval_seconds = 60;
    std::uint32_t retention_days = 7;  // Raw samples; the rollup tiers have their own.
    std::uint32_t minute_rollup_retention_days = 90;
    std::uint32_t hour_rollup_retention_days = 730;
    std::uint32_t max_size_megabytes = 256;  // MiB; 0: no cap.
    std::uint32_t ballast_megabytes = 4;     // MiB; 0: no ballast.
    bool check_on_start = true;              // PRAGMA quick_check when the database opens.
  } storage;

  struct Http {
    std::string listen = "127.0.0.1:8867";
    std::string bearer_token;  // Empty: mutating endpoints are open (they bind to loopback).
    std::vector<std::string> cors_allow_origins;
    std::uint32_t max_connections = 256;
    std::uint32_t max_connections_per_ip = 64;
    std::uint32_t connection_timeout_seconds = 10;
    std::uint32_t read_timeout_seconds = 5;
    std::uint32_t threads = 2;
    std::uint32_t max_query_points = 11000;
    std::uint32_t max_query_series = 500;
  } http;

  struct Alerts {
    std::string sink = "auto";      // auto, journal, stderr.
    double power_budget_watts = 0;  // 0: no budget.
    std::uint32_t history_retention_days = 90;
    // "alerts.rules" of the file and its conf.d drop-ins, then <dir>/alerts.d/*.json, merged by
    // rule name (a later rule of the same name replaces an earlier one).
    std::vector<alerts::Rule> rules;
  } alerts;

  // Self-benchmarks of the deployed models (docs/selfbench.md).
  struct Selfbench {
    // edgemond-bench; "": the one next to the edgemond executable.
    std::string bench_path;
    // Power and energy sensors are read this often while a benchmark runs.
    double power_sample_hz = 20;
    // The idle power is measured for this long just before each run.
    double idle_power_seconds = 2;
    // Scheduled runs wait this long after the daemon starts.
    std::uint32_t startup_delay_seconds = 120;
    // "Idle": over the last idle_window_seconds, CPU and GPU utilization averaged at most these.
    std::uint32_t idle_window_seconds = 60;
    double idle_cpu_max_ratio = 0.2;
    double idle_gpu_max_ratio = 0.2;
    // The baseline: the median of this many recent good runs per power mode; regressions are
    // judged once at least baseline_min_runs exist.
    std::uint32_t baseline_runs = 10;
    std::uint32_t baseline_min_runs = 3;
    std::uint32_t retention_days = 90;
  } selfbench;

  // "models" of the file and its conf.d drop-ins, merged by name.
  std::vector<selfbench::ModelSpec> models;
};

// Reads `path` and its conf.d/ drop-ins over the compiled defaults, then the alert rules in the
// alerts.d/ directory next to `path`.
// `path_must_exist`: false for the default path (a missing /etc/edgemond/edgemond.json means
// "embedded defaults"), true when the user named the file.
std::variant<Config, ConfigError> LoadConfigFile(const std::string& path, bool path_must_exist);

// Parses JSON text (comments allowed) over `base`; `file` names the source in errors.
std::variant<Config, ConfigError> ParseConfig(std::string_view text, const std::string& file,
                                              Config base = Config());

// Sets one key from a command-line flag ("storage.path", "/tmp/x.db"); the text is converted to
// the key's type and validated like a file value.
std::optional<ConfigError> SetConfigValue(Config& config, std::string_view key,
                                          std::string_view text);

// Checks cross-field and value constraints; the error names the key.
std::optional<ConfigError> ValidateConfig(const Config& config);

// A key whose new value waits for a restart, as a reload found it; values as they are printed
// ("7", "/var/lib/edgemond/edgemond.db").
struct RestartPending {
  std::string key;
  std::string running;
  std::string wanted;
};

// For a reload: puts back into `next` the running value of every key that needs a restart
// (kNeedsRestart in the schema) and returns those whose value had changed, in schema order.
std::vector<RestartPending> KeepValuesThatNeedARestart(const Config& running, Config& next);

// The effective configuration as JSON (every key, in schema order).
nlohmann::ordered_json ConfigToJson(const Config& config);

// The shipped etc/edgemond/edgemond.json: every key with its default and a comment.
std::string DefaultConfigFileText();

}  // namespace edgemond::daemon

#endif  // EDGEMOND_DAEMON_CONFIG_H_
