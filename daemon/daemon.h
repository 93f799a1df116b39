// Daemon: owns every part of a running edgemond and the loop that drives them.
//
// Parts are built in dependency order in Create() and destroyed in reverse (members are declared
// in build order): the device root, the event loop (first, so that it blocks the signals it
// handles before any thread exists), the collectors, the store and the alert history, the HTTP
// API. Create() fails with one clear Status (root missing, database unusable, port in use) before
// anything runs.
//
// Run() collects on a fixed monotonic grid. Each tick: collect, derive (daemon/derived_metrics.h),
// let the self-benchmarks see the collection and add their edgemond_model_* series
// (daemon/selfbench_controller.h), evaluate the alert rules and hand their transitions to the
// alert sink and the history, publish to the API, append to the store, flush every flush interval,
// then tell systemd. A benchmark runs in a child process; while it does, the controller's own
// timer samples power between ticks, so the collection keeps its schedule.
//
// systemd (daemon/systemd_notify.h), in the manner of systemd-timesyncd:
//  - READY=1 once the database is open, the HTTP socket bound and the first collection done;
//    STATUS= says what the daemon does (series, failing collectors, firing alerts, URL).
//  - WATCHDOG=1 only after a tick completes (at most every WatchdogSec/4), never from a timer of
//    its own: a tick stuck in a collector (a hung I2C read) stops the pings and systemd restarts
//    the service. When the interval is longer than half WatchdogSec, the idle loop also pings
//    between ticks, but only while the last tick completed and the next one is not overdue.
//  - SIGHUP: RELOADING=1 + MONOTONIC_USEC, re-read the configuration and the alert rules, apply
//    what can change live, READY=1. A configuration that does not load is logged and the running
//    one stays in force. Keys that need a restart (kNeedsRestart in daemon/config_schema.cc: root,
//    storage.path, the storage retention, size cap and ballast keys) are logged and keep their
//    running values.
//  - SIGTERM/SIGINT: STOPPING=1, flush, exit 0.
//
// Logging: the daemon is the only part that logs. A collector, the store or the alert sink
// failing is logged when it breaks and when it recovers, never once per tick.

#ifndef EDGEMOND_DAEMON_DAEMON_H_
#define EDGEMOND_DAEMON_DAEMON_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "alerts/alert_sink.h"
#include "alerts/evaluator.h"
#include "alerts/stderr_sink.h"
#include "collectors/collector_runner.h"
#include "collectors/throttle_events.h"
#include "core/clock.h"
#include "core/result.h"
#include "core/rooted_fs.h"
#include "core/unique_fd.h"
#include "daemon/api_backend_impl.h"
#include "daemon/config.h"
#include "daemon/derived_metrics.h"
#include "daemon/event_loop.h"
#include "daemon/recurring_error.h"
#include "daemon/retention_clock.h"
#include "daemon/scheduler.h"
#include "daemon/selfbench_controller.h"
#include "daemon/systemd_notify.h"
#include "http/api.h"
#include "http/router.h"
#include "http/server.h"
#include "storage/alert_history.h"
#include "storage/benchmark_runs.h"
#include "storage/store.h"

namespace edgemond::daemon {

inline constexpr std::string_view kVersion = EDGEMOND_VERSION;

struct DaemonOptions {
  // Loads the configuration again on SIGHUP, exactly as at startup (file, drop-ins, alert rules,
  // command-line overrides). Empty: SIGHUP is logged and ignored.
  std::function<std::variant<Config, ConfigError>()> reload;
  // A listening socket passed by systemd (socket activation), served instead of http.listen.
  UniqueFd listen_fd;
};

class Daemon final {
 public:
  // `clock` is borrowed and must outlive the daemon.
  static Result<std::unique_ptr<Daemon>> Create(Config config, const Clock& clock,
                                                DaemonOptions options = {});
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  // Runs until SIGTERM or SIGINT. Returns the process exit code.
  int Run();

