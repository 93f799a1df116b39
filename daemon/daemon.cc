#include "daemon/daemon.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <utility>

#include "alerts/journal_sink.h"
#include "alerts/rule_parser.h"
#include "collectors/builtin_collectors.h"
#include "collectors/throttle_events.h"
#include "daemon/collector_health.h"
#include "daemon/logging.h"
#include "daemon/reload_plan.h"
#include "selfbench/bench_process.h"
#include "selfbench/model_alerts.h"
#include "storage/sqlite_store.h"

namespace edgemond::daemon {
namespace {

std::chrono::nanoseconds Interval(const Config& config) {
  return std::chrono::nanoseconds(
      std::llround(config.collection.interval_seconds * 1'000'000'000.0));
}

nlohmann::json RulesJson(const std::vector<alerts::Rule>& rules) {
  nlohmann::json out = nlohmann::json::array();
  for (const alerts::Rule& rule : rules) {
    nlohmann::json item = nlohmann::json::parse(alerts::RuleToJson(rule).dump());
    item["source"] = rule.source;
    out.push_back(std::move(item));
  }
  return out;
}

// The evaluator's rules: the configured ones, then the self-benchmarks' built-in event rules,
// enabled while a model is.
std::vector<alerts::Rule> EvaluatorRules(const Config& config) {
  std::vector<alerts::Rule> rules = config.alerts.rules;
  const bool benchmarking = std::any_of(config.models.begin(), config.models.end(),
                                        [](const selfbench::ModelSpec& m) { return m.enabled; });
  for (alerts::Rule& rule : selfbench::ModelAlertRules(benchmarking)) {
    rules.push_back(std::move(rule));
  }
  return rules;
}

std::string Plural(std::size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

// The collectors' configuration. NVML talks to the host's driver, not to files under the root: with
// a --root tree (a fixture, another board's capture) the host's GPUs do not belong to the device
// being read. A library named explicitly (a test's fake NVML) is still used.
collectors::CollectorsConfig CollectorsConfigFor(const Config& config) {
  collectors::CollectorsConfig out = config.collectors;
  if (config.root != "/" && config.collectors.nvml_library == Config().collectors.nvml_library &&
      config.collectors.OptionsFor("nvidia_gpu").enabled) {
    spdlog::info("root is {}: not reading this host's NVIDIA GPUs through NVML", config.root);
    out.collectors["nvidia_gpu"].enabled = false;
  }
  return out;
}

}  // namespace

Daemon::Daemon(Config config, const Clock& clock, RootedFs fs, DaemonOptions options)
    : config_(std::move(config)),
      clock_(clock),
      fs_(std::move(fs)),
      options_(std::move(options)),
      scheduler_(clock.Now(), Interval(config_)),
      next_flush_(clock.Now() + std::chrono::seconds(config_.storage.flush_interval_seconds)),
      next_history_retention_(clock.Now()) {}

Daemon::~Daemon() = default;

Result<std::unique_ptr<Daemon>> Daemon::Create(Config config, const Clock& clock,
                                               DaemonOptions options) {
  auto fs = RootedFs::Open(config.root);
  if (!fs.ok()) return fs.status().WithContext("cannot read device state (--root)");
  std::unique_ptr<Daemon> daemon(
      new Daemon(std::move(config), clock, std::move(fs).value(), std::move(options)));
  EDGEMOND_RETURN_IF_ERROR(daemon->Start());
  return daemon;
}

Status Daemon::Start() {
  // The loop comes first: it blocks SIGTERM/SIGINT/SIGHUP, and every thread started later (the
  // HTTP server's) inherits that mask, so the signals reach the loop instead of killing the
  // process.
  EDGEMOND_ASSIGN_OR_RETURN(loop_, EventLoop::Create());
  for (const int signal : {SIGTERM, SIGINT}) {
    EDGEMOND_RETURN_IF_ERROR(loop_->AddSignal(signal, [this, signal] { Shutdown(signal); }));
  }
  EDGEMOND_RETURN_IF_ERROR(loop_->AddSignal(SIGHUP, [this] { Reload(); }));
  EDGEMOND_ASSIGN_OR_RETURN(tick_timer_, loop_->AddTimer([this] { Tick(); }));
  EDGEMOND_ASSIGN_OR_RETURN(keepalive_timer_,
                            loop_->AddTimer([this] { PingWatchdog(/*from_tick=*/false); }));
  (void)notifier_.SetStatus("Starting: opening the database");

  const collectors::CollectorsConfig collectors_config = CollectorsConfigFor(config_);
  EDGEMOND_RETURN_IF_ERROR(collectors::ValidateCollectorsConfig(collectors_config));
  runner_ = collectors::MakeBuiltinRunner(fs_, collectors_config, clock_);

  storage::StorageOptions storage_options;
  storage_options.path = config_.storage.path;
  storage_options.flush_interval = std::chrono::seconds(config_.storage.flush_interval_seconds);
  const auto days = [](std::uint32_t n) { return std::chrono::hours(24) * n; };
  storage_options.raw_retention = days(config_.storage.retention_days);
  storage_options.minute_retention = days(config_.storage.minute_rollup_retention_days);
  storage_options.hour_retention = days(config_.storage.hour_rollup_retention_days);
  storage_options.max_bytes = std::int64_t{config_.storage.max_size_megabytes} << 20;
  storage_options.ballast_bytes = std::int64_t{config_.storage.ballast_megabytes} << 20;
  storage_options.check_integrity_on_open = config_.storage.check_on_start;
  storage_options.move_aside_if_damaged = true;
  auto store = storage::SqliteStore::Open(storage_options);
  if (!store.ok()) return store.status().WithContext("cannot open the database (--db)");
  if (const auto& moved = (*store)->moved_aside()) {
    spdlog::error(
        "the database {} was damaged ({}); it was moved to {} (sqlite3's .recover may "
        "save some of it) and a new database was started",
        config_.storage.path, moved->reason, moved->path);
  }
  store_ = std::move(store).value();
  auto history = storage::AlertHistory::Open(config_.storage.path);
  if (!history.ok()) return history.status().WithContext("cannot open the alert history");
  history_ = std::move(history).value();
  auto benchmark_runs = storage::BenchmarkRuns::Open(config_.storage.path);
  if (!benchmark_runs.ok()) {
    return benchmark_runs.status().WithContext("cannot open the benchmark runs");
  }
  benchmark_runs_ = std::move(benchmark_runs).value();

  EDGEMOND_RETURN_IF_ERROR(MakeAlertSink(config_.alerts.sink));
  derived_options_.power_budget_watts = config_.alerts.power_budget_watts;
  (void)evaluator_.SetRules(EvaluatorRules(config_), clock_.WallNow());

  // Alerts that were firing when edgemond last stopped keep firing, with their start time,
  // rather than being logged a second time.
  auto firing = history_->StillFiring();
  if (!firing.ok()) {
    spdlog::warn("cannot read which alerts were firing before the restart: {}",
                 firing.status().ToString());
  } else if (!firing->empty()) {
    HandleTransitions(evaluator_.Restore(*firing, clock_.Now(), clock_.WallNow()));
    spdlog::info("restored {} that {} firing when edgemond stopped",
                 Plural(firing->size(), "alert", "alerts"), firing->size() == 1 ? "was" : "were");
  }

  backend_ = std::make_unique<ApiBackendImpl>(fs_, *store_, clock_, Interval(config_));
  backend_->SetAlertHistory(history_.get());
  // The controller resolves the restored alerts of models no longer configured.
  auto selfbench = SelfbenchController::Create(
      config_, collectors_config, fs_, clock_, *loop_, *benchmark_runs_, evaluator_,
      [this](const std::vector<AlertTransition>& transitions) {
        HandleTransitions(transitions);
        backend_->SetActiveAlerts(evaluator_.Active());
      });
  if (!selfbench.ok()) return selfbench.status().WithContext("cannot start the self-benchmarks");
  selfbench_ = std::move(selfbench).value();
  backend_->SetSelfbench(selfbench_.get());
  backend_->SetAlertRules(RulesJson(config_.alerts.rules));

  socket_activated_ = static_cast<bool>(options_.listen_fd);
  auto http = StartHttp(config_.http, std::move(options_.listen_fd));
  if (!http.ok()) return http.status();
  InstallHttp(std::move(http).value());
  return Status::Ok();
}

Result<Daemon::Http> Daemon::StartHttp(const Config::Http& config, UniqueFd listen_fd) {
  Http http;
  http.router = std::make_unique<http::Router>(
      http::RouterOptions{config.bearer_token, config.cors_allow_origins});
  http.context = std::make_unique<http::ApiContext>(http::ApiContext{
      *backend_, clock_, *http.router,
      http::ApiLimits{config.max_query_points, config.max_query_series}, std::string(kVersion)});
  http.context->connections = &connection_counters_;
  http::RegisterApiRoutes(*http.router, *http.context);

  http::ServerOptions server_options;
  server_options.listen = config.listen;
  server_options.listen_fd = std::move(listen_fd);
  server_options.max_connections = config.max_connections;
  server_options.counters = &connection_counters_;
  server_options.max_connections_per_ip = config.max_connections_per_ip;
  server_options.connection_timeout = std::chrono::seconds(config.connection_timeout_seconds);
  server_options.read_timeout = std::chrono::seconds(config.read_timeout_seconds);
  server_options.threads = config.threads;
  auto server = http::MhdServer::Start(std::move(server_options), *http.router);
  if (!server.ok()) return server.status().WithContext("cannot serve HTTP (--listen)");
  http.server = std::move(server).value();
  return http;
}

void Daemon::InstallHttp(Http http) {
  // The old server stops (and stops using its router and context) before they go.
  server_ = std::move(http.server);
  api_context_ = std::move(http.context);
  router_ = std::move(http.router);
}

Status Daemon::MakeAlertSink(std::string_view sink) {
  const bool journal =
      sink == "journal" ||
      (sink == "auto" && alerts::JournalSink::JournalAvailable() && !::isatty(STDERR_FILENO));
  if (journal) {
    alert_sink_ = std::make_unique<alerts::JournalSink>();
  } else {
    alert_sink_ = std::make_unique<alerts::StderrSink>(STDERR_FILENO);
  }
  spdlog::debug("alert transitions go to {}", journal ? "the journal" : "stderr");
  sink_error_ = RecurringError();
  return Status::Ok();
}

int Daemon::Run() {
  spdlog::info("edgemond {} serving {}{} (root {}, database {}, every {} s, {}, {})", kVersion,
               server_->url(), socket_activated_ ? " on the socket systemd passed" : "",
               config_.root, config_.storage.path, config_.collection.interval_seconds,
               Plural(config_.alerts.rules.size(), "alert rule", "alert rules"),
               Plural(config_.models.size(), "model to benchmark", "models to benchmark"));
  if (!config_.models.empty()) {
    spdlog::info("benchmark children: {}", selfbench::ChildConfinement());
  }
  if (notifier_.watchdog() &&
      Interval(config_) >
          std::chrono::duration_cast<std::chrono::nanoseconds>(*notifier_.watchdog() / 2)) {
    spdlog::info(
        "the collection interval is longer than half of WatchdogSec: the watchdog is "
        "also fed between collections while they run on time");
  }
  Tick();  // The first collection happens now, not one interval from now.
  status_text_ = StatusText();
  (void)notifier_.Ready(status_text_);
  PingWatchdog(/*from_tick=*/true);
  auto code = loop_->Run();
  if (!code.ok()) {
    spdlog::error("{}", code.status().ToString());
    FlushStore(/*final_flush=*/true);
    return 1;
  }
  return *code;
}

void Daemon::Tick() {
  const WallTime now = clock_.WallNow();
  // Room for last tick's derived, model and alert samples too.
  collectors::TickReport report = runner_->RunOnce(now, series_);
  for (const collectors::CollectorEvent& event : report.events) {
    const std::string text = DescribeCollectorEvent(event);
    if (event.to == collectors::CollectorHealth::kFailing) {
      spdlog::warn("{}", text);
    } else {
      spdlog::info("{}", text);
    }
  }
  // The API's view changes only with the collectors' health: once after the first tick of a
  // runner (summed up in one line) and at every event.
  if (new_runner_ || !report.events.empty()) {
    backend_->SetCollectors(CollectorsToJson(runner_->states()));
  }
  if (new_runner_) {
    spdlog::info("{}", CollectorSummary(runner_->states()));
    new_runner_ = false;
  }
  std::vector<Sample> derived =
      deriver_.Derive(report.samples, runner_->states(), derived_options_, now);
  report.samples.insert(report.samples.end(), std::make_move_iterator(derived.begin()),
                        std::make_move_iterator(derived.end()));
  selfbench_->OnCollection(report.samples);
  std::vector<Sample> models = selfbench_->Metrics(now);
  report.samples.insert(report.samples.end(), std::make_move_iterator(models.begin()),
                        std::make_move_iterator(models.end()));
  EvaluateAlerts(report.samples, now);
  series_ = report.samples.size();

  const Status appended = store_->Append(report.samples);
  PublishThrottleEvents(report.samples);
  // One publication: whoever sees an alert in the API finds it on /metrics too, and /readyz is
  // not ready before both are there (alerts restored at startup included).
  backend_->PublishTick(std::move(report.samples), evaluator_.Active());
  if (!appended.ok() && store_error_.Failed(appended)) {
    spdlog::error("storing samples failed: {}", appended.ToString());
  }

  const SteadyTime finished = clock_.Now();
  if (finished >= next_flush_) {
    FlushStore(/*final_flush=*/false);
    next_flush_ = finished + std::chrono::seconds(config_.storage.flush_interval_seconds);
  }
  ++ticks_;
  // The tick is complete: only now may systemd hear that the daemon is alive (after the first
  // tick, Run() sends READY=1 first).
  if (ticks_ > 1) PingWatchdog(/*from_tick=*/true);
  if (ticks_ > 1) UpdateStatus();
  const std::uint64_t skipped = scheduler_.Advance(clock_.Now());
  if (skipped > 0) {
    spdlog::warn("collection overran its interval; skipped {} tick(s)", skipped);
  }
  const Status armed = loop_->ArmTimer(tick_timer_, scheduler_.next());
  if (!armed.ok()) {
    spdlog::critical("cannot schedule the next collection: {}", armed.ToString());
    loop_->Exit(1);
  }
  ArmKeepalive();
}

void Daemon::EvaluateAlerts(std::vector<Sample>& samples, WallTime now) {
  HandleTransitions(evaluator_.Evaluate(samples, clock_.Now(), now));
  std::vector<Sample> metrics = evaluator_.Metrics(now);
  samples.insert(samples.end(), std::make_move_iterator(metrics.begin()),
                 std::make_move_iterator(metrics.end()));
}

void Daemon::HandleTransitions(const std::vector<AlertTransition>& transitions) {
  if (transitions.empty()) return;
  for (const AlertTransition& transition : transitions) {
    const Status emitted = alert_sink_->Emit(transition);
    if (!emitted.ok()) {
      // Never lose an alert: the line goes to stderr (which the journal, if any, still captures).
      (void)stderr_sink_.Emit(transition);
      if (sink_error_.Failed(emitted)) {
        spdlog::error("cannot deliver alerts ({}); writing them to stderr until it works again",
                      emitted.ToString());
      }
    } else if (sink_error_.Succeeded()) {
      spdlog::info("alerts are delivered again");
    }
  }
  const Status stored = history_->Append(transitions);
  if (!stored.ok()) {
    if (history_error_.Failed(stored)) {
      spdlog::error("storing alert history failed: {}", stored.ToString());
    }
  } else if (history_error_.Succeeded()) {
    spdlog::info("alert history is stored again");
  }
}

void Daemon::PublishThrottleEvents(const std::vector<Sample>& samples) {
  std::vector<http::ApiEvent> events;
  for (const collectors::ThrottleEvent& event : throttle_events_.Update(samples)) {
    const std::string_view state = collectors::ThrottleEventKindName(event.kind);
    if (event.kind == collectors::ThrottleEvent::Kind::kStarted) {
      spdlog::warn("throttling started: {} ({})", event.component, event.reason);
    } else {
      spdlog::info("throttling ended: {} ({})", event.component, event.reason);
    }
    events.push_back(http::ApiEvent{event.at,
                                    "throttle",
                                    std::string(state),
                                    {{"component", event.component}, {"reason", event.reason}}});
  }
  if (!events.empty()) backend_->AddEvents(std::move(events));
}

WallTime Daemon::RetentionNow() {
  const WallTime now = retention_clock_.Now(clock_.Now(), clock_.WallNow());
  const double step_seconds = std::chrono::duration<double>(retention_clock_.last_step()).count();
  switch (retention_clock_.last_change()) {
    case RetentionClock::Change::kNone:
      break;
    case RetentionClock::Change::kSteppedBack:
      spdlog::warn(
          "the wall clock stepped back by {:.0f} s: new samples are stamped before some stored "
          "ones, and queries return both in time order",
          -step_seconds);
      break;
    case RetentionClock::Change::kSteppedForward:
      spdlog::warn(
          "the wall clock stepped forward by {:.0f} s: retention deletes by the time before the "
          "step until the new time has held for {} h",
          step_seconds, RetentionClock::kDefaultTrustAfter.count());
      break;
    case RetentionClock::Change::kTrusted:
      spdlog::info("the wall clock's step forward held for {} h: retention follows it",
                   RetentionClock::kDefaultTrustAfter.count());
      break;
  }
  return now;
}

void Daemon::FlushStore(bool final_flush) {
  Status status = store_->Flush();
  // Retention runs even when the flush failed: on a full disk it is what frees space.
  if (!final_flush) {
    const WallTime retention_now = RetentionNow();
    auto retention = store_->EnforceRetention(retention_now);
    if (status.ok() && !retention.ok()) status = retention.status();
    if (clock_.Now() >= next_history_retention_) {
      next_history_retention_ = clock_.Now() + std::chrono::hours(1);
      auto deleted = history_->EnforceRetention(
          retention_now, std::chrono::hours(24) * config_.alerts.history_retention_days);
      if (!deleted.ok()) {
        spdlog::warn("alert history retention failed: {}", deleted.status().ToString());
      }
      selfbench_->EnforceRetention(retention_now);
    }
  }
  if (status.ok()) {
    if (store_error_.Succeeded()) {
      spdlog::info("storage recovered: writing to {} again", config_.storage.path);
    }
    return;
  }
  // The last flush before exit says why it failed even when earlier ones did.
  if (store_error_.Failed(status) || final_flush) {
    if (status.error_number() == ENOSPC) {
      spdlog::error("{}; collection goes on, queries answer from memory and disk",
                    status.message());
    } else {
      spdlog::error("writing to {} failed: {}", config_.storage.path, status.ToString());
    }
  }
}

void Daemon::PingWatchdog(bool from_tick) {
  if (!notifier_.watchdog()) return;
  const SteadyTime now = clock_.Now();
  if (!from_tick) {
    // The idle loop may vouch for the daemon only while the collections run on time: the last
    // one completed (we are between ticks) and the next one is not overdue.
    if (now > scheduler_.next() + scheduler_.interval()) return;
  }
  const auto period = std::chrono::duration_cast<SteadyTime::duration>(*notifier_.watchdog());
  if (last_watchdog_ping_ && now - *last_watchdog_ping_ < period / 4) {
    if (!from_tick) ArmKeepalive();
    return;
  }
  const Status sent = notifier_.Watchdog();
  if (!sent.ok()) spdlog::debug("WATCHDOG=1: {}", sent.ToString());
  last_watchdog_ping_ = now;
  if (!from_tick) ArmKeepalive();
}

void Daemon::ArmKeepalive() {
  if (!notifier_.watchdog()) return;
  const auto period = std::chrono::duration_cast<SteadyTime::duration>(*notifier_.watchdog());
  const SteadyTime now = clock_.Now();
  // Only needed when the next tick would come too late to feed the watchdog in time.
  if (scheduler_.next() - now <= period / 2) return;
  const SteadyTime base = last_watchdog_ping_ ? *last_watchdog_ping_ : now;
  const Status armed = loop_->ArmTimer(keepalive_timer_, std::max(now, base + period / 4));
  if (!armed.ok()) spdlog::warn("cannot arm the watchdog keepalive: {}", armed.ToString());
}

Daemon::StatusCounts Daemon::CountStatus() const {
  StatusCounts counts{series_, 0, 0, selfbench_->Activity()};
  for (const collectors::CollectorState& state : runner_->states()) {
    if (state.failing()) ++counts.failing_collectors;
  }
  for (const ActiveAlert& alert : evaluator_.Active()) {
    if (alert.state == AlertState::kFiring) ++counts.firing_alerts;
  }
  return counts;
}

std::string Daemon::StatusText() const {
  const StatusCounts counts = CountStatus();
  std::string text = "Collecting " + Plural(counts.series, "series", "series") + " every " +
                     alerts::FormatNumber(config_.collection.interval_seconds) + " s";
  if (counts.failing_collectors > 0) {
    text += ", " + Plural(counts.failing_collectors, "collector", "collectors") + " failing";
  }
  if (!counts.activity.empty()) text += ", " + counts.activity;
  text +=
      "; " + Plural(counts.firing_alerts, "alert", "alerts") + " firing; serving " + server_->url();
  return text;
}

void Daemon::UpdateStatus() {
  // The text is rebuilt only when what it counts changed: most ticks change nothing.
  const StatusCounts counts = CountStatus();
  if (counts == status_counts_) return;
  status_counts_ = counts;
  std::string text = StatusText();
  if (text == status_text_) return;
  (void)notifier_.SetStatus(text);
  status_text_ = std::move(text);
}

void Daemon::Reload() {
  (void)notifier_.Reloading(clock_.Now(), "Reloading the configuration");
  if (!options_.reload) {
    spdlog::warn("received SIGHUP, but this daemon has no configuration to reload");
  } else {
    spdlog::info("received SIGHUP, reloading the configuration");
    auto loaded = options_.reload();
    if (auto* error = std::get_if<ConfigError>(&loaded)) {
      spdlog::error("the new configuration was rejected, the running one stays in force: {}",
                    error->ToString());
    } else {
      ApplyConfig(std::get<Config>(std::move(loaded)));
    }
  }
  status_text_ = StatusText();
  (void)notifier_.Ready(status_text_);
}

void Daemon::ApplyConfig(Config wanted) {
  ReloadPlan plan = PlanReload(config_, std::move(wanted));
  Config& next = plan.next;
  for (const RestartPending& kept : plan.kept) {
    spdlog::warn("{} changed from {} to {}: this takes a restart; keeping {} until then", kept.key,
                 kept.running, kept.wanted, kept.running);
  }

  if (plan.log_level) {
    SetLogLevel(next.log_level);
    spdlog::info("log_level is now {}", next.log_level);
  }
  if (plan.interval) {
    const auto interval = Interval(next);
    scheduler_.Reset(clock_.Now() + interval, interval);
    backend_->SetInterval(interval);
    const Status armed = loop_->ArmTimer(tick_timer_, scheduler_.next());
    if (!armed.ok()) spdlog::error("cannot reschedule the collection: {}", armed.ToString());
    spdlog::info("collecting every {} s", next.collection.interval_seconds);
  }
  if (plan.collectors) {
    const collectors::CollectorsConfig collectors_config = CollectorsConfigFor(next);
    if (Status valid = collectors::ValidateCollectorsConfig(collectors_config); !valid.ok()) {
      spdlog::error("collectors: {}; keeping the running ones", valid.ToString());
      next.collectors = config_.collectors;
    } else {
      runner_ = collectors::MakeBuiltinRunner(fs_, collectors_config, clock_);
      new_runner_ = true;
      spdlog::info("collectors restarted with the new selection");
    }
  }
  if (plan.flush_interval) {
    next_flush_ = clock_.Now() + std::chrono::seconds(next.storage.flush_interval_seconds);
    spdlog::info("flushing to the database every {} s", next.storage.flush_interval_seconds);
  }

  if (plan.http) {
    // The listening socket is kept (duplicated into the new server) unless the address changed
    // and it is ours to change: systemd's (socket activation) always stays.
    const bool keep_socket = socket_activated_ || !plan.http_listen;
    UniqueFd fd;
    if (keep_socket) {
      if (socket_activated_ && plan.http_listen) {
        spdlog::warn(
            "http.listen is ignored: the listening socket comes from systemd "
            "(edgemond.socket)");
      }
      auto duplicate = server_->DuplicateListenSocket();
      if (duplicate.ok()) {
        fd = std::move(duplicate).value();
      } else {
        spdlog::error("cannot take over the listening socket: {}", duplicate.status().ToString());
      }
    }
    if (!fd && keep_socket) {
      next.http = config_.http;
    } else {
      auto http = StartHttp(next.http, std::move(fd));
      if (!http.ok()) {
        spdlog::error(
            "the new HTTP settings cannot be served ({}); still serving {} with the "
            "previous ones",
            http.status().ToString(), server_->url());
        next.http = config_.http;
      } else {
        InstallHttp(std::move(http).value());
        spdlog::info("HTTP settings applied; serving {}", server_->url());
      }
    }
  }

  if (plan.alert_sink) {
    (void)MakeAlertSink(next.alerts.sink);
    spdlog::info("alert transitions now go to {}", next.alerts.sink);
  }
  derived_options_.power_budget_watts = next.alerts.power_budget_watts;
  HandleTransitions(evaluator_.SetRules(EvaluatorRules(next), clock_.WallNow()));
  backend_->SetAlertRules(RulesJson(next.alerts.rules));
  selfbench_->Reconfigure(next, CollectorsConfigFor(next));
  backend_->SetActiveAlerts(evaluator_.Active());
  spdlog::info("{} configured for self-benchmarks", Plural(next.models.size(), "model", "models"));
  spdlog::info("{} loaded ({} added, {} changed, {} removed)",
               Plural(next.alerts.rules.size(), "alert rule", "alert rules"), plan.rules_added,
               plan.rules_changed, plan.rules_removed);
  config_ = std::move(next);
}

void Daemon::Shutdown(int signal) {
  spdlog::info("received {}, flushing and exiting", signal == SIGTERM ? "SIGTERM" : "SIGINT");
  (void)notifier_.Stopping("Stopping: writing buffered samples to the database");
  selfbench_->Shutdown();
  FlushStore(/*final_flush=*/true);
  loop_->Exit(0);
}

}  // namespace edgemond::daemon
