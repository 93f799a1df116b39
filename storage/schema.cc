#include "storage/schema.h"

#include <array>
#include <cstdio>
#include <map>
#include <string>

#include "storage/block.h"
#include "storage/block_table.h"
#include "storage/sqlite/statement.h"
#include "storage/sqlite/transaction.h"
#include "storage/tier.h"

namespace edgemond::storage {

namespace {

// v1, the foundation layout. Why each choice: docs/adr/0001-storage-v1-layout.md.
Status CreateV1(sqlite::Database& db) {
  return db.Execute(R"sql(
    -- The series catalog. `labels` is the canonical label text (storage/label_text.h), so that
    -- name || '{' || labels || '}' is the series key.
    CREATE TABLE series (
      id     INTEGER PRIMARY KEY,
      name   TEXT NOT NULL,
      labels TEXT NOT NULL,
      unit   TEXT NOT NULL,
      type   TEXT NOT NULL CHECK (type IN ('gauge', 'counter')),
      UNIQUE (name, labels)
    );
    -- Oldest and newest stored sample of each series, in ms since the epoch. A table of its own
    -- so that the update every flush makes dirties one small page, not the catalog's pages.
    CREATE TABLE series_extent (
      series_id INTEGER PRIMARY KEY,
      first_ms  INTEGER NOT NULL,
      last_ms   INTEGER NOT NULL
    );
    -- One row per sample that has a value; ts in ms since the epoch. Time-major clustered key:
    -- a flush appends at the right edge of the B-tree and retention trims its left edge.
    CREATE TABLE samples (
      ts        INTEGER NOT NULL,
      series_id INTEGER NOT NULL,
      value     REAL NOT NULL,
      PRIMARY KEY (ts, series_id)
    ) WITHOUT ROWID;
  )sql");
}

// v2, compressed blocks in three tiers. Why: docs/adr/0002-storage-v2-blocks.md. The samples
// of a v1 database become raw blocks of ten minutes each, read in one ordered scan of the
// time-major samples table; the store builds the rollup tiers from them when it opens.
constexpr std::int64_t kMigratedBlockMs = 600'000;

Status CreateV2(sqlite::Database& db) {
  for (const TierSpec& spec : kTiers) {
    EDGEMOND_RETURN_IF_ERROR(
        db.Execute("CREATE TABLE " + std::string(spec.table) +
                   " (t0 INTEGER PRIMARY KEY, t1 INTEGER NOT NULL, points INTEGER NOT NULL, "
                   "data BLOB NOT NULL)"));
  }
  BlockTable raw(db, SpecOf(Tier::kRaw));
  std::map<std::int64_t, SeriesPoints> window;
  std::int64_t window_start = INT64_MIN;
  const auto write = [&]() -> Status {
    BlockEncoder encoder(kRawColumns);
    for (const auto& [id, points] : window) encoder.Add(id, points);
    if (encoder.empty()) return Status::Ok();
    const BlockRow row{encoder.first_ms(), encoder.last_ms(),
                       static_cast<std::int64_t>(encoder.points())};
    EDGEMOND_RETURN_IF_ERROR(raw.Insert(row, encoder.Finish()));
    window.clear();
    return Status::Ok();
  };
  {
    EDGEMOND_ASSIGN_OR_RETURN(sqlite::Statement select,
                              db.Prepare("SELECT ts, series_id, value FROM samples ORDER BY ts"));
    while (true) {
      EDGEMOND_ASSIGN_OR_RETURN(const bool has_row, select.Step());
      if (!has_row) break;
      const std::int64_t ts = select.ColumnInt64(0);
      const std::int64_t start = AlignDown(ts, kMigratedBlockMs);
      if (start != window_start) {
        EDGEMOND_RETURN_IF_ERROR(write());
        window_start = start;
      }
      SeriesPoints& points = window[select.ColumnInt64(1)];
      points.timestamps.push_back(ts);
      points.columns[0].push_back(select.ColumnDouble(2));
    }
    EDGEMOND_RETURN_IF_ERROR(write());
  }
  return db.Execute("DROP TABLE samples");
}

// v3, the alert history (storage/alert_history.h): every alert transition, kept for
// GET /api/v1/alerts/history and for restoring firing alerts after a restart. Databases written
// by edgemond 0.1 (schema version 1) may already have this table, created by the alert history
// itself before it became a migration, with this exact definition and its rows: IF NOT EXISTS
// keeps them.
Status CreateAlertHistory(sqlite::Database& db) {
  return db.Execute(R"sql(
    CREATE TABLE IF NOT EXISTS alert_history (
      id              INTEGER PRIMARY KEY,
      at_ms           INTEGER NOT NULL,
      rule            TEXT NOT NULL,
      labels          TEXT NOT NULL,  -- storage/label_text.h form, as the series catalog
      state           TEXT NOT NULL CHECK (state IN ('firing', 'resolved')),
      severity        TEXT NOT NULL,
      value           REAL,           -- NULL when missing data caused the transition
      op              TEXT NOT NULL,
      threshold       REAL NOT NULL,
      clear_threshold REAL NOT NULL,
      active_since_ms INTEGER NOT NULL,
      reason          TEXT NOT NULL,
      rule_labels     TEXT NOT NULL,
      annotations     TEXT NOT NULL   -- label_text form too: name="rendered text",...
    );
    CREATE INDEX IF NOT EXISTS alert_history_at ON alert_history (at_ms);
    CREATE INDEX IF NOT EXISTS alert_history_alert ON alert_history (rule, labels, id);
  )sql");
}

// v4, the self-benchmark runs (storage/benchmark_runs.h): one row per run, with the power
// sources and the readings of each run in tables of their own.
Status CreateBenchmarkRuns(sqlite::Database& db) {
  return db.Execute(R"sql(CREATE TABLE benchmark_runs (
  id INTEGER PRIMARY KEY,
  model TEXT NOT NULL,
  trigger TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed')),
  error TEXT NOT NULL,
  started_ms INTEGER NOT NULL,
  finished_ms INTEGER,
  model_path TEXT NOT NULL,
  settings TEXT NOT NULL,
  threads INTEGER NOT NULL,
  warmup_runs INTEGER NOT NULL,
  model_bytes INTEGER,
  parameters INTEGER,
  flops INTEGER,
  precision TEXT NOT NULL,
  load_ms REAL,
  warmup_ms REAL,
  runs INTEGER,
  window_start_ms INTEGER,
  window_end_ms INTEGER,
  window_seconds REAL,
  latency_min_ms REAL,
  latency_mean_ms REAL,
  latency_p50_ms REAL,
  latency_p90_ms REAL,
  latency_p99_ms REAL,
  latency_max_ms REAL,
  throughput_per_second REAL,
  peak_rss_bytes INTEGER,
  arena_bytes INTEGER,
  exit_code INTEGER,
  signal INTEGER,
  cpu_seconds REAL,
  energy_method TEXT NOT NULL,
  energy_missing_reason TEXT NOT NULL,
  idle_watts REAL,
  average_watts REAL,
  peak_watts REAL,
  energy_joules REAL,
  energy_per_inference_joules REAL,
  energy_above_idle_per_inference_joules REAL,
  inferences_per_joule REAL,
  gflops_per_second REAL,
  gflops_per_watt REAL,
  power_mode TEXT NOT NULL,
  throttled INTEGER NOT NULL,
  throttle_reasons TEXT NOT NULL,
  max_temperature_start_celsius REAL,
  max_temperature_end_celsius REAL,
  cpu_frequency_start_hertz REAL,
  cpu_frequency_end_hertz REAL,
  gpu_frequency_start_hertz REAL,
  gpu_frequency_end_hertz REAL,
  cpu_cores INTEGER,
  system_cpu_utilization REAL,
  other_cpu_utilization REAL,
  outputs_match INTEGER CHECK (outputs_match IN (0, 1)),
  max_abs_error REAL,
  top1_match INTEGER CHECK (top1_match IN (0, 1)),
  regressions TEXT NOT NULL,
  hints TEXT NOT NULL,
  baseline_runs INTEGER NOT NULL,
  baseline_latency_p50_ms REAL,
  baseline_energy_per_inference_joules REAL,
  baseline_peak_rss_bytes REAL
);
CREATE INDEX benchmark_runs_model ON benchmark_runs (model, started_ms);
CREATE INDEX benchmark_runs_started ON benchmark_runs (started_ms);
-- The power sources of a run over its timed window, in the order the run lists them.
CREATE TABLE benchmark_run_power (
  run_id        INTEGER NOT NULL,
  position      INTEGER NOT NULL,
  kind          TEXT NOT NULL,
  name          TEXT NOT NULL,
  method        TEXT NOT NULL,
  average_watts REAL,
  peak_watts    REAL,
  energy_joules REAL,
  PRIMARY KEY (run_id, position)
) WITHOUT ROWID;
-- Temperatures and clocks at the start and the end of a run.
CREATE TABLE benchmark_run_readings (
  run_id   INTEGER NOT NULL,
  position INTEGER NOT NULL,
  metric   TEXT NOT NULL,
  labels   TEXT NOT NULL,  -- storage/label_text.h form, as the series catalog
  at_start REAL,
  at_end   REAL,
  PRIMARY KEY (run_id, position)
) WITHOUT ROWID;
)sql");
}

constexpr std::array<Migration, 4> kMigrations = {{
    {1, "series catalog, extents and time-major samples", &CreateV1},
    {2, "compressed blocks in raw, 1-minute and 1-hour tiers", &CreateV2},
    {kAlertHistorySchemaVersion, "alert history", &CreateAlertHistory},
    {kBenchmarkRunsSchemaVersion, "self-benchmark runs", &CreateBenchmarkRuns},
}};

std::string Hex(std::int64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "0x%08llx",
                static_cast<unsigned long long>(static_cast<std::uint32_t>(value)));
  return buffer;
}