  // Where the API is served ("http://127.0.0.1:8867").
  std::string url() const { return server_->url(); }

  // What Run()'s loop does at each tick of the collection timer and on SIGHUP with the reloaded
  // configuration. Public so that a test can drive a daemon by a FakeClock without the loop.
  void Tick();
  void ApplyConfig(Config wanted);

 private:
  struct Http {
    std::unique_ptr<http::Router> router;
    std::unique_ptr<http::ApiContext> context;
    std::unique_ptr<http::MhdServer> server;
  };

  Daemon(Config config, const Clock& clock, RootedFs fs, DaemonOptions options);

  Status Start();
  Result<Http> StartHttp(const Config::Http& config, UniqueFd listen_fd);
  void InstallHttp(Http http);
  Status MakeAlertSink(std::string_view sink);
  void EvaluateAlerts(std::vector<Sample>& samples, WallTime now);
  void HandleTransitions(const std::vector<AlertTransition>& transitions);
  void FlushStore(bool final_flush);
  // The time retention deletes by (retention_clock.h), logging a clock step when it sees one.
  WallTime RetentionNow();
  void PingWatchdog(bool from_tick);
  void ArmKeepalive();
  // What the STATUS= line says.
  struct StatusCounts {
    std::size_t series = 0;
    std::size_t failing_collectors = 0;
    std::size_t firing_alerts = 0;
    std::string activity;  // What the self-benchmarks are doing, if anything.
    friend bool operator==(const StatusCounts&, const StatusCounts&) = default;
  };
  StatusCounts CountStatus() const;
  void UpdateStatus();
  std::string StatusText() const;
  void Reload();
  // Turns throttling transitions into log lines and API events.
  void PublishThrottleEvents(const std::vector<Sample>& samples);
  void Shutdown(int signal);

  Config config_;  // The configuration in force; changed only by Reload().
  const Clock& clock_;
  const RootedFs fs_;
  DaemonOptions options_;
  SystemdNotifier notifier_;

  // Built in Start(), in this order; destroyed in reverse.
  std::unique_ptr<EventLoop> loop_;
  int tick_timer_ = -1;
  int keepalive_timer_ = -1;
  std::unique_ptr<collectors::CollectorRunner> runner_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<storage::AlertHistory> history_;
  std::unique_ptr<storage::BenchmarkRuns> benchmark_runs_;
  alerts::Evaluator evaluator_;
  alerts::StderrSink stderr_sink_;
  std::unique_ptr<alerts::AlertSink> alert_sink_;
  std::unique_ptr<ApiBackendImpl> backend_;
  std::unique_ptr<SelfbenchController> selfbench_;
  // Outlives every server and API context below (reloads replace them), which count into it.
  http::ConnectionCounters connection_counters_;
  std::unique_ptr<http::Router> router_;
  std::unique_ptr<http::ApiContext> api_context_;
  std::unique_ptr<http::MhdServer> server_;
  bool socket_activated_ = false;

  // Loop-thread state.
  TickScheduler scheduler_;
  DerivedOptions derived_options_;
  SampleDeriver deriver_;
  SteadyTime next_flush_;
  SteadyTime next_history_retention_;
  RetentionClock retention_clock_;  // The time every retention deletes by.
  RecurringError store_error_;      // Appends and flushes.
  RecurringError history_error_;    // The alert history.
  RecurringError sink_error_;       // The alert sink.
  std::optional<SteadyTime> last_watchdog_ping_;
  std::string status_text_;                    // Last STATUS= sent.
  std::optional<StatusCounts> status_counts_;  // What status_text_ counted, once known.
  std::size_t series_ = 0;                     // Samples of the last tick.
  std::uint64_t ticks_ = 0;
  bool new_runner_ = true;  // runner_ has not ticked yet: sum its collectors up after its first.
  collectors::ThrottleEventTracker throttle_events_;
};

}  // namespace edgemond::daemon

#endif  // EDGEMOND_DAEMON_DAEMON_H_
