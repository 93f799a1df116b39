#include "daemon/daemon.h"

#include <signal.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cmath>

#include "collectors/builtin_collectors.h"
#include "storage/sqlite_store.h"

namespace edgemond::daemon {
namespace {

std::chrono::nanoseconds Interval(const Config& config) {
  return std::chrono::nanoseconds(
      std::llround(config.collection.interval_seconds * 1'000'000'000.0));
}

collectors::CollectorsConfig ToCollectorsConfig(const Config::Collectors& config) {
  collectors::CollectorsConfig out;
  out.collectors["cpu"].enabled = config.cpu;
  out.collectors["memory"].enabled = config.memory;
  out.collectors["thermal"].enabled = config.thermal;
  out.collectors["hwmon"].enabled = config.hwmon;
  return out;
}

}  // namespace

Daemon::Daemon(Config config, const Clock& clock, RootedFs fs)
    : config_(std::move(config)),
      clock_(clock),
      fs_(std::move(fs)),
      scheduler_(clock.Now(), Interval(config_)),
      next_flush_(clock.Now() + std::chrono::seconds(config_.storage.flush_interval_seconds)) {}

Daemon::~Daemon() = default;

Result<std::unique_ptr<Daemon>> Daemon::Create(Config config, const Clock& clock) {
  auto fs = RootedFs::Open(config.root);
  if (!fs.ok()) return fs.status().WithContext("cannot read device state (--root)");
  std::unique_ptr<Daemon> daemon(new Daemon(std::move(config), clock, std::move(fs).value()));
  EDGEMOND_RETURN_IF_ERROR(daemon->Start());
  return daemon;
}

Status Daemon::Start() {
  // The loop comes first: it blocks SIGTERM/SIGINT, and every thread started later (the HTTP
  // server's) inherits that mask, so the signals reach the loop instead of killing the process.
  EDGEMOND_ASSIGN_OR_RETURN(loop_, EventLoop::Create());
  for (const int signal : {SIGTERM, SIGINT}) {
    EDGEMOND_RETURN_IF_ERROR(loop_->AddSignal(signal, [this, signal] { Shutdown(signal); }));
  }
  EDGEMOND_ASSIGN_OR_RETURN(tick_timer_, loop_->AddTimer([this] { Tick(); }));
  const collectors::CollectorsConfig collectors_config = ToCollectorsConfig(config_.collectors);
  EDGEMOND_RETURN_IF_ERROR(collectors::ValidateCollectorsConfig(collectors_config));
  runner_ = std::make_unique<collectors::CollectorRunner>(
      collectors::MakeBuiltinCollectors(fs_, collectors_config), clock_);

  storage::StorageOptions storage_options;
  storage_options.path = config_.storage.path;
  storage_options.flush_interval = std::chrono::seconds(config_.storage.flush_interval_seconds);
  const auto days = [](std::uint32_t n) { return std::chrono::hours(24) * n; };
  storage_options.raw_retention = days(config_.storage.raw_retention_days);
  storage_options.minute_retention = days(config_.storage.minute_rollup_retention_days);
  storage_options.hour_retention = days(config_.storage.hour_rollup_retention_days);
  storage_options.max_bytes = std::int64_t{config_.storage.max_size_megabytes} << 20;
  storage_options.ballast_bytes = std::int64_t{config_.storage.ballast_megabytes} << 20;
  auto store = storage::SqliteStore::Open(storage_options);
  if (!store.ok()) return store.status().WithContext("cannot open the database (--db)");
  store_ = std::move(store).value();

  backend_ = std::make_unique<ApiBackendImpl>(fs_, *store_, clock_, Interval(config_));
  router_ = std::make_unique<http::Router>(
      http::RouterOptions{config_.http.bearer_token, config_.http.cors_allow_origins});
  api_context_ = std::make_unique<http::ApiContext>(http::ApiContext{
      *backend_, clock_, *router_,
      http::ApiLimits{config_.http.max_query_points, config_.http.max_query_series},
      std::string(kVersion)});
  http::RegisterApiRoutes(*router_, *api_context_);

  http::ServerOptions server_options;
  server_options.listen = config_.http.listen;
  server_options.max_connections = config_.http.max_connections;
  server_options.max_connections_per_ip = config_.http.max_connections_per_ip;
  server_options.connection_timeout = std::chrono::seconds(config_.http.connection_timeout_seconds);
  server_options.threads = config_.http.threads;
  auto server = http::MhdServer::Start(std::move(server_options), *router_);
  if (!server.ok()) return server.status().WithContext("cannot serve HTTP (--listen)");
  server_ = std::move(server).value();

  return Status::Ok();
}

int Daemon::Run() {
  spdlog::info("edgemond {} serving {} (root {}, database {}, every {} s)", kVersion,
               server_->url(), config_.root, config_.storage.path,
               config_.collection.interval_seconds);
  Tick();  // The first collection happens now, not one interval from now.
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
  collectors::TickReport report = runner_->RunOnce(now);
  for (const collectors::CollectorEvent& event : report.events) {
    if (event.kind == collectors::CollectorEvent::Kind::kRecovered) {
      spdlog::info("collector {} recovered", event.collector);
    } else if (event.error.IsNotFound()) {
      spdlog::debug("collector {}: nothing to collect here ({})", event.collector,
                    event.error.ToString());
    } else {
      spdlog::warn("collector {} failed: {}", event.collector, event.error.ToString());
    }
  }

  const Status appended = store_->Append(report.samples);
  backend_->SetLatest(std::move(report.samples));
  if (!appended.ok()) {
    if (!store_error_ || *store_error_ != appended) {
      spdlog::error("storing samples failed: {}", appended.ToString());
    }
    store_error_ = appended;
  }

  const SteadyTime finished = clock_.Now();
  if (finished >= next_flush_) {
    FlushStore(/*final_flush=*/false);
    next_flush_ = finished + std::chrono::seconds(config_.storage.flush_interval_seconds);
  }
  ++ticks_;
  const std::uint64_t skipped = scheduler_.Advance(clock_.Now());
  if (skipped > 0) {
    spdlog::warn("collection overran its interval; skipped {} tick(s)", skipped);
  }
  const Status armed = loop_->ArmTimer(tick_timer_, scheduler_.next());
  if (!armed.ok()) {
    spdlog::critical("cannot schedule the next collection: {}", armed.ToString());
    loop_->Exit(1);
  }
}

void Daemon::FlushStore(bool final_flush) {
  Status status = store_->Flush();
  // Retention runs even when the flush failed: on a full disk it is what frees space.
  if (!final_flush) {
    auto retention = store_->EnforceRetention(clock_.WallNow());
    if (status.ok() && !retention.ok()) status = retention.status();
  }
  if (status.ok()) {
    if (store_error_) spdlog::info("storage recovered: writing to {} again", config_.storage.path);
    store_error_.reset();
    return;
  }
  // Logged when the failure starts or changes kind, not at every flush (a full disk reports
  // the free space, which changes every time).
  const bool same_failure = store_error_ && store_error_->code() == status.code() &&
                            store_error_->error_number() == status.error_number();
  if (final_flush || !same_failure) {
    if (status.error_number() == ENOSPC) {
      spdlog::error("{}; collection goes on, queries answer from memory and disk",
                    status.message());
    } else {
      spdlog::error("writing to {} failed: {}", config_.storage.path, status.ToString());
    }
  }
  store_error_ = status;
}

void Daemon::Shutdown(int signal) {
  spdlog::info("received {}, flushing and exiting", signal == SIGTERM ? "SIGTERM" : "SIGINT");
  FlushStore(/*final_flush=*/true);
  loop_->Exit(0);
}

}  // namespace edgemond::daemon
