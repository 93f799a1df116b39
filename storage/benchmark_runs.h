// BenchmarkRuns: every self-benchmark run (core/benchmark.h), kept in the daemon's SQLite database
// with a retention of its own, for GET /api/v1/benchmarks*, for the models' baselines and for the
// schedule across restarts.
//
// Three tables, created by the store's numbered migrations (storage/schema.h, version 4) and used
// through a connection of their own:
//   benchmark_runs           one row per run: every scalar result in a column of its own, so the
//                            file answers `sqlite3 edgemond.db 'SELECT model, latency_p50_ms,
//                            energy_per_inference_joules FROM benchmark_runs'`
//   benchmark_run_power      the run's power sources (one row each)
//   benchmark_run_readings   the temperatures and clocks at its start and end (one row each)
// The column list is one table in benchmark_runs.cc that drives the CREATE, the INSERT and the
// SELECT; docs/selfbench.md documents every column. A run is inserted when it is accepted
// (status "running") and rewritten once when it finishes. Runs have a retention of their own
// (EnforceRetention), independent of the samples' tiers.
//
// Thread safety: every method may be called from any thread; calls are serialized internally.

#ifndef EDGEMOND_STORAGE_BENCHMARK_RUNS_H_
#define EDGEMOND_STORAGE_BENCHMARK_RUNS_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/benchmark.h"
#include "core/result.h"
#include "core/status.h"
#include "storage/sqlite/database.h"
#include "storage/sqlite/statement.h"

namespace edgemond::storage {

class BenchmarkRuns final {
 public:
  // Opens the runs in the database at `path`, which SqliteStore::Open() has created or migrated
  // to schema version 4 or later (kFailedPrecondition otherwise).
  static Result<std::unique_ptr<BenchmarkRuns>> Open(const std::string& path);

  BenchmarkRuns(const BenchmarkRuns&) = delete;
  BenchmarkRuns& operator=(const BenchmarkRuns&) = delete;

  // Stores a new run (run.id is ignored) and returns its id.
  Result<std::int64_t> Insert(const BenchmarkRun& run);

  // Rewrites the run with run.id, its power sources and readings included. kNotFound when there
  // is no such run.
  Status Update(const BenchmarkRun& run);

  // kNotFound when there is no such run.
  Result<BenchmarkRun> Get(std::int64_t id);

  // Runs of query.model started in [from_ms, to_ms], newest first, at most query.limit.
  Result<std::vector<BenchmarkRun>> History(const BenchmarkHistoryQuery& query);

  // The latest finished run of each model, and of each model its latest successful one.
  struct Latest {
    std::optional<BenchmarkRun> finished;
    std::optional<BenchmarkRun> succeeded;
  };
  Result<Latest> LatestOf(const std::string& model);

  // The newest `limit` good runs (succeeded, outputs not mismatched) of `model` in `power_mode`
  // that started before `before_id` (0: any), newest first: the baseline's runs.
  Result<std::vector<BenchmarkRun>> GoodRuns(const std::string& model,
                                             const std::string& power_mode, std::size_t limit,
                                             std::int64_t before_id = 0);

  // The power modes in which `model` has good runs.
  Result<std::vector<std::string>> PowerModes(const std::string& model);

  // When each model's latest run started (for the schedule after a restart).
  Result<std::vector<std::pair<std::string, WallTime>>> LastStarted();

  // Runs still "running" (the daemon stopped or crashed during them) become failed with
  // `error`. Returns how many.
  Result<std::int64_t> FailUnfinished(const std::string& error, WallTime now);

  // Deletes runs that started before `now - retention`, except each model's latest run.
  // Returns how many runs went.
  Result<std::int64_t> EnforceRetention(WallTime now, std::chrono::milliseconds retention);

 private:
  explicit BenchmarkRuns(std::unique_ptr<sqlite::Database> db) : db_(std::move(db)) {}

  Status WriteChildren(const BenchmarkRun& run);
  // Runs matching `where_and_order` ("WHERE model = ? ORDER BY ..."), whose parameters `bind`
  // sets. REQUIRES: mu_ held.
  Result<std::vector<BenchmarkRun>> Select(std::string_view where_and_order,
                                           const std::function<void(sqlite::Statement&)>& bind);
  Status ReadChildren(BenchmarkRun& run);

  std::mutex mu_;
  std::unique_ptr<sqlite::Database> db_;  // Guarded by mu_.
};

}  // namespace edgemond::storage

#endif  // EDGEMOND_STORAGE_BENCHMARK_RUNS_H_