Status ValidateMigrations(std::span<const Migration> migrations) {
  for (std::size_t i = 0; i < migrations.size(); ++i) {
    if (migrations[i].to_version != static_cast<int>(i) + 1 || migrations[i].apply == nullptr) {
      return Status::Internal("schema migrations must be numbered 1, 2, 3, ... without gaps");
    }
  }
  return Status::Ok();
}

}  // namespace

std::span<const Migration> BuiltinMigrations() { return kMigrations; }

int CurrentSchemaVersion() { return kMigrations.back().to_version; }

Result<int> CheckSchema(sqlite::Database& db, std::span<const Migration> migrations) {
  EDGEMOND_RETURN_IF_ERROR(ValidateMigrations(migrations));
  const int newest = migrations.empty() ? 0 : migrations.back().to_version;
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t application_id,
                            db.QueryInt64("PRAGMA application_id"));
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t version, db.QueryInt64("PRAGMA user_version"));
  const std::string& path = db.path();
  if (application_id != 0 && application_id != kApplicationId) {
    return Status::FailedPrecondition("database " + path +
                                      " belongs to another application (application_id " +
                                      Hex(application_id) + "); refusing to use it");
  }
  if (version > newest) {
    return Status::FailedPrecondition(
        "database " + path + " has schema version " + std::to_string(version) +
        ", newer than this edgemond understands (" + std::to_string(newest) +
        "): it was written by a newer edgemond; upgrade edgemond or use another database path");
  }
  if (version < 0 || (version > 0 && application_id != kApplicationId)) {
    return Status::FailedPrecondition("database " + path + " has user_version " +
                                      std::to_string(version) +
                                      " but is not an edgemond database; refusing to use it");
  }
  if (version == 0) {
    EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t objects,
                              db.QueryInt64("SELECT count(*) FROM sqlite_master"));
    if (objects > 0) {
      return Status::FailedPrecondition(
          "database " + path +
          " already has tables but no edgemond schema version: it is not an edgemond "
          "database; refusing to modify it");
    }
  }
  return static_cast<int>(version);
}

