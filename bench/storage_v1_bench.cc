// Storage v1 benchmark: a simulated day of a ~150-series device at 1 Hz, flushed every 10 s,
// written through several layouts in one run so that they can be compared on the same machine
// at the same moment. Driven by bench/storage_v1.sh; results go to docs/storage.md.
//
// Layouts:
//   store         the real SqliteStore (storage/sqlite_store.h): what edgemond ships.
//   time_major    one row per sample, WITHOUT ROWID, PRIMARY KEY (ts, series_id).
//   series_major  one row per sample, WITHOUT ROWID, PRIMARY KEY (series_id, ts).
// The two raw layouts use the store's settings and flush path (same PRAGMAs, one transaction
// per flush with rows in key order, per-series extents, a passive checkpoint every 1000 WAL
// frames, retention in whole batches (--retention-batch) checked after every flush) and differ
// only in the key and in how retention has to delete (a time-major table is trimmed from its
// front; a series-major one at the start of every series).
//
// Bytes written are /proc/self/io `wchar`: every byte the process handed to write()/pwrite(),
// i.e. WAL frames, checkpoint copies and WAL headers. It excludes the WAL-index (-shm), which
// SQLite updates through mmap. `write_bytes` (bytes the kernel accounted as dirtied page cache)
// is reported too but depends on writeback timing, which a simulated day compressed into
// minutes does not reproduce.

#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/storage_device_sim.h"
#include "core/clock.h"
#include "storage/sqlite/database.h"
#include "storage/sqlite/statement.h"
#include "storage/sqlite/transaction.h"
#include "storage/sqlite_store.h"

namespace edgemond::bench {
namespace {

namespace fs = std::filesystem;
using storage::sqlite::Database;
using storage::sqlite::DatabaseOptions;
using storage::sqlite::Statement;
using storage::sqlite::Transaction;
using Clock = std::chrono::steady_clock;

// 2026-01-01T00:00:00Z, plus 123 ms: a daemon's ticks are not aligned to the second.
constexpr std::int64_t kStartMs = 1767225600123;

struct Options {
  std::string dir;
  int series = 150;
  double hours = 24;
  int flush_seconds = 10;
  double retention_hours = 0;  // 0: longer than the run (nothing expires).
  int query_repeats = 15;
  int checkpoint_frames = 1000;          // The store's checkpoint threshold (StorageOptions).
  std::int64_t retention_batch = 20000;  // Samples per retention batch, every layout.
  std::vector<std::string> layouts = {"store", "time_major", "series_major"};
};

struct IoCounters {
  std::int64_t wchar = 0;
  std::int64_t write_bytes = 0;
  std::int64_t syscw = 0;

