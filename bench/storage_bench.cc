// Storage benchmark: a simulated Jetson-class device (bench/storage_device_sim.h, ~150 series at
// 1 Hz) written through the store (storage v2: compressed blocks, rollup tiers) and, in the same
// run, through storage v1's layout (one row per sample, time-major key) as the baseline. Driven
// by bench/storage.sh; results go to docs/storage.md with the command that produced them.
//
// Two runs:
//   day    --hours of data (24 by default) through each layout in --layouts ("store" at
//          --flush-seconds, "store:S" at S seconds, "v1" at --v1-flush-seconds): bytes on disk
//          per sample, bytes written per sample, bulk ingest rate, flush latency; then queries
//          on the reopened database.
//   month  --days of data (30 by default; 0 skips it) through each layout in --month-layouts:
//          the store with its default retention and size cap (--cap-mib), and v1's layout
//          keeping everything (as v1 with retention_days = --days would): the file size at the
//          end of every simulated day, bytes written per sample once retention deletes as much
//          as arrives, and the long queries (30 days at 1 minute for 20 series).
//
// Bytes written are /proc/self/io `wchar`: every byte the process handed to write()/pwrite(),
// i.e. WAL frames, checkpoint copies and WAL headers. It excludes the WAL-index (-shm), which
// SQLite updates through mmap.
//
// Ingest rate: samples divided by the wall time spent inside Append() and Flush() (and, for the
// v1 layout, its equivalent), single-threaded, with the samples already built (the collectors'
// cost is theirs); each flush is one transaction.

#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/process_io.h"
#include "bench/storage_codec_study.h"
#include "bench/storage_device_sim.h"
#include "core/clock.h"
#include "storage/block.h"
#include "storage/codec/coding.h"
#include "storage/codec/int_column.h"
#include "storage/codec/value_column.h"
#include "storage/sqlite/database.h"
#include "storage/sqlite/statement.h"
#include "storage/sqlite/transaction.h"
#include "storage/sqlite_store.h"

