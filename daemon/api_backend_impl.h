// The daemon's implementation of http::ApiBackend: the latest collection (swapped in by the loop
// after every tick), device identity read on demand, and queries answered by the store.
//
// Thread safety: the Set*/Publish* calls come from the loop thread; everything else from the HTTP
// threads. The latest snapshot is an immutable vector behind a shared_ptr swapped under
// a mutex, so readers never copy it while holding the lock.

#ifndef EDGEMOND_DAEMON_API_BACKEND_IMPL_H_
#define EDGEMOND_DAEMON_API_BACKEND_IMPL_H_

#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "core/clock.h"
#include "core/rooted_fs.h"
#include "http/api_backend.h"
#include "storage/alert_history.h"
#include "storage/store.h"

namespace edgemond::daemon {

class SelfbenchController;

class ApiBackendImpl final : public http::ApiBackend {
 public:
  // All references are borrowed and must outlive this object.
  ApiBackendImpl(const RootedFs& fs, storage::Store& store, const Clock& clock,
                 std::chrono::nanoseconds interval)
      : fs_(fs), store_(store), clock_(clock), interval_(interval) {}

  std::shared_ptr<const std::vector<Sample>> Latest() const override;
  nlohmann::json Device() const override;
  Result<std::vector<SeriesInfo>> ListSeries(
      const std::optional<SeriesSelector>& selector) const override;
  Result<QueryResult> Query(const RangeQuery& query) const override;
  http::Health GetHealth() const override;
  http::StorageState Storage() const override;
  std::vector<ActiveAlert> ActiveAlerts() const override;
  Result<std::vector<AlertTransition>> AlertHistory(const AlertHistoryQuery& query) const override;
  nlohmann::json AlertRules() const override;
  nlohmann::json Collectors() const override;
  std::vector<http::ApiEvent> Events() const override;
  Result<std::vector<ModelBenchmarkState>> Benchmarks() const override;
  Result<std::vector<BenchmarkRun>> BenchmarkHistory(
      const BenchmarkHistoryQuery& query) const override;
  Result<BenchmarkRun> BenchmarkRunById(std::int64_t id) const override;
  Result<BenchmarkRun> StartBenchmark(const std::string& model) const override;

  // Publishes a finished tick: its samples (edgemond_alert_firing among them) and the alerts
  // pending or firing after it, together, so that a reader never sees one without the other and
  // /readyz turns ready only once both are there.
  void PublishTick(std::vector<Sample> samples, std::vector<ActiveAlert> alerts);
  void SetInterval(std::chrono::nanoseconds interval);
  // Publishes the alerts pending or firing after a change between ticks (a self-benchmark, a
  // reload).
  void SetActiveAlerts(std::vector<ActiveAlert> alerts);
  // Publishes the loaded rules (as JSON) after startup and every reload.
  void SetAlertRules(nlohmann::json rules);
  // Publishes the collectors' health (as JSON) after a runner's first tick and when it changes.
  void SetCollectors(nlohmann::json collectors);
  // `history` is borrowed and must outlive this object; null until set.
  void SetAlertHistory(storage::AlertHistory* history);
  // `selfbench` is borrowed and must outlive this object; null until set (the benchmark endpoints
  // then answer 503).
  void SetSelfbench(SelfbenchController* selfbench);
  // Appends events, keeping the most recent kMaxEvents.
  void AddEvents(std::vector<http::ApiEvent> events);

  static constexpr std::size_t kMaxEvents = 512;

 private:
  const RootedFs& fs_;
  storage::Store& store_;
  const Clock& clock_;

  mutable std::mutex mu_;
  std::shared_ptr<const std::vector<Sample>> latest_ =
      std::make_shared<const std::vector<Sample>>();  // Guarded by mu_.
  std::optional<SteadyTime> last_tick_;               // Guarded by mu_.
  std::chrono::nanoseconds interval_;                 // Guarded by mu_.
  std::shared_ptr<const std::vector<ActiveAlert>> alerts_ =
      std::make_shared<const std::vector<ActiveAlert>>();  // Guarded by mu_.
  std::shared_ptr<const nlohmann::json> rules_ =
      std::make_shared<const nlohmann::json>(nlohmann::json::array());  // Guarded by mu_.
  std::shared_ptr<const nlohmann::json> collectors_ =
      std::make_shared<const nlohmann::json>(nlohmann::json::array());  // Guarded by mu_.
  storage::AlertHistory* history_ = nullptr;  // Set before serving; the history is thread-safe.
  SelfbenchController* selfbench_ = nullptr;  // Set before serving; its API side is thread-safe.
  std::deque<http::ApiEvent> events_;         // Guarded by mu_.
};

}  // namespace edgemond::daemon

#endif  // EDGEMOND_DAEMON_API_BACKEND_IMPL_H_