  static IoCounters Read() {
    IoCounters io;
    std::ifstream in("/proc/self/io");
    std::string key;
    std::int64_t value = 0;
    while (in >> key >> value) {
      if (key == "wchar:") io.wchar = value;
      if (key == "write_bytes:") io.write_bytes = value;
      if (key == "syscw:") io.syscw = value;
    }
    return io;
  }
  IoCounters operator-(const IoCounters& o) const {
    return {wchar - o.wchar, write_bytes - o.write_bytes, syscw - o.syscw};
  }
  IoCounters operator+(const IoCounters& o) const {
    return {wchar + o.wchar, write_bytes + o.write_bytes, syscw + o.syscw};
  }
};

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

std::string Format(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto index = static_cast<std::size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(index, values.size() - 1)];
}

std::int64_t FileSize(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::int64_t>(st.st_size) : 0;
}

[[noreturn]] void Die(const Status& status, std::string_view what) {
  std::fprintf(stderr, "storage_v1_bench: %.*s: %s\n", static_cast<int>(what.size()), what.data(),
               status.ToString().c_str());
  std::exit(1);
}

template <typename T>
T Check(Result<T> result, std::string_view what) {
  if (!result.ok()) Die(result.status(), what);
  return std::move(result).value();
}
void Check(const Status& status, std::string_view what) {
  if (!status.ok()) Die(status, what);
}

// What one layout run reports.
struct Report {
  std::string layout;
  std::int64_t samples = 0;  // Samples with a value (the rows stored).
  std::int64_t flushes = 0;
  std::int64_t database_bytes = 0;  // After the final clean close (no WAL left).
  IoCounters ingest_io;             // Appends, flushes, retention, checkpoints and close.
  IoCounters retention_io;          // The part written by EnforceRetention calls.
  // Bytes written per sample from 10 minutes after retention starts deleting to the end of the
  // ingest (the steady state of a device that has been up longer than the retention); 0 without
  // retention.
  double steady_written_per_sample = 0;
  double ingest_cpu_s = 0;
  std::vector<double> flush_ms;
  std::vector<double> retention_ms;
  double query_day_ms = 0;    // One series, 24 h, 1,000 points, avg (median of repeats).
  double query_group_ms = 0;  // 13 series by name, last 1 h, 10 s step, max.
  double query_raw_ms = 0;    // One series, last 1 h, raw.
  std::int64_t query_day_points = 0;
  std::int64_t query_group_points = 0;
  std::int64_t query_raw_points = 0;
};

// A queryable, writable layout behind one interface so the driver loop is shared.
class LayoutUnderTest {
 public:
  virtual ~LayoutUnderTest() = default;
  virtual void Append(const std::vector<Reading>& readings) = 0;
  virtual void Flush() = 0;
  virtual void EnforceRetention(std::int64_t now_ms) = 0;
  virtual void Close() = 0;
  virtual void Reopen() = 0;
  // Returns the number of points produced.
  virtual std::int64_t QueryOne(int series, std::int64_t from_ms, std::int64_t to_ms,
                                std::int64_t step_ms) = 0;
  virtual std::int64_t QueryGroup(std::int64_t from_ms, std::int64_t to_ms,
                                  std::int64_t step_ms) = 0;
};

// --- The real store --------------------------------------------------------------------------

class StoreLayout final : public LayoutUnderTest {
 public:
  StoreLayout(const DeviceSimulator& sim, storage::StorageOptions options)
      : sim_(sim), options_(std::move(options)) {
    Reopen();
  }
  void Append(const std::vector<Reading>& readings) override {
    Check(store_->Append(sim_.ToSamples(readings)), "append");
  }
  void Flush() override { Check(store_->Flush(), "flush"); }
  void EnforceRetention(std::int64_t now_ms) override {
    Check(store_->EnforceRetention(FromUnixMillis(now_ms)), "retention");
  }
  void Close() override { store_.reset(); }
  void Reopen() override {
    store_ = Check(storage::SqliteStore::Open(options_), "opening the store");
  }
  std::int64_t QueryOne(int series, std::int64_t from_ms, std::int64_t to_ms,
                        std::int64_t step_ms) override {
    // The series' full label set selects exactly it.
    RangeQuery query;
    const SimulatedSeries& s = sim_.series()[static_cast<std::size_t>(series)];
    query.selector.name = std::string(s.desc->name);
    for (const Label& label : s.labels) {
      query.selector.matchers.push_back({label.name, LabelMatcher::Op::kEqual, label.value});
    }
    return Run(query, from_ms, to_ms, step_ms, Aggregation::kAvg);
  }
  std::int64_t QueryGroup(std::int64_t from_ms, std::int64_t to_ms, std::int64_t step_ms) override {
    RangeQuery query;
    query.selector.name = "edgemond_cpu_utilization_ratio";
    return Run(query, from_ms, to_ms, step_ms, Aggregation::kMax);
  }

 private:
  // Returns the number of points that have a value.
  std::int64_t Run(RangeQuery& query, std::int64_t from_ms, std::int64_t to_ms,
                   std::int64_t step_ms, Aggregation aggregation) {
    query.from_ms = from_ms;
    query.to_ms = to_ms;
    query.step_ms = step_ms;
    query.aggregation = aggregation;
    const auto result = Check(store_->Query(query), "query");
    std::int64_t points = 0;
    for (const auto& series : result.series) {
      for (const Point& point : series.points) points += point.value.has_value() ? 1 : 0;
    }
    return points;
  }