Status PrepareEmptyDatabase(sqlite::Database& db) {
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t pages, db.QueryInt64("PRAGMA page_count"));
  if (pages > 0) return Status::Ok();
  // 4 KiB pages match the flash page and the kernel page; INCREMENTAL auto-vacuum lets retention
  // give space back (PRAGMA incremental_vacuum) without a full VACUUM rewriting the file.
  return db.Execute("PRAGMA page_size=4096; PRAGMA auto_vacuum=INCREMENTAL");
}

Status Migrate(sqlite::Database& db, std::span<const Migration> migrations) {
  EDGEMOND_ASSIGN_OR_RETURN(int version, CheckSchema(db, migrations));
  for (const Migration& migration : migrations) {
    if (migration.to_version <= version) continue;
    sqlite::Transaction transaction(db, sqlite::Transaction::Mode::kImmediate);
    EDGEMOND_RETURN_IF_ERROR(transaction.Begin());
    // Another process may have migrated while we waited for the write lock.
    EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t current, db.QueryInt64("PRAGMA user_version"));
    if (current >= migration.to_version) {
      version = static_cast<int>(current);
      continue;
    }
    const std::string context = "migrating database " + db.path() + " to schema version " +
                                std::to_string(migration.to_version) + " (" +
                                std::string(migration.description) + ")";
    if (current == 0) {
      EDGEMOND_RETURN_IF_ERROR(
          db.Execute("PRAGMA application_id=" + std::to_string(kApplicationId)));
    }
    Status status = migration.apply(db);
    if (status.ok()) {
      status = db.Execute("PRAGMA user_version=" + std::to_string(migration.to_version));
    }
    if (status.ok()) status = transaction.Commit();
    if (!status.ok()) return status.WithContext(context);
    version = migration.to_version;
  }
  return Status::Ok();
}

}  // namespace edgemond::storage
