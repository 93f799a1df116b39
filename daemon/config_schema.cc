#include "daemon/config_schema.h"

#include <array>
#include <string>
#include <vector>

#include "collectors/builtin_collectors.h"
#include "http/server.h"

namespace edgemond::daemon {
namespace {

std::string CheckLogLevel(const Config& config) {
  for (const char* level : {"trace", "debug", "info", "warn", "error", "off"}) {
    if (config.log_level == level) return "";
  }
  return "must be one of trace, debug, info, warn, error, off";
}

std::string CheckRoot(const Config& config) {
  return config.root.empty() || config.root.front() != '/' ? "must be an absolute path" : "";
}

std::string CheckStoragePath(const Config& config) {
  return config.storage.path.empty() ? "must not be empty" : "";
}

std::string CheckMaxSize(const Config& config) {
  const std::uint32_t mib = config.storage.max_size_megabytes;
  return mib != 0 && mib < 4 ? "must be 0 (no limit) or at least 4" : "";
}

std::string CheckAlertSink(const Config& config) {
  const std::string& sink = config.alerts.sink;
  return sink == "auto" || sink == "journal" || sink == "stderr"
             ? ""
             : "must be \"auto\", \"journal\" or \"stderr\"";
}

std::string CheckBenchPath(const Config& config) {
  const std::string& path = config.selfbench.bench_path;
  return path.empty() || path.front() == '/'
             ? ""
             : "must be an absolute path, or \"\" for the edgemond-bench next to edgemond";
}

std::string CheckBaselineRuns(const Config& config) {
  return config.selfbench.baseline_min_runs <= config.selfbench.baseline_runs
             ? ""
             : "must be at most selfbench.baseline_runs";
}

std::string CheckListen(const Config& config) {
  auto address = http::ParseListenAddress(config.http.listen);
  return address.ok() ? "" : std::string(address.status().message());
}

// clang-format off
constexpr FieldSpec kFieldsBeforeCollectors[] = {
    {"root", FieldKind::kString, kNeedsRestart, [](Config& c) -> void* { return &c.root; },
     "Prefix for every read of device state (/proc, /sys, /etc/nv_tegra_release). \"/\" reads "
     "this machine; a directory laid out like a device reads that tree instead.",
     0, 0, &CheckRoot, "--root", "DIR",
     "read /proc, /sys and /etc below DIR instead of /"},
    {"log_level", FieldKind::kString, kLive, [](Config& c) -> void* { return &c.log_level; },
     "Log verbosity: trace, debug, info, warn, error or off.", 0, 0, &CheckLogLevel,
     "--log-level", "LEVEL", "log verbosity: trace, debug, info, warn, error or off"},
    {"collection.interval_seconds", FieldKind::kDouble, kLive,
     [](Config& c) -> void* { return &c.collection.interval_seconds; },
     "Seconds between two collections, on the monotonic clock (fractions allowed).", 0.05, 3600,
     nullptr, "--interval", "SECONDS", "seconds between two collections, fractions allowed"},
};

// After the collectors' switches, which come from the collectors' own table.
constexpr FieldSpec kFieldsAfterCollectors[] = {
    {"collectors.nvml_library", FieldKind::kString, kLive,
     [](Config& c) -> void* { return &c.collectors.nvml_library; },
     "The NVML library the nvidia_gpu collector loads: a library name searched the usual way, or "
     "a path."},
    {"collectors.timeout_seconds", FieldKind::kDouble, kLive,
     [](Config& c) -> void* { return &c.collectors.timeout_seconds; },
     "Seconds one collector's collection may take. One that takes longer (a sensor read that "
     "hangs) is reported as timed out, and skipped until that read returns; the other collectors "
     "go on.",
     0.01, 60},
    {"storage.path", FieldKind::kString, kNeedsRestart,
     [](Config& c) -> void* { return &c.storage.path; },
     "The SQLite database file. Its directory must exist and be writable.", 0, 0,
     &CheckStoragePath, "--db", "FILE",
     "the SQLite database; its directory must exist and be writable"},
    {"storage.flush_interval_seconds", FieldKind::kUint32, kLive,
     [](Config& c) -> void* { return &c.storage.flush_interval_seconds; },
     "Samples are kept in memory and written, compressed, in one block this often: what a "
     "crash (kill -9, OOM) can lose, traded against flash wear (10 s writes about four times as "
     "many bytes per sample as 60 s; docs/storage.md). SIGTERM flushes first.", 1, 3600},
    {"storage.retention_days", FieldKind::kUint32, kNeedsRestart,
     [](Config& c) -> void* { return &c.storage.retention_days; },
     "Samples at full resolution (the raw tier) are deleted after this many days; their 1-minute "
     "and 1-hour rollups stay for the retentions below.", 1, 36500},
    {"storage.minute_rollup_retention_days", FieldKind::kUint32, kNeedsRestart,
     [](Config& c) -> void* { return &c.storage.minute_rollup_retention_days; },
     "1-minute rollups (min, max, sum, count, last) are deleted after this many days.", 1, 36500},
    {"storage.hour_rollup_retention_days", FieldKind::kUint32, kNeedsRestart,
     [](Config& c) -> void* { return &c.storage.hour_rollup_retention_days; },
     "1-hour rollups are deleted after this many days.", 1, 36500},
    {"storage.max_size_megabytes", FieldKind::kUint32, kNeedsRestart,
     [](Config& c) -> void* { return &c.storage.max_size_megabytes; },
     "The database file is kept below this many MiB by deleting the oldest data first, oldest "
     "relative to each tier's retention. 0: no limit.", 0, 1048576, &CheckMaxSize},
    {"storage.ballast_megabytes", FieldKind::kUint32, kNeedsRestart,
     [](Config& c) -> void* { return &c.storage.ballast_megabytes; },
     "MiB reserved beside the database and given up when the file system fills, so that edgemond "
     "can still clean up. 0: none.", 0, 1024},
    {"storage.check_on_start", FieldKind::kBool, kNeedsRestart,
     [](Config& c) -> void* { return &c.storage.check_on_start; },
     "Check the whole database (PRAGMA quick_check) when edgemond starts. A damaged file is moved "
     "aside to <path>.damaged-<UTC time> and a new one is made; without the check, damage is "
     "found only where a query or a write meets it."},
    {"http.listen", FieldKind::kString, kLive, [](Config& c) -> void* { return &c.http.listen; },
     "Address and port of the HTTP API and /metrics. Loopback by default; use 0.0.0.0:8867 to "
     "serve the network (and consider http.bearer_token).", 0, 0, &CheckListen, "--listen",
     "HOST:PORT", "where the HTTP API and /metrics listen ([v6]:PORT for IPv6; 0.0.0.0:8867 serves the network)"},
    {"http.bearer_token", FieldKind::kString, kLive,
     [](Config& c) -> void* { return &c.http.bearer_token; },
     "When set, every endpoint that changes state requires \"Authorization: Bearer <token>\"."},
    {"http.cors_allow_origins", FieldKind::kStringList, kLive,
     [](Config& c) -> void* { return &c.http.cors_allow_origins; },
     "Browser origins allowed to read the API (e.g. \"http://grafana.local:3000\"). Empty: no "
     "CORS headers."},
    {"http.max_connections", FieldKind::kUint32, kLive,
     [](Config& c) -> void* { return &c.http.max_connections; },
     "Connections open at once. One more shuts down the connection that has waited longest for "
     "its request (an idle or slow client); when every connection is being answered, the new one "
     "is closed.", 1, 10000},
    {"http.max_connections_per_ip", FieldKind::kUint32, kLive,
     [](Config& c) -> void* { return &c.http.max_connections_per_ip; },
     "Connections served at once from one client address.", 1, 10000},
    {"http.connection_timeout_seconds", FieldKind::kUint32, kLive,
     [](Config& c) -> void* { return &c.http.connection_timeout_seconds; },
     "An idle connection is closed after this many seconds.", 1, 3600},
    {"http.read_timeout_seconds", FieldKind::kUint32, kLive,
     [](Config& c) -> void* { return &c.http.read_timeout_seconds; },
     "A request (line, headers and body) must arrive within this many seconds of the connection "
     "opening or of the previous response, or the connection is closed: a client that sends a "
     "byte at a time cannot hold a connection.", 1, 3600},
    {"http.threads", FieldKind::kUint32, kLive, [](Config& c) -> void* { return &c.http.threads; },
     "Threads serving HTTP requests.", 1, 64},
    {"http.max_query_points", FieldKind::kUint32, kLive,
     [](Config& c) -> void* { return &c.http.max_query_points; },
     "Most points one series may return from /api/v1/query (Prometheus uses 11000).", 10,
     1000000},
    {"http.max_query_series", FieldKind::kUint32, kLive,
     [](Config& c) -> void* { return &c.http.max_query_series; },
     "Most series one /api/v1/query may return.", 1, 100000},
    {"alerts.sink", FieldKind::kString, kLive, [](Config& c) -> void* { return &c.alerts.sink; },
     "Where alert transitions are written: \"journal\" (structured entries, sd_journal_send), "
     "\"stderr\" (one readable line each) or \"auto\" (the journal when it is there and "
     "stderr is not a terminal).", 0, 0, &CheckAlertSink},
    {"alerts.power_budget_watts", FieldKind::kDouble, kLive,
     [](Config& c) -> void* { return &c.alerts.power_budget_watts; },
     "The device's power budget in watts. When set, edgemond exports "
     "edgemond_power_input_budget_ratio (input power / budget) for the power_input_over_budget "
     "rule. 0: no budget.", 0, 100000},
    {"alerts.history_retention_days", FieldKind::kUint32, kLive,
     [](Config& c) -> void* { return &c.alerts.history_retention_days; },
     "Alert transitions older than this are deleted from the history (what is still firing is "
     "kept).", 1, 36500},
    {"alerts.rules", FieldKind::kAlertRules, kLive,
     [](Config& c) -> void* { return &c.alerts.rules; },
     "Alert rules (docs/alerts.md). More rules are read from alerts.d/*.json next to this file; "
     "a rule named like an earlier one replaces it."},
    {"selfbench.bench_path", FieldKind::kString, kLive,
     [](Config& c) -> void* { return &c.selfbench.bench_path; },
     "The edgemond-bench program that runs each benchmark in a child process. \"\": the one "
     "installed next to the edgemond executable.", 0, 0, &CheckBenchPath},
    {"selfbench.power_sample_hz", FieldKind::kDouble, kLive,
     [](Config& c) -> void* { return &c.selfbench.power_sample_hz; },
     "How often power rails and energy counters are read while a benchmark runs, so that its "
     "energy covers exactly its timed window.", 1, 100},
    {"selfbench.idle_power_seconds", FieldKind::kDouble, kLive,
     [](Config& c) -> void* { return &c.selfbench.idle_power_seconds; },
     "How long the idle power is measured just before each run (energy above idle subtracts "
     "it).", 0.2, 60},
    {"selfbench.startup_delay_seconds", FieldKind::kUint32, kLive,
     [](Config& c) -> void* { return &c.selfbench.startup_delay_seconds; },
     "Scheduled benchmarks wait this long after edgemond starts, so that booting is not "
     "measured.", 0, 86400},
    {"selfbench.idle_window_seconds", FieldKind::kUint32, kLive,
     [](Config& c) -> void* { return &c.selfbench.idle_window_seconds; },
     "A model with only_when_idle runs once CPU and GPU utilization, averaged over this many "
     "seconds, are at most the two ratios below.", 1, 3600},
    {"selfbench.idle_cpu_max_ratio", FieldKind::kDouble, kLive,
     [](Config& c) -> void* { return &c.selfbench.idle_cpu_max_ratio; },
     "Highest average CPU utilization (0..1, all cores) that counts as idle.", 0, 1},
    {"selfbench.idle_gpu_max_ratio", FieldKind::kDouble, kLive,
     [](Config& c) -> void* { return &c.selfbench.idle_gpu_max_ratio; },
     "Highest average GPU utilization (0..1, busiest GPU) that counts as idle.", 0, 1},
    {"selfbench.baseline_runs", FieldKind::kUint32, kLive,
     [](Config& c) -> void* { return &c.selfbench.baseline_runs; },
     "A model's baseline, per power mode, is the median of this many of its most recent good "
     "runs.", 1, 1000},
    {"selfbench.baseline_min_runs", FieldKind::kUint32, kLive,
     [](Config& c) -> void* { return &c.selfbench.baseline_min_runs; },
     "Regressions are judged once a power mode has at least this many good runs.", 1, 1000,
     &CheckBaselineRuns},
    {"selfbench.retention_days", FieldKind::kUint32, kLive,
     [](Config& c) -> void* { return &c.selfbench.retention_days; },
     "Benchmark runs older than this are deleted (each model's latest run is kept).", 1, 36500},
    {"models", FieldKind::kModels, kLive, [](Config& c) -> void* { return &c.models; },
     "The models to benchmark (docs/selfbench.md; etc/edgemond/conf.d/60-models.json.example is a "
     "complete example). A model named like an earlier one, in a conf.d drop-in, replaces it."},
};

constexpr SectionSpec kSections[] = {
    {"collection", "When to collect."},
    {"collectors", "Which collectors run. A collector whose hardware is absent costs nothing."},
    {"storage", "The local time-series database."},
    {"http", "The HTTP/JSON API and the Prometheus /metrics endpoint."},
    {"alerts", "Threshold alerts, written to the journal and kept in the database (docs/alerts.md)."},
    {"selfbench", "Self-benchmarks of the models in \"models\" (docs/selfbench.md)."},
};
// clang-format on

}  // namespace

std::span<const FieldSpec> ConfigSchema() {
  static const std::vector<FieldSpec> fields = [] {
    std::vector<FieldSpec> out(std::begin(kFieldsBeforeCollectors),
                               std::end(kFieldsBeforeCollectors));
    // The keys' text outlives the rows that view it.
    static const std::vector<std::string> keys = [] {
      std::vector<std::string> names;
      for (const collectors::CollectorInfo& info : collectors::BuiltinCollectors()) {
        names.push_back("collectors." + std::string(info.name));
      }
      return names;
    }();
    const auto builtins = collectors::BuiltinCollectors();
    for (std::size_t i = 0; i < builtins.size(); ++i) {
      FieldSpec spec{keys[i], FieldKind::kBool, kLive, nullptr, builtins[i].help};
      spec.collector = builtins[i].name;
      out.push_back(spec);
    }
    out.insert(out.end(), std::begin(kFieldsAfterCollectors), std::end(kFieldsAfterCollectors));
    return out;
  }();
  return fields;
}

void* FieldAddress(const FieldSpec& spec, Config& config) {
  if (spec.field != nullptr) return spec.field(config);
  return &config.collectors.collectors[std::string(spec.collector)].enabled;
}
std::span<const SectionSpec> ConfigSections() { return kSections; }

}  // namespace edgemond::daemon