  const DeviceSimulator& sim_;
  const storage::StorageOptions options_;
  std::unique_ptr<storage::SqliteStore> store_;
};

// --- Raw one-row-per-sample layouts ----------------------------------------------------------

class RawLayout final : public LayoutUnderTest {
 public:
  RawLayout(std::string path, bool time_major, int series, std::int64_t retention_ms,
            std::int64_t retention_batch)
      : path_(std::move(path)),
        time_major_(time_major),
        series_(series),
        retention_ms_(retention_ms),
        retention_batch_(retention_batch) {
    // As the store does: auto_vacuum must be chosen before WAL is switched on (in Reopen).
    OpenConnection();
    Check(db_->Execute("PRAGMA page_size=4096; PRAGMA auto_vacuum=INCREMENTAL"), "auto_vacuum");
    Configure();
    Check(db_->Execute(std::string("CREATE TABLE series(id INTEGER PRIMARY KEY);"
                                   "CREATE TABLE series_extent(series_id INTEGER PRIMARY KEY, "
                                   "first_ms INTEGER NOT NULL, last_ms INTEGER NOT NULL);"
                                   "CREATE TABLE samples(ts INTEGER NOT NULL, series_id INTEGER "
                                   "NOT NULL, value REAL NOT NULL, PRIMARY KEY ") +
                       (time_major_ ? "(ts, series_id)" : "(series_id, ts)") + ") WITHOUT ROWID"),
          "schema");
    for (int i = 0; i < series_; ++i) {
      Check(db_->Execute("INSERT INTO series VALUES (" + std::to_string(i + 1) + ")"), "series");
    }
  }

  void Append(const std::vector<Reading>& readings) override {
    for (const Reading& r : readings) {
      if (r.value) head_.push_back({r.at_ms, r.series + 1, *r.value});
    }
  }

  void Flush() override {
    if (head_.empty()) return;
    // Rows in key order, as the store writes them.
    std::sort(head_.begin(), head_.end(), [this](const Row& a, const Row& b) {
      return time_major_ ? std::tie(a.ts, a.id) < std::tie(b.ts, b.id)
                         : std::tie(a.id, a.ts) < std::tie(b.id, b.ts);
    });
    Transaction transaction(*db_, Transaction::Mode::kImmediate);
    Check(transaction.Begin(), "begin");
    {
      auto insert =
          Check(db_->GetCachedStatement("INSERT OR REPLACE INTO samples(ts, series_id, value) "
                                        "VALUES (?, ?, ?)"),
                "prepare insert");
      for (const Row& row : head_) {
        insert.BindInt64(0, row.ts);
        insert.BindInt64(1, row.id);
        insert.BindDouble(2, row.value);
        Check(insert.Run(), "insert");
        insert.Reset();
      }
    }
    std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> extents;
    for (const Row& row : head_) {
      auto [it, inserted] = extents.try_emplace(row.id, row.ts, row.ts);
      it->second.first = std::min(it->second.first, row.ts);
      it->second.second = std::max(it->second.second, row.ts);
    }
    {
      auto upsert =
          Check(db_->GetCachedStatement("INSERT INTO series_extent(series_id, first_ms, last_ms) "
                                        "VALUES (?, ?, ?) ON CONFLICT(series_id) DO UPDATE SET "
                                        "first_ms = min(first_ms, excluded.first_ms), "
                                        "last_ms = max(last_ms, excluded.last_ms)"),
                "prepare extent");
      for (const auto& [id, extent] : extents) {
        upsert.BindInt64(0, id);
        upsert.BindInt64(1, extent.first);
        upsert.BindInt64(2, extent.second);
        Check(upsert.Run(), "extent");
        upsert.Reset();
      }
    }
    Check(transaction.Commit(), "commit");
    head_.clear();
    if (db_->wal_frames() >= 1000) {
      Check(db_->Checkpoint(Database::CheckpointMode::kPassive).status(), "checkpoint");
    }
  }

  void EnforceRetention(std::int64_t now_ms) override {
    if (retention_ms_ <= 0) return;
    const std::int64_t cutoff = now_ms - retention_ms_;
    // The store's policy: once a whole batch has expired, delete it.
    const std::int64_t batch = retention_batch_;
    std::int64_t batch_end = 0;
    if (time_major_) {
      auto select = Check(db_->GetCachedStatement("SELECT ts FROM samples WHERE ts < ? ORDER BY "
                                                  "ts LIMIT 1 OFFSET ?"),
                          "prepare batch end");
      select.BindInt64(0, cutoff);
      select.BindInt64(1, batch - 1);
      if (!Check(select.Step(), "batch end")) return;
      batch_end = select.ColumnInt64(0);
    } else {
      // No index on ts alone: find the batch by arithmetic (one sample per series per second).
      if (oldest_ms_ == 0) oldest_ms_ = kStartMs;
      batch_end = oldest_ms_ + std::max<std::int64_t>(batch / series_, 1) * 1000 - 1;
      if (batch_end >= cutoff) return;
      oldest_ms_ = batch_end + 1;
    }
    Transaction transaction(*db_, Transaction::Mode::kImmediate);
    Check(transaction.Begin(), "begin");
    if (time_major_) {
      // The oldest samples are the left edge of the table.
      auto erase =
          Check(db_->GetCachedStatement("DELETE FROM samples WHERE ts <= ?"), "prepare delete");
      erase.BindInt64(0, batch_end);
      Check(erase.Run(), "delete");
    } else {
      // Series-major keys keep each series' oldest samples at the start of its own key range:
      // the same batch touches pages in every series.
      auto erase =
          Check(db_->GetCachedStatement("DELETE FROM samples WHERE series_id = ? AND ts <= ?"),
                "prepare delete");
      for (int id = 1; id <= series_; ++id) {
        erase.BindInt64(0, id);
        erase.BindInt64(1, batch_end);
        Check(erase.Run(), "delete");
        erase.Reset();
      }
    }
    Check(transaction.Commit(), "commit");
  }

