#include "daemon/api_backend_impl.h"

#include "collectors/device_info.h"
#include "daemon/selfbench_controller.h"

namespace edgemond::daemon {
namespace {

template <typename T>
nlohmann::json Optional(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace

std::shared_ptr<const std::vector<Sample>> ApiBackendImpl::Latest() const {
  std::lock_guard lock(mu_);
  return latest_;
}

void ApiBackendImpl::PublishTick(std::vector<Sample> samples, std::vector<ActiveAlert> alerts) {
  auto latest = std::make_shared<const std::vector<Sample>>(std::move(samples));
  auto active = std::make_shared<const std::vector<ActiveAlert>>(std::move(alerts));
  const SteadyTime now = clock_.Now();
  std::lock_guard lock(mu_);
  latest_ = std::move(latest);
  alerts_ = std::move(active);
  last_tick_ = now;
}

void ApiBackendImpl::SetInterval(std::chrono::nanoseconds interval) {
  std::lock_guard lock(mu_);
  interval_ = interval;
}

void ApiBackendImpl::SetActiveAlerts(std::vector<ActiveAlert> alerts) {
  auto snapshot = std::make_shared<const std::vector<ActiveAlert>>(std::move(alerts));
  std::lock_guard lock(mu_);
  alerts_ = std::move(snapshot);
}

void ApiBackendImpl::SetAlertRules(nlohmann::json rules) {
  auto snapshot = std::make_shared<const nlohmann::json>(std::move(rules));
  std::lock_guard lock(mu_);
  rules_ = std::move(snapshot);
}

void ApiBackendImpl::SetCollectors(nlohmann::json collectors) {
  auto snapshot = std::make_shared<const nlohmann::json>(std::move(collectors));
  std::lock_guard lock(mu_);
  collectors_ = std::move(snapshot);
}

void ApiBackendImpl::SetAlertHistory(storage::AlertHistory* history) { history_ = history; }

void ApiBackendImpl::SetSelfbench(SelfbenchController* selfbench) { selfbench_ = selfbench; }

namespace {
Status NoSelfbench() { return Status::Unavailable("self-benchmarks are not running"); }
}  // namespace

Result<std::vector<ModelBenchmarkState>> ApiBackendImpl::Benchmarks() const {
  if (selfbench_ == nullptr) return NoSelfbench();
  return selfbench_->States();
}

Result<std::vector<BenchmarkRun>> ApiBackendImpl::BenchmarkHistory(
    const BenchmarkHistoryQuery& query) const {
  if (selfbench_ == nullptr) return NoSelfbench();
  return selfbench_->History(query);
}

Result<BenchmarkRun> ApiBackendImpl::BenchmarkRunById(std::int64_t id) const {
  if (selfbench_ == nullptr) return NoSelfbench();
  return selfbench_->Run(id);
}

Result<BenchmarkRun> ApiBackendImpl::StartBenchmark(const std::string& model) const {
  if (selfbench_ == nullptr) return NoSelfbench();
  return selfbench_->RequestRun(model);
}

std::vector<ActiveAlert> ApiBackendImpl::ActiveAlerts() const {
  std::shared_ptr<const std::vector<ActiveAlert>> alerts;
  {
    std::lock_guard lock(mu_);
    alerts = alerts_;
  }
  return *alerts;
}

nlohmann::json ApiBackendImpl::Collectors() const {
  std::shared_ptr<const nlohmann::json> collectors;
  {
    std::lock_guard lock(mu_);
    collectors = collectors_;
  }
  return *collectors;
}

nlohmann::json ApiBackendImpl::AlertRules() const {
  std::shared_ptr<const nlohmann::json> rules;
  {
    std::lock_guard lock(mu_);
    rules = rules_;
  }
  return *rules;
}

Result<std::vector<AlertTransition>> ApiBackendImpl::AlertHistory(
    const AlertHistoryQuery& query) const {
  if (history_ == nullptr) return Status::Unavailable("the alert history is not open");
  return history_->Query(query);
}

nlohmann::json ApiBackendImpl::Device() const {
  const collectors::DeviceInfo info = collectors::ReadDeviceInfo(fs_);
  return {
      {"hostname", Optional(info.hostname)},
      {"kernel",
       {{"release", Optional(info.kernel_release)}, {"version", Optional(info.kernel_version)}}},
      {"architecture", Optional(info.architecture)},
      {"cpu",
       {{"model", Optional(info.cpu_model)},
        {"cores_present", Optional(info.cpu_cores_present)},
        {"cores_online", Optional(info.cpu_cores_online)}}},
      {"memory_total_bytes", Optional(info.memory_total_bytes)},
      {"uptime_seconds", Optional(info.uptime_seconds)},
      {"board",
       {{"vendor", Optional(info.board_vendor)},
        {"model", Optional(info.board_model)},
        {"compatible", Optional(info.board_compatible)},
        {"revision", Optional(info.board_revision)}}},
      {"soc", Optional(info.soc)},
      {"jetson",
       {{"l4t_release", Optional(info.l4t_release)},
        {"jetpack_version", Optional(info.jetpack_version)}}},
  };
}

Result<std::vector<SeriesInfo>> ApiBackendImpl::ListSeries(
    const std::optional<SeriesSelector>& selector) const {
  return store_.ListSeries(selector);
}

Result<QueryResult> ApiBackendImpl::Query(const RangeQuery& query) const {
  return store_.Query(query);
}

void ApiBackendImpl::AddEvents(std::vector<http::ApiEvent> events) {
  std::lock_guard lock(mu_);
  for (http::ApiEvent& event : events) {
    events_.push_back(std::move(event));
    if (events_.size() > kMaxEvents) events_.pop_front();
  }
}

std::vector<http::ApiEvent> ApiBackendImpl::Events() const {
  std::lock_guard lock(mu_);
  return {events_.begin(), events_.end()};
}

http::Health ApiBackendImpl::GetHealth() const {
  std::lock_guard lock(mu_);
  if (!last_tick_) return {true, false, "waiting for the first collection"};
  // Alive while ticks keep coming: a loop stuck for more than a few intervals (and at least
  // 10 s, so a slow sensor read does not flap the check) is reported unhealthy.
  const auto allowed = std::max<std::chrono::nanoseconds>(interval_ * 5, std::chrono::seconds(10));
  const auto since = clock_.Now() - *last_tick_;
  if (since > allowed) {
    return {false, false,
            "no collection for " +
                std::to_string(std::chrono::duration_cast<std::chrono::seconds>(since).count()) +
                " s"};
  }
  return {true, true, ""};
}

http::StorageState ApiBackendImpl::Storage() const {
  const storage::StoreStats stats = store_.Stats();
  return {stats.newest_stored_ms, stats.head_samples, stats.database_bytes, stats.wal_bytes,
          stats.disk_full};
}

}  // namespace edgemond::daemon
