// ApiBackend: what the HTTP API needs from the rest of the daemon. http/ never links storage or
// collectors; the daemon implements this interface over them.
//
// Thread safety: every method may be called concurrently from the server's threads, while the
// daemon's loop keeps collecting and flushing.

#ifndef EDGEMOND_HTTP_API_BACKEND_H_
#define EDGEMOND_HTTP_API_BACKEND_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/alert.h"
#include "core/benchmark.h"
#include "core/clock.h"
#include "core/query.h"
#include "core/result.h"
#include "core/sample.h"

namespace edgemond::http {

struct Health {
  bool alive = true;   // The loop is ticking.
  bool ready = false;  // Database open and the first collection done.
  std::string detail;  // Why not, when either is false.
};

// The database as the daemon's store sees it, for /metrics: the daemon holds the file against
// other processes (docs/storage.md), so this is how they learn what is written.
struct StorageState {
  std::optional<std::int64_t> newest_stored_ms;  // The newest sample committed; none yet.
  std::size_t pending_samples = 0;               // Collected, not yet written (the head).
  std::int64_t database_bytes = 0;
  std::int64_t wal_bytes = 0;
  bool disk_full = false;  // Writes wait for space; the pending samples are kept in memory.
};

// Something that happened on the device, for GET /api/v1/events ("the CPU became
// frequency-capped"). `kind` names the family ("throttle"), `state` the transition ("started",
// "ended"), `labels` the details ({component: "cpu", reason: "frequency_cap"}).
struct ApiEvent {
  WallTime at;
  std::string kind;
  std::string state;
  Labels labels;
};

class ApiBackend {
 public:
  virtual ~ApiBackend() = default;

  // Every sample of the most recent collection, including missing values with their reasons and
  // the collectors' self-metrics. Empty (never null) before the first collection.
  virtual std::shared_ptr<const std::vector<Sample>> Latest() const = 0;

  // Host and board identity for GET /api/v1/device, already as JSON.
  virtual nlohmann::json Device() const = 0;

  // Series catalog; all series when `selector` is empty.
  virtual Result<std::vector<SeriesInfo>> ListSeries(
      const std::optional<SeriesSelector>& selector) const = 0;

  virtual Result<QueryResult> Query(const RangeQuery& query) const = 0;

  virtual Health GetHealth() const = 0;

  virtual StorageState Storage() const = 0;

  // Alerts pending or firing after the most recent collection, sorted by rule then labels.
  virtual std::vector<ActiveAlert> ActiveAlerts() const = 0;

  // Stored alert transitions, newest first (GET /api/v1/alerts/history).
  virtual Result<std::vector<AlertTransition>> AlertHistory(
      const AlertHistoryQuery& query) const = 0;

  // The loaded alert rules, each as a rules file spells it (GET /api/v1/alerts/rules).
  virtual nlohmann::json AlertRules() const = 0;

  // Every built-in collector and its health after the last tick, already as JSON (GET
  // /api/v1/collectors): [{"collector", "state", "reason"}].
  virtual nlohmann::json Collectors() const = 0;
  // Recent events, oldest first (bounded by the daemon).
  virtual std::vector<ApiEvent> Events() const = 0;

  // Self-benchmarks (docs/selfbench.md): every configured model, its latest run and baselines.
  virtual Result<std::vector<ModelBenchmarkState>> Benchmarks() const = 0;

  // A model's runs, newest first. kNotFound for a model that is neither configured nor has runs.
  virtual Result<std::vector<BenchmarkRun>> BenchmarkHistory(
      const BenchmarkHistoryQuery& query) const = 0;

  // One run, under way or finished. kNotFound when there is no such run.
  virtual Result<BenchmarkRun> BenchmarkRunById(std::int64_t id) const = 0;

  // Asks the daemon to benchmark `model` now and returns the accepted run (status running, with
  // its id); the run itself happens in the daemon's loop. kNotFound for a model that is not
  // configured; kFailedPrecondition while another run is under way or when the model is disabled.
  // Const like every method here: the backend is the daemon's window, the request goes through it.
  virtual Result<BenchmarkRun> StartBenchmark(const std::string& model) const = 0;
};

}  // namespace edgemond::http

#endif  // EDGEMOND_HTTP_API_BACKEND_H_