  void Close() override { db_.reset(); }

  void Reopen() override {
    OpenConnection();
    Configure();
  }

  std::int64_t QueryOne(int series, std::int64_t from_ms, std::int64_t to_ms,
                        std::int64_t step_ms) override {
    auto select = Check(db_->GetCachedStatement("SELECT ts, value FROM samples WHERE series_id = "
                                                "? AND ts BETWEEN ? AND ? ORDER BY ts"),
                        "prepare query");
    select.BindInt64(0, series + 1);
    select.BindInt64(1, from_ms);
    select.BindInt64(2, to_ms);
    std::vector<double> sums;
    std::vector<int> counts;
    const auto buckets =
        static_cast<std::size_t>((to_ms - from_ms) / std::max<std::int64_t>(step_ms, 1) + 1);
    sums.assign(buckets, 0);
    counts.assign(buckets, 0);
    std::int64_t raw = 0;
    while (Check(select.Step(), "step")) {
      const std::int64_t ts = select.ColumnInt64(0);
      ++raw;
      if (step_ms == 0) continue;
      const auto bucket = static_cast<std::size_t>((ts - from_ms) / step_ms);
      sums[bucket] += select.ColumnDouble(1);
      ++counts[bucket];
    }
    if (step_ms == 0) return raw;
    return std::count_if(counts.begin(), counts.end(), [](int c) { return c > 0; });
  }

  std::int64_t QueryGroup(std::int64_t from_ms, std::int64_t to_ms, std::int64_t step_ms) override {
    // The CPU utilization series are ids 1..13 in the simulator.
    auto select = Check(db_->GetCachedStatement(
                            "SELECT ts, series_id, value FROM samples WHERE series_id BETWEEN 1 "
                            "AND 13 AND ts BETWEEN ? AND ? ORDER BY ts"),
                        "prepare group query");
    select.BindInt64(0, from_ms);
    select.BindInt64(1, to_ms);
    std::map<std::pair<std::int64_t, std::int64_t>, double> max_by_bucket;
    while (Check(select.Step(), "step")) {
      const auto key =
          std::make_pair(select.ColumnInt64(1), (select.ColumnInt64(0) - from_ms) / step_ms);
      auto [it, inserted] = max_by_bucket.try_emplace(key, select.ColumnDouble(2));
      it->second = std::max(it->second, select.ColumnDouble(2));
    }
    return static_cast<std::int64_t>(max_by_bucket.size());
  }

 private:
  struct Row {
    std::int64_t ts;
    std::int64_t id;
    double value;
  };

  void OpenConnection() {
    DatabaseOptions options;
    options.manual_checkpoints = true;
    db_ = Check(Database::Open(path_, options), "open");
  }

  void Configure() {
    Check(db_->QueryString("PRAGMA journal_mode=WAL").status(), "wal");
    Check(db_->Execute("PRAGMA synchronous=NORMAL; PRAGMA journal_size_limit=4194304;"
                       "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-1024"),
          "pragmas");
  }