namespace edgemond::bench {
namespace {

namespace fs = std::filesystem;
using storage::sqlite::Database;
using storage::sqlite::DatabaseOptions;
using storage::sqlite::Transaction;
using Clock = std::chrono::steady_clock;

constexpr std::int64_t kHourMs = 3'600'000;
constexpr std::int64_t kDayMs = 24 * kHourMs;

struct Options {
  std::string dir;
  int series = 150;
  double hours = 24;
  int days = 30;
  int flush_seconds = 60;
  int v1_flush_seconds = 10;  // v1's default.
  int cap_mib = 256;
  double retention_hours = 0;  // Day run: the store's raw retention (0: the default, 7 days).
  bool codec_study = false;
  int query_repeats = 15;
  std::vector<std::string> layouts = {"store", "v1"};
  std::vector<std::string> month_layouts = {"store"};
};

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
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
  std::fprintf(stderr, "storage_bench: %.*s: %s\n", static_cast<int>(what.size()), what.data(),
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

// A layout under test: the store, or v1's one-row-per-sample table.
class Layout {
 public:
  virtual ~Layout() = default;
  virtual void Append(const std::vector<Sample>& samples) = 0;
  virtual void Flush() = 0;
  virtual void EnforceRetention(std::int64_t now_ms) = 0;
  virtual void Close() = 0;
  virtual void Reopen() = 0;
  // Returns the number of points with a value.
  virtual std::int64_t Query(const RangeQuery& query) = 0;
};

class StoreLayout final : public Layout {
 public:
  explicit StoreLayout(storage::StorageOptions options) : options_(std::move(options)) { Reopen(); }
  void Append(const std::vector<Sample>& samples) override {
    Check(store_->Append(samples), "append");
  }
  void Flush() override { Check(store_->Flush(), "flush"); }
  void EnforceRetention(std::int64_t now_ms) override {
    Check(store_->EnforceRetention(FromUnixMillis(now_ms)), "retention");
  }
  void Close() override { store_.reset(); }
  void Reopen() override {
    store_ = Check(storage::SqliteStore::Open(options_), "opening the store");
  }
  std::int64_t Query(const RangeQuery& query) override {
    const auto result = Check(store_->Query(query), "query");
    std::int64_t points = 0;
    for (const auto& series : result.series) {
      for (const Point& point : series.points) points += point.value.has_value() ? 1 : 0;
    }
    return points;
  }

 private:
  const storage::StorageOptions options_;
  std::unique_ptr<storage::SqliteStore> store_;
};

// Storage v1's layout with v1's settings and flush path: the baseline. One row per sample in
// samples(ts, series_id, value) WITHOUT ROWID, PRIMARY KEY (ts, series_id); per-series extents;
// one transaction per flush with rows in key order; a passive checkpoint every 1000 WAL frames.
class V1Layout final : public Layout {
 public:
  V1Layout(std::string path, const DeviceSimulator& sim) : path_(std::move(path)) {
    OpenConnection();
    Check(db_->Execute("PRAGMA page_size=4096; PRAGMA auto_vacuum=INCREMENTAL"), "auto_vacuum");
    Configure();
    Check(db_->Execute("CREATE TABLE series(id INTEGER PRIMARY KEY, name TEXT NOT NULL, labels "
                       "TEXT NOT NULL);"
                       "CREATE TABLE series_extent(series_id INTEGER PRIMARY KEY, "
                       "first_ms INTEGER NOT NULL, last_ms INTEGER NOT NULL);"
                       "CREATE TABLE samples(ts INTEGER NOT NULL, series_id INTEGER NOT NULL, "
                       "value REAL NOT NULL, PRIMARY KEY (ts, series_id)) WITHOUT ROWID"),
          "schema");
    for (std::size_t i = 0; i < sim.series().size(); ++i) {
      const SimulatedSeries& s = sim.series()[i];
      ids_[SeriesKey(s.desc->name, s.labels)] = static_cast<std::int64_t>(i) + 1;
    }
  }

  void Append(const std::vector<Sample>& samples) override {
    // v1 built a key per sample too.
    for (const Sample& sample : samples) {
      const std::int64_t id = ids_.at(SeriesKey(sample));
      if (sample.value) head_.push_back({ToUnixMillis(sample.at), id, *sample.value});
    }
  }

  void Flush() override {
    if (head_.empty()) return;
    std::sort(head_.begin(), head_.end(),
              [](const Row& a, const Row& b) { return a.ts != b.ts ? a.ts < b.ts : a.id < b.id; });
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

  void EnforceRetention(std::int64_t) override {}  // The day run keeps everything.
  void Close() override { db_.reset(); }
  void Reopen() override {
    OpenConnection();
    Configure();
  }

  // Step queries as v1's store answered them: rows in time order, aggregated per bucket (avg).
  std::int64_t Query(const RangeQuery& query) override {
    std::vector<std::int64_t> ids;
    for (const auto& [key, id] : ids_) {
      // The benchmark's selectors name the metric and at most one label.
      if (key.rfind(query.selector.name, 0) != 0) continue;
      if (key.size() > query.selector.name.size() && key[query.selector.name.size()] != '{') {
        continue;
      }
      bool match = true;
      for (const LabelMatcher& m : query.selector.matchers) {
        match = match && key.find(m.name + "=\"" + m.value + "\"") != std::string::npos;
      }
      if (match) ids.push_back(id);
    }
    std::string sql = "SELECT ts, series_id, value FROM samples WHERE ts BETWEEN ? AND ?";
    sql += " AND series_id IN (";
    for (std::size_t i = 0; i < ids.size(); ++i) sql += (i ? ", " : "") + std::to_string(ids[i]);
    sql += ") ORDER BY ts";
    auto select = Check(db_->Prepare(sql), "prepare query");
    select.BindInt64(0, query.from_ms);
    select.BindInt64(1, query.to_ms);
    std::map<std::pair<std::int64_t, std::int64_t>, std::pair<double, int>> buckets;
    std::int64_t raw = 0;
    while (Check(select.Step(), "step")) {
      ++raw;
      if (query.step_ms == 0) continue;
      auto& bucket =
          buckets[{select.ColumnInt64(1), (select.ColumnInt64(0) - query.from_ms) / query.step_ms}];
      bucket.first += select.ColumnDouble(2);
      ++bucket.second;
    }
    return query.step_ms == 0 ? raw : static_cast<std::int64_t>(buckets.size());
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
  std::map<std::string, std::int64_t> ids_;
  std::unique_ptr<Database> db_;
  std::vector<Row> head_;
};

RangeQuery MakeQuery(std::string name, std::vector<LabelMatcher> matchers, std::int64_t from_ms,
                     std::int64_t to_ms, std::int64_t step_ms, Aggregation aggregation) {
  RangeQuery query;
  query.selector.name = std::move(name);
  query.selector.matchers = std::move(matchers);
  query.from_ms = from_ms;
  query.to_ms = to_ms;
  query.step_ms = step_ms;
  query.aggregation = aggregation;
  query.max_points_per_series = 1'000'000;
  return query;
}

struct TimedQuery {
  std::string what;
  RangeQuery query;
  double median_ms = 0;      // Wall time.
  double median_cpu_ms = 0;  // CPU time of the querying thread: what the query costs, without
                             // the time spent waiting for a CPU on a busy machine.
  std::int64_t points = 0;
};

double ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

void TimeQueries(Layout& layout, std::vector<TimedQuery>& queries, int repeats) {
  for (TimedQuery& q : queries) {
    std::vector<double> times;
    std::vector<double> cpu;
    for (int i = 0; i < repeats; ++i) {
      const auto start = Clock::now();
      const double cpu_start = ThreadCpuMs();
      q.points = layout.Query(q.query);
      cpu.push_back(ThreadCpuMs() - cpu_start);
      times.push_back(Ms(Clock::now() - start));
    }
    q.median_ms = Percentile(times, 0.5);
    q.median_cpu_ms = Percentile(cpu, 0.5);
  }
}

// Feeds `ticks` ticks of the simulator to `layout`, flushing every flush_seconds ticks and
// enforcing retention after each flush. Returns the samples with a value.
struct IngestStats {
  std::int64_t samples = 0;
  double store_seconds = 0;  // Inside Append/Flush/EnforceRetention.
  std::vector<double> flush_ms;
};

// --- The day run -------------------------------------------------------------------------------

struct DayReport {
  std::string layout;
  int flush_seconds = 0;
  std::int64_t samples = 0;
  std::int64_t database_bytes = 0;
  ProcessIo written;
  // With --retention-hours: bytes written per sample from an hour and a half after retention
  // starts deleting (every sample written then replaces an expired one).
  double steady_written_per_sample = 0;
  double store_seconds = 0;
  double cpu_seconds = 0;
  std::vector<double> flush_ms;
  std::vector<TimedQuery> queries;
};

DayReport RunDay(const Options& options, const std::string& layout_name) {
  DayReport report;
  report.layout = layout_name;
  report.flush_seconds = layout_name == "v1"                   ? options.v1_flush_seconds
                         : layout_name.rfind("store:", 0) == 0 ? std::atoi(layout_name.c_str() + 6)
                                                               : options.flush_seconds;
  const std::string dir = options.dir + "/day-" + layout_name.substr(0, layout_name.find(':')) +
                          "-" + std::to_string(report.flush_seconds);
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = dir + "/edgemond.db";
  DeviceSimulator sim(options.series, /*seed=*/20260101);

  const ProcessIo io_before = ProcessIo::Read();
  const double cpu_before = CpuSeconds();
  std::unique_ptr<Layout> layout;
  if (layout_name != "v1") {
    storage::StorageOptions store_options;
    store_options.path = path;
    store_options.flush_interval = std::chrono::seconds(report.flush_seconds);
    if (options.retention_hours > 0) {
      store_options.raw_retention =
          std::chrono::milliseconds(static_cast<std::int64_t>(options.retention_hours * kHourMs));
    }
    layout = std::make_unique<StoreLayout>(store_options);
  } else {
    layout = std::make_unique<V1Layout>(path, sim);
  }
  const auto ticks = static_cast<std::int64_t>(options.hours * 3600);
  std::vector<Reading> readings;
  std::vector<Sample> samples;
  std::int64_t now_ms = kSimulationStartMs;
  double generate_cpu = 0;
  const std::int64_t steady_tick =
      options.retention_hours > 0 && layout_name != "v1"
          ? static_cast<std::int64_t>((options.retention_hours + 1.5) * 3600)
          : -1;
  ProcessIo steady_io;
  std::int64_t steady_samples = 0;
  for (std::int64_t tick = 0; tick < ticks; ++tick) {
    if (tick == steady_tick) {
      steady_io = ProcessIo::Read();
      steady_samples = report.samples;
    }
    // A daemon's wall stamps wander by a millisecond or two around its monotonic schedule.
    now_ms = kSimulationStartMs + tick * 1000 + (tick * 7919) % 3;
    const double generate_start = CpuSeconds();
    readings.clear();
    sim.Tick(now_ms, readings);
    sim.FillSamples(readings, samples);
    generate_cpu += CpuSeconds() - generate_start;
    for (const Reading& r : readings) report.samples += r.value ? 1 : 0;
    auto start = Clock::now();
    layout->Append(samples);
    report.store_seconds += Ms(Clock::now() - start) / 1000;
    if ((tick + 1) % report.flush_seconds == 0 || tick + 1 == ticks) {
      start = Clock::now();
      layout->Flush();
      const double ms = Ms(Clock::now() - start);
      report.flush_ms.push_back(ms);
      layout->EnforceRetention(now_ms);
      report.store_seconds += Ms(Clock::now() - start) / 1000;
    }
  }
  if (steady_tick >= 0 && steady_tick < ticks) {
    report.steady_written_per_sample = static_cast<double>((ProcessIo::Read() - steady_io).wchar) /
                                       static_cast<double>(report.samples - steady_samples);
  }
  layout->Close();
  report.cpu_seconds = CpuSeconds() - cpu_before - generate_cpu;
  report.written = ProcessIo::Read() - io_before;
  report.database_bytes = FileSize(path) + FileSize(path + "-wal");

  // Queries on the reopened database (the OS page cache is warm: the data was just written).
  layout->Reopen();
  const std::int64_t end = now_ms;
  const std::int64_t day_from = end - kDayMs + 1;
  const std::int64_t hour_from = end - kHourMs + 1;
  const std::vector<LabelMatcher> zone = {{"zone", LabelMatcher::Op::kEqual, "0"}};
  report.queries = {
      {"1 series, 24 h at 1 s -> 1,000 points (avg)",
       MakeQuery("edgemond_thermal_zone_celsius", zone, day_from, end, (end - day_from) / 1000 + 1,
                 Aggregation::kAvg)},
      {"1 series, 24 h at 1 min (avg)",
       MakeQuery("edgemond_thermal_zone_celsius", zone, day_from, end, 60'000, Aggregation::kAvg)},
      {"13 series, last hour at 10 s (max)",
       MakeQuery("edgemond_cpu_utilization_ratio", {}, hour_from, end, 10'000, Aggregation::kMax)},
      {"1 series, last hour raw",
       MakeQuery("edgemond_thermal_zone_celsius", zone, hour_from, end, 0, Aggregation::kAvg)},
  };
  TimeQueries(*layout, report.queries, options.query_repeats);
  layout->Close();
  return report;
}

// --- The month run -----------------------------------------------------------------------------

struct MonthReport {
  std::string layout;
  int flush_seconds = 0;
  std::int64_t samples = 0;
  std::vector<std::int64_t> daily_bytes;  // Database + WAL at the end of each day.
  std::int64_t max_bytes = 0;
  double written_per_sample = 0;
  double steady_written_per_sample = 0;  // From day 8 (raw retention deleting) on.
  double store_seconds = 0;
  std::vector<double> flush_ms;
  int query_repeats = 0;
  std::vector<TimedQuery> queries;
};

MonthReport RunMonth(const Options& options, const std::string& layout_name) {
  MonthReport report;
  report.layout = layout_name;
  report.flush_seconds = layout_name == "v1" ? options.v1_flush_seconds : options.flush_seconds;
  const std::string dir = options.dir + "/month-" + layout_name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = dir + "/edgemond.db";
  DeviceSimulator sim(options.series, /*seed=*/20260201);
  std::unique_ptr<Layout> layout_owner;
  if (layout_name == "v1") {
    // No retention: v1 configured to keep the month (its default kept 7 days).
    layout_owner = std::make_unique<V1Layout>(path, sim);
  } else {
    storage::StorageOptions store_options;
    store_options.path = path;
    store_options.flush_interval = std::chrono::seconds(report.flush_seconds);
    store_options.max_bytes = std::int64_t{options.cap_mib} << 20;
    layout_owner = std::make_unique<StoreLayout>(store_options);
  }
  Layout& layout = *layout_owner;

  const ProcessIo io_before = ProcessIo::Read();
  ProcessIo io_steady;
  std::int64_t steady_samples = 0;
  const std::int64_t ticks = std::int64_t{options.days} * 86400;
  std::vector<Reading> readings;
  std::vector<Sample> samples;
  std::int64_t now_ms = kSimulationStartMs;
  for (std::int64_t tick = 0; tick < ticks; ++tick) {
    if (tick == 8 * 86400) {
      io_steady = ProcessIo::Read();
      steady_samples = report.samples;
    }
    now_ms = kSimulationStartMs + tick * 1000 + (tick * 7919) % 3;
    readings.clear();
    sim.Tick(now_ms, readings);
    sim.FillSamples(readings, samples);
    for (const Reading& r : readings) report.samples += r.value ? 1 : 0;
    auto start = Clock::now();
    layout.Append(samples);
    if ((tick + 1) % report.flush_seconds == 0) {
      layout.Flush();
      report.flush_ms.push_back(Ms(Clock::now() - start));
      layout.EnforceRetention(now_ms);
    }
    report.store_seconds += Ms(Clock::now() - start) / 1000;
    if ((tick + 1) % 86400 == 0) {
      const std::int64_t bytes = FileSize(path) + FileSize(path + "-wal");
      report.daily_bytes.push_back(bytes);
      report.max_bytes = std::max(report.max_bytes, bytes);
      std::fprintf(stderr, "  %s day %lld: %.1f MiB\n", layout_name.c_str(),
                   static_cast<long long>((tick + 1) / 86400),
                   static_cast<double>(bytes) / (1 << 20));
    }
  }
  layout.Flush();
  const ProcessIo io_after = ProcessIo::Read();
  report.written_per_sample =
      static_cast<double>((io_after - io_before).wchar) / static_cast<double>(report.samples);
  if (steady_samples > 0) {
    report.steady_written_per_sample = static_cast<double>((io_after - io_steady).wchar) /
                                       static_cast<double>(report.samples - steady_samples);
  }
  layout.Close();
  layout.Reopen();
  const std::int64_t end = now_ms;
  const std::int64_t month_from = end - std::int64_t{options.days} * kDayMs + 1;
  const std::int64_t day_from = end - kDayMs + 1;
  const std::vector<LabelMatcher> zone = {{"zone", LabelMatcher::Op::kEqual, "0"}};
  const std::vector<LabelMatcher> nct = {{"chip_name", LabelMatcher::Op::kEqual, "nct7802"}};
  report.queries = {
      {"20 series, 30 days at 1 min (avg)", MakeQuery("edgemond_hwmon_temperature_celsius", nct,
                                                      month_from, end, 60'000, Aggregation::kAvg)},
      {"20 series, 30 days at 1 h (max)", MakeQuery("edgemond_hwmon_temperature_celsius", nct,
                                                    month_from, end, kHourMs, Aggregation::kMax)},
      {"1 series, 24 h at 1 s -> 1,000 points (avg)",
       MakeQuery("edgemond_thermal_zone_celsius", zone, day_from, end, (end - day_from) / 1000 + 1,
                 Aggregation::kAvg)},
      {"1 series, 30 days -> 1,000 points (avg; raw for 7 days, 1-minute tier before)",
       MakeQuery("edgemond_thermal_zone_celsius", zone, month_from, end,
                 (end - month_from) / 1000 + 1, Aggregation::kAvg)},
  };
  // v1 reads every row of the range (all series, time-major): a few repetitions suffice.
  report.query_repeats =
      layout_name == "v1" ? std::min(3, options.query_repeats) : options.query_repeats;
  TimeQueries(layout, report.queries, report.query_repeats);
  layout.Close();
  return report;
}

// --- Output ------------------------------------------------------------------------------------

void PrintDay(const Options& options, const std::vector<DayReport>& reports) {
  std::printf("## Day run: %d series, %g h at 1 Hz\n\n", options.series, options.hours);
  std::printf(
      "| layout | flush every | samples | on disk B/sample | written B/sample (wchar) | "
      "write_bytes B/sample | ingest (Append+Flush) samples/s | store CPU us/sample | flush ms "
      "p50 / p99 / max |\n|---|---|---|---|---|---|---|---|---|\n");
  for (const DayReport& r : reports) {
    const auto n = static_cast<double>(r.samples);
    std::printf(
        "| %s | %d s | %" PRId64 " | %.3f | %.2f | %.2f | %.2f M | %.3f | %.2f / %.2f / %.2f |\n",
        r.layout.c_str(), r.flush_seconds, r.samples, static_cast<double>(r.database_bytes) / n,
        static_cast<double>(r.written.wchar) / n, static_cast<double>(r.written.write_bytes) / n,
        n / r.store_seconds / 1e6, r.cpu_seconds * 1e6 / n, Percentile(r.flush_ms, 0.5),
        Percentile(r.flush_ms, 0.99), Percentile(r.flush_ms, 1.0));
  }
  for (const DayReport& r : reports) {
    if (r.steady_written_per_sample > 0) {
      std::printf(
          "\n%s with %g h raw retention: %.2f B/sample written once retention deletes as "
          "much as arrives\n",
          r.layout.c_str(), options.retention_hours, r.steady_written_per_sample);
    }
  }
  std::printf("\n| query (median of %d, reopened database; wall / CPU) |", options.query_repeats);
  for (const DayReport& r : reports) std::printf(" %s |", r.layout.c_str());
  std::printf("\n|---|");
  for (std::size_t i = 0; i < reports.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (std::size_t q = 0; q < reports.front().queries.size(); ++q) {
    std::printf("| %s |", reports.front().queries[q].what.c_str());
    for (const DayReport& r : reports) {
      std::printf(" %.2f / %.2f ms (%" PRId64 " pts) |", r.queries[q].median_ms,
                  r.queries[q].median_cpu_ms, r.queries[q].points);
    }
    std::printf("\n");
  }
  std::printf("\n");
  std::fflush(stdout);
}

void PrintMonth(const Options& options, const std::vector<MonthReport>& reports) {
  std::printf("## Month run: %d series, %d days at 1 Hz; store with cap %d MiB\n\n", options.series,
              options.days, options.cap_mib);
  std::printf(
      "| layout | flush every | samples | ingest (Append+Flush+EnforceRetention) samples/s | "
      "written B/sample, whole run | written B/sample from day 8 | largest database + WAL | "
      "at the end | flush ms p50 / p99 / max |\n|---|---|---|---|---|---|---|---|---|\n");
  for (const MonthReport& r : reports) {
    std::printf("| %s | %d s | %" PRId64
                " | %.2f M | %.2f | %.2f | %.1f MiB | %.1f MiB | %.2f / %.2f / %.2f |\n",
                r.layout.c_str(), r.flush_seconds, r.samples,
                static_cast<double>(r.samples) / r.store_seconds / 1e6, r.written_per_sample,
                r.steady_written_per_sample, static_cast<double>(r.max_bytes) / (1 << 20),
                static_cast<double>(r.daily_bytes.empty() ? 0 : r.daily_bytes.back()) / (1 << 20),
                Percentile(r.flush_ms, 0.5), Percentile(r.flush_ms, 0.99),
                Percentile(r.flush_ms, 1.0));
  }
  for (const MonthReport& r : reports) {
    std::printf("\n%s, database + WAL at the end of each day (MiB):", r.layout.c_str());
    for (std::size_t d = 0; d < r.daily_bytes.size(); ++d) {
      std::printf("%s %.1f", d == 0 ? "" : ",", static_cast<double>(r.daily_bytes[d]) / (1 << 20));
    }
    std::printf("\n");
  }
  std::printf("\n| query (median, reopened database; wall / CPU) |");
  for (const MonthReport& r : reports) {
    std::printf(" %s (of %d) |", r.layout.c_str(), r.query_repeats);
  }
  std::printf("\n|---|");
  for (std::size_t i = 0; i < reports.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (std::size_t q = 0; q < reports.front().queries.size(); ++q) {
    std::printf("| %s |", reports.front().queries[q].what.c_str());
    for (const MonthReport& r : reports) {
      std::printf(" %.2f / %.2f ms (%" PRId64 " pts) |", r.queries[q].median_ms,
                  r.queries[q].median_cpu_ms, r.queries[q].points);
    }
    std::printf("\n");
  }
  std::printf("\n");
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
    } else if (arg == "--days") {
      options.days = std::atoi(value().c_str());
    } else if (arg == "--flush-seconds") {
      options.flush_seconds = std::atoi(value().c_str());
    } else if (arg == "--v1-flush-seconds") {
      options.v1_flush_seconds = std::atoi(value().c_str());
    } else if (arg == "--cap-mib") {
      options.cap_mib = std::atoi(value().c_str());
    } else if (arg == "--retention-hours") {
      options.retention_hours = std::atof(value().c_str());
    } else if (arg == "--query-repeats") {
      options.query_repeats = std::atoi(value().c_str());
    } else if (arg == "--codec-study") {
      options.codec_study = true;
    } else if (arg == "--layouts") {
      options.layouts = SplitCommas(value());
    } else if (arg == "--month-layouts") {
      options.month_layouts = SplitCommas(value());
    } else {
      std::fprintf(stderr,
                   "usage: %s --dir DIR [--series N] [--hours H] [--days D] [--flush-seconds S] "
                   "[--v1-flush-seconds S] [--cap-mib M] [--retention-hours H] [--query-repeats N] "
                   "[--layouts store,store:10,v1] [--month-layouts store,v1] [--codec-study]\n",
                   argv[0]);
      return 2;
    }
  }
  if (options.dir.empty() || options.series <= 0 || options.hours < 0 || options.days < 0 ||
      options.flush_seconds <= 0 || options.v1_flush_seconds <= 0 || options.query_repeats <= 0 ||
      options.cap_mib < 0) {
    std::fprintf(stderr, "--dir is required; counts must be positive\n");
    return 2;
  }
  std::printf(
      "SQLite %s; series=%d hours=%g days=%d flush_seconds=%d v1_flush_seconds=%d "
      "cap_mib=%d query_repeats=%d\n\n",
      sqlite3_libversion(), options.series, options.hours, options.days, options.flush_seconds,
      options.v1_flush_seconds, options.cap_mib, options.query_repeats);
  if (options.codec_study) {
    RunCodecStudy(options.series, options.hours, options.flush_seconds);
    return 0;
  }
  if (options.hours > 0 && !options.layouts.empty()) {
    std::vector<DayReport> reports;
    for (const std::string& layout : options.layouts) {
      const bool store_at = layout.rfind("store:", 0) == 0 && std::atoi(layout.c_str() + 6) > 0;
      if (layout != "store" && layout != "v1" && !store_at) {
        std::fprintf(stderr, "unknown layout %s\n", layout.c_str());
        return 2;
      }
      std::fprintf(stderr, "day run: %s...\n", layout.c_str());
      reports.push_back(RunDay(options, layout));
    }
    PrintDay(options, reports);
  }
  if (options.days > 0 && !options.month_layouts.empty()) {
    std::vector<MonthReport> reports;
    for (const std::string& layout : options.month_layouts) {
      if (layout != "store" && layout != "v1") {
        std::fprintf(stderr, "unknown month layout %s\n", layout.c_str());
        return 2;
      }
      std::fprintf(stderr, "month run: %s...\n", layout.c_str());
      reports.push_back(RunMonth(options, layout));
    }
    PrintMonth(options, reports);
  }
  return 0;
}

}  // namespace
}  // namespace edgemond::bench

int main(int argc, char** argv) { return edgemond::bench::Main(argc, argv); }