  const std::string path_;
  const bool time_major_;
  const int series_;
  const std::int64_t retention_ms_;
  const std::int64_t retention_batch_;
  std::int64_t oldest_ms_ = 0;  // Series-major retention: start of the oldest batch.
  std::unique_ptr<Database> db_;
  std::vector<Row> head_;
};

// --- Driver ----------------------------------------------------------------------------------

Report Run(const Options& options, const std::string& layout) {
  Report report;
  report.layout = layout;
  const std::string dir = options.dir + "/" + layout;
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = dir + "/edgemond.db";
  const auto retention_ms = static_cast<std::int64_t>(options.retention_hours * 3600e3);

  DeviceSimulator sim(options.series, /*seed=*/20260101);
  const IoCounters io_before = IoCounters::Read();
  const double cpu_before = CpuSeconds();
  std::unique_ptr<LayoutUnderTest> target;
  if (layout == "store") {
    storage::StorageOptions store_options;
    store_options.path = path;
    store_options.flush_interval = std::chrono::seconds(options.flush_seconds);
    if (retention_ms > 0) store_options.retention = std::chrono::milliseconds(retention_ms);
    store_options.checkpoint_wal_frames = options.checkpoint_frames;
    store_options.retention_batch_samples = options.retention_batch;
    target = std::make_unique<StoreLayout>(sim, store_options);
  } else if (layout == "time_major" || layout == "series_major") {
    target = std::make_unique<RawLayout>(path, layout == "time_major", options.series, retention_ms,
                                         options.retention_batch);
  } else {
    std::fprintf(stderr, "unknown layout %s\n", layout.c_str());
    std::exit(2);
  }

  const auto ticks = static_cast<std::int64_t>(options.hours * 3600);
  const std::int64_t steady_tick = retention_ms > 0 ? retention_ms / 1000 + 600 : -1;
  IoCounters steady_io;
  std::int64_t steady_samples = 0;
  std::vector<Reading> batch;
  std::int64_t now_ms = kStartMs;
  for (std::int64_t tick = 0; tick < ticks; ++tick) {
    if (tick == steady_tick) {
      steady_io = IoCounters::Read();
      steady_samples = report.samples;
    }
    // A daemon's wall stamps wander by a millisecond or two around its monotonic schedule.
    now_ms = kStartMs + tick * 1000 + (tick * 7919) % 3;
    batch.clear();
    sim.Tick(now_ms, batch);
    for (const Reading& r : batch) report.samples += r.value ? 1 : 0;
    target->Append(batch);
    if ((tick + 1) % options.flush_seconds == 0 || tick + 1 == ticks) {
      auto start = Clock::now();
      target->Flush();
      report.flush_ms.push_back(Ms(Clock::now() - start));
      ++report.flushes;
      start = Clock::now();
      const IoCounters before_retention = IoCounters::Read();
      target->EnforceRetention(now_ms);
      report.retention_io = report.retention_io + (IoCounters::Read() - before_retention);
      report.retention_ms.push_back(Ms(Clock::now() - start));
    }
  }
  if (steady_tick >= 0 && steady_tick < ticks) {
    report.steady_written_per_sample = static_cast<double>((IoCounters::Read() - steady_io).wchar) /
                                       static_cast<double>(report.samples - steady_samples);
  }
  target->Close();
  report.ingest_cpu_s = CpuSeconds() - cpu_before;
  report.ingest_io = IoCounters::Read() - io_before;
  report.database_bytes = FileSize(path) + FileSize(path + "-wal");

  // Queries on a reopened database (the OS page cache is warm: the data was just written).
  target->Reopen();
  const std::int64_t end_ms = now_ms;
  const std::int64_t day_from = end_ms - 24 * 3600 * 1000 + 1;
  const std::int64_t hour_from = end_ms - 3600 * 1000 + 1;
  const int probe_series = 20;  // A thermal zone: changes every reading.
  std::vector<double> day, group, raw;
  for (int i = 0; i < options.query_repeats; ++i) {
    auto start = Clock::now();
    report.query_day_points =
        target->QueryOne(probe_series, day_from, end_ms, (end_ms - day_from) / 1000 + 1);
    day.push_back(Ms(Clock::now() - start));
    start = Clock::now();
    report.query_group_points = target->QueryGroup(hour_from, end_ms, 10000);
    group.push_back(Ms(Clock::now() - start));
    start = Clock::now();
    report.query_raw_points = target->QueryOne(probe_series, hour_from, end_ms, 0);
    raw.push_back(Ms(Clock::now() - start));
  }
  target->Close();
  report.query_day_ms = Percentile(day, 0.5);
  report.query_group_ms = Percentile(group, 0.5);
  report.query_raw_ms = Percentile(raw, 0.5);
  return report;
}

void Print(const Options& options, const std::vector<Report>& reports) {
  std::printf(
      "SQLite %s; series=%d hours=%g flush_seconds=%d retention_hours=%g query_repeats=%d "
      "checkpoint_frames=%d retention_batch=%lld\n\n",
      sqlite3_libversion(), options.series, options.hours, options.flush_seconds,
      options.retention_hours, options.query_repeats, options.checkpoint_frames,
      static_cast<long long>(options.retention_batch));
  std::printf(
      "| layout | samples | on disk B/sample | written B/sample (wchar) | of which retention | "
      "written B/sample, retention active | "
      "write_bytes B/sample | "
      "write syscalls/flush | flush ms p50 / p99 / max | retention ms p50 / max | ingest CPU "
      "us/sample | 1 series, whole run (up to 24 h) -> 1000 pts ms | 13 series 1 h @10 s ms | 1 "
      "series 1 h raw "
      "ms |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Report& r : reports) {
    const double n = static_cast<double>(r.samples);
    std::printf(
        "| %s | %" PRId64
        " | %.1f | %.1f | %.1f | %s | %.1f | %.1f | %.2f / %.2f / %.2f | %.2f / %.2f | "
        "%.2f | %.1f (%" PRId64 " pts) | %.2f (%" PRId64 " pts) | %.2f (%" PRId64 " pts) |\n",
        r.layout.c_str(), r.samples, static_cast<double>(r.database_bytes) / n,
        static_cast<double>(r.ingest_io.wchar) / n, static_cast<double>(r.retention_io.wchar) / n,
        r.steady_written_per_sample > 0 ? Format("%.1f", r.steady_written_per_sample).c_str() : "-",
        static_cast<double>(r.ingest_io.write_bytes) / n,
        static_cast<double>(r.ingest_io.syscw) / static_cast<double>(r.flushes),
        Percentile(r.flush_ms, 0.5), Percentile(r.flush_ms, 0.99), Percentile(r.flush_ms, 1.0),
        Percentile(r.retention_ms, 0.5), Percentile(r.retention_ms, 1.0), r.ingest_cpu_s * 1e6 / n,
        r.query_day_ms, r.query_day_points, r.query_group_ms, r.query_group_points, r.query_raw_ms,
        r.query_raw_points);
  }
  std::fflush(stdout);
}

std::vector<std::string> SplitCommas(std::string_view text) {
  std::vector<std::string> parts;
  while (!text.empty()) {
    const auto comma = text.find(',');
    parts.emplace_back(text.substr(0, comma));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return parts;
}

int Main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--dir") {
      options.dir = value();
    } else if (arg == "--series") {
      options.series = std::atoi(value().c_str());
    } else if (arg == "--hours") {
      options.hours = std::atof(value().c_str());
    } else if (arg == "--flush-seconds") {
      options.flush_seconds = std::atoi(value().c_str());
    } else if (arg == "--retention-hours") {
      options.retention_hours = std::atof(value().c_str());
    } else if (arg == "--query-repeats") {
      options.query_repeats = std::atoi(value().c_str());
    } else if (arg == "--checkpoint-frames") {
      options.checkpoint_frames = std::atoi(value().c_str());
    } else if (arg == "--retention-batch") {
      options.retention_batch = std::atoll(value().c_str());
    } else if (arg == "--layouts") {
      options.layouts = SplitCommas(value());
    } else {
      std::fprintf(stderr,
                   "usage: %s --dir DIR [--series N] [--hours H] [--flush-seconds S] "
                   "[--retention-hours H] [--retention-batch N] [--query-repeats N] "
                   "[--checkpoint-frames N] "
                   "[--layouts store,time_major,"
                   "series_major]\n",
                   argv[0]);
      return 2;
    }
  }
  if (options.dir.empty() || options.series <= 0 || options.hours <= 0 ||
      options.flush_seconds <= 0 || options.query_repeats <= 0 || options.checkpoint_frames <= 0 ||
      options.retention_batch <= 0) {
    std::fprintf(stderr, "--dir is required; counts must be positive\n");
    return 2;
  }
  std::vector<Report> reports;
  for (const std::string& layout : options.layouts) {
    std::fprintf(stderr, "running %s...\n", layout.c_str());
    reports.push_back(Run(options, layout));
  }
  Print(options, reports);
  return 0;
}

}  // namespace
}  // namespace edgemond::bench

int main(int argc, char** argv) { return edgemond::bench::Main(argc, argv); }
