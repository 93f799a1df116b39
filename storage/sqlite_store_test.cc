#include "storage/sqlite_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <thread>

#include "storage/schema.h"
#include "storage/sqlite/database.h"
#include "tests/testing/child_process.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::storage {
namespace {

using ::edgemond::testing::TempDir;
using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr MetricDesc kTemperature{"edgemond_thermal_zone_celsius", "Thermal zone temperature",
                                  MetricType::kGauge, "celsius"};
constexpr MetricDesc kCpu{"edgemond_cpu_utilization_ratio", "CPU utilization", MetricType::kGauge,
                          "ratio"};
constexpr MetricDesc kEnergy{"edgemond_hwmon_energy_joules_total", "Energy", MetricType::kCounter,
                             "joules"};

// 2026-01-01T00:00:00Z.
constexpr std::int64_t kT0 = 1767225600000;

WallTime At(std::int64_t ms) { return FromUnixMillis(ms); }

SeriesSelector Selector(std::string_view text) {
  auto selector = ParseSeriesSelector(text);
  EXPECT_TRUE(selector.ok()) << selector.status();
  return selector.ok() ? *selector : SeriesSelector{};
}

Point P(std::int64_t t_ms, std::optional<double> value) { return Point{t_ms, value}; }

// Points compare by time and value (core's Point has no operator==).
void ExpectPoints(const std::vector<Point>& actual, const std::vector<Point>& expected,
                  const std::string& what = "") {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    EXPECT_EQ(actual[i].t_ms, expected[i].t_ms) << what << " point " << i;
    EXPECT_EQ(actual[i].value, expected[i].value) << what << " point " << i;
  }
}

std::string KeyOf(const SeriesInfo& info) { return SeriesKey(info.name, info.labels); }

Sample MakeSample(const MetricDesc& desc, Labels labels, std::int64_t ms,
                  std::optional<double> value, std::string reason = "") {
  Sample sample;
  sample.desc = &desc;
  sample.labels = std::move(labels);
  sample.at = At(ms);
  sample.value = value;
  sample.missing_reason = std::move(reason);
  return sample;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class SqliteStoreTest : public ::testing::Test {
 protected:
  StorageOptions Options() const {
    StorageOptions options;
    options.path = path_;
    return options;
  }
  std::unique_ptr<SqliteStore> Open(const StorageOptions& options) {
    auto store = SqliteStore::Open(options);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(store).value() : nullptr;
  }
  std::unique_ptr<SqliteStore> Open() { return Open(Options()); }

  // A raw query of one series over everything.
  std::vector<Point> Raw(Store& store, std::string_view selector) {
    RangeQuery query;
    query.selector = Selector(selector);
    query.from_ms = 0;
    query.to_ms = kT0 * 2;
    auto result = store.Query(query);
    EXPECT_TRUE(result.ok()) << result.status();
    if (!result.ok() || result->series.size() != 1) return {};
    return result->series[0].points;
  }

  // Raw samples stored (in blocks_raw).
  std::int64_t StoredRows() {
    auto db = sqlite::Database::Open(path_, {});
    EXPECT_TRUE(db.ok()) << db.status();
    return (*db)->QueryInt64("SELECT coalesce(sum(points), 0) FROM blocks_raw").value();
  }

  TempDir dir_;
  const std::string path_ = dir_.Join("edgemond.db");
};

TEST_F(SqliteStoreTest, OpenCreatesAWalDatabaseAtTheCurrentSchema) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  auto db = sqlite::Database::Open(path_, {});
  ASSERT_TRUE(db.ok());
  EXPECT_EQ((*db)->QueryInt64("PRAGMA user_version").value(), CurrentSchemaVersion());
  EXPECT_EQ((*db)->QueryString("PRAGMA journal_mode").value(), "wal");
  EXPECT_EQ((*db)->QueryInt64("PRAGMA auto_vacuum").value(), 2);
  const StoreStats stats = store->Stats();
  EXPECT_EQ(stats.series, 0u);
  EXPECT_EQ(stats.head_samples, 0u);
  EXPECT_GT(stats.database_bytes, 0);
}

// What another process sees: the sqlite3 shell, with a 200 ms busy timeout, counting the series.
struct ShellAnswer {
  bool exited_zero = false;
  std::string output;
};
ShellAnswer AskTheShell(const TempDir& dir, const std::string& db_path) {
  testing::ChildProcess shell(
      {"/usr/bin/sqlite3", "-cmd", ".timeout 200", db_path, "SELECT count(*) FROM series"},
      dir.Join("shell.log"));
  const auto status = shell.Wait(std::chrono::seconds(30));
  return {status && WIFEXITED(*status) && WEXITSTATUS(*status) == 0, shell.Output()};
}

TEST_F(SqliteStoreTest, HoldsTheFileAgainstOtherProcessesAndKeepsItsWalIndexInMemory) {
  // A WAL index left by an earlier edgemond, which kept it in a file.
  { std::ofstream(path_ + "-shm") << "stale"; }
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Append({MakeSample(kTemperature, {{"zone", "0"}}, kT0, 41.5)}).ok());
  ASSERT_TRUE(store->Flush().ok());
  EXPECT_TRUE(std::filesystem::exists(path_ + "-wal"));
  EXPECT_FALSE(std::filesystem::exists(path_ + "-shm"));

  const ShellAnswer while_open = AskTheShell(dir_, path_);
  EXPECT_FALSE(while_open.exited_zero) << while_open.output;
  EXPECT_NE(while_open.output.find("locked"), std::string::npos) << while_open.output;
  // Connections of the store's own process still read (the daemon's alert history does).
  EXPECT_EQ(StoredRows(), 1);

  store.reset();
  const ShellAnswer after_close = AskTheShell(dir_, path_);
  EXPECT_TRUE(after_close.exited_zero) << after_close.output;
  EXPECT_EQ(after_close.output, "1\n");
}

TEST_F(SqliteStoreTest, WithoutExclusiveAccessOtherProcessesReadAlongside) {
  StorageOptions options = Options();
  options.exclusive_to_process = false;
  auto store = Open(options);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Append({MakeSample(kTemperature, {{"zone", "0"}}, kT0, 41.5)}).ok());
  ASSERT_TRUE(store->Flush().ok());
  EXPECT_TRUE(std::filesystem::exists(path_ + "-shm"));
  const ShellAnswer answer = AskTheShell(dir_, path_);
  EXPECT_TRUE(answer.exited_zero) << answer.output;
  EXPECT_EQ(answer.output, "1\n");
}

TEST_F(SqliteStoreTest, AppendFlushQueryRoundTrip) {
  auto store = Open();
  for (int i = 0; i < 60; ++i) {
    const std::int64_t ms = kT0 + i * 1000;
    ASSERT_TRUE(
        store
            ->Append({MakeSample(kTemperature, {{"zone", "0"}, {"type", "cpu"}}, ms, 45.5 + i),
                      MakeSample(kCpu, {{"cpu", "all"}}, ms, i / 100.0),
                      MakeSample(kEnergy, {}, ms, 1e6 + i * 2.5)})
            .ok());
  }
  EXPECT_EQ(store->Stats().head_samples, 180u);
  ASSERT_TRUE(store->Flush().ok());
  EXPECT_EQ(store->Stats().head_samples, 0u);
  EXPECT_EQ(StoredRows(), 180);

  std::vector<Point> expected;
  for (int i = 0; i < 60; ++i) expected.push_back(P(kT0 + i * 1000, 45.5 + i));
  ExpectPoints(Raw(*store, R"(edgemond_thermal_zone_celsius{zone="0"})"), expected);

  auto series = store->ListSeries(std::nullopt);
  ASSERT_TRUE(series.ok());
  ASSERT_EQ(series->size(), 3u);
  // Sorted by key; labels sorted by name.
  EXPECT_EQ(KeyOf((*series)[0]), R"(edgemond_cpu_utilization_ratio{cpu="all"})");
  EXPECT_EQ(KeyOf((*series)[1]), "edgemond_hwmon_energy_joules_total");
  EXPECT_EQ((*series)[1].type, MetricType::kCounter);
  EXPECT_EQ((*series)[1].unit, "joules");
  const SeriesInfo& zone = (*series)[2];
  EXPECT_EQ(zone.name, "edgemond_thermal_zone_celsius");
  EXPECT_EQ(zone.labels, (Labels{{"type", "cpu"}, {"zone", "0"}}));
  EXPECT_EQ(zone.unit, "celsius");
  EXPECT_EQ(zone.type, MetricType::kGauge);
  EXPECT_EQ(zone.first_ms, kT0);
  EXPECT_EQ(zone.last_ms, kT0 + 59000);
  EXPECT_EQ(store->ListSeries(Selector("edgemond_hwmon_energy_joules_total"))->size(), 1u);
}

TEST_F(SqliteStoreTest, ASummarysQuantilesAreStoredAsGauges) {
  constexpr MetricDesc kLatency{"edgemond_model_latency_seconds", "Latency", MetricType::kSummary,
                                "seconds"};
  auto store = Open();
  ASSERT_TRUE(
      store
          ->Append({MakeSample(kLatency, {{"model", "m"}, {"quantile", "0.5"}}, kT0, 0.01),
                    MakeSample(kLatency, {{"model", "m"}, {"quantile", "0.99"}}, kT0, 0.02)})
          .ok());
  ASSERT_TRUE(store->Flush().ok());
  ExpectPoints(Raw(*store, R"(edgemond_model_latency_seconds{quantile="0.99"})"), {P(kT0, 0.02)});
  // The catalog has no "summary" type: each quantile is a gauge series, as a reopen shows.
  store.reset();
  store = Open();
  const auto series = store->ListSeries(std::nullopt);
  ASSERT_TRUE(series.ok()) << series.status();
  ASSERT_EQ(series->size(), 2u);
  EXPECT_EQ((*series)[0].type, MetricType::kGauge);
}

TEST_F(SqliteStoreTest, ReopenFindsEverythingFlushed) {
  std::vector<SeriesInfo> before;
  {
    auto store = Open();
    for (int i = 0; i < 30; ++i) {
      ASSERT_TRUE(store
                      ->Append({MakeSample(kTemperature, {{"zone", "1"}}, kT0 + i * 1000, i),
                                MakeSample(kCpu, {{"cpu", "3"}}, kT0 + i * 1000, 0.25)})
                      .ok());
    }
    ASSERT_TRUE(store->Flush().ok());
    before = store->ListSeries(std::nullopt).value();
  }
  auto store = Open();
  const auto after = store->ListSeries(std::nullopt).value();
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].name, before[i].name);
    EXPECT_EQ(after[i].labels, before[i].labels);
    EXPECT_EQ(after[i].unit, before[i].unit);
    EXPECT_EQ(after[i].type, before[i].type);
    EXPECT_EQ(after[i].first_ms, before[i].first_ms);
    EXPECT_EQ(after[i].last_ms, before[i].last_ms);
  }
  EXPECT_EQ(Raw(*store, R"(edgemond_thermal_zone_celsius{zone="1"})").size(), 30u);
  // New series continue the id sequence.
  ASSERT_TRUE(store->Append({MakeSample(kEnergy, {}, kT0 + 40000, 1)}).ok());
  ASSERT_TRUE(store->Flush().ok());
  auto db = sqlite::Database::Open(path_, {});
  ASSERT_TRUE(db.ok());
  EXPECT_EQ((*db)
                ->QueryInt64("SELECT id FROM series WHERE name = "
                             "'edgemond_hwmon_energy_joules_total'")
                .value(),
            3);
}

TEST_F(SqliteStoreTest, QueriesAnswerTheSameBeforeAndAfterFlush) {
  auto store = Open();
  const auto append = [&](int from, int to) {
    for (int i = from; i < to; ++i) {
      std::vector<Sample> batch;
      for (int cpu = 0; cpu < 4; ++cpu) {
        // cpu 2 misses every third reading: gaps in the middle of head and stored data.
        const bool gap = cpu == 2 && i % 3 == 0;
        batch.push_back(MakeSample(kCpu, {{"cpu", std::to_string(cpu)}}, kT0 + i * 1000,
                                   gap ? std::nullopt : std::optional<double>(cpu + i * 0.01),
                                   gap ? "EIO" : ""));
      }
      ASSERT_TRUE(store->Append(batch).ok());
    }
  };
  append(0, 95);
  ASSERT_TRUE(store->Flush().ok());
  append(95, 137);  // Unflushed: the head.

  std::vector<RangeQuery> queries;
  for (Aggregation aggregation : {Aggregation::kAvg, Aggregation::kMin, Aggregation::kMax,
                                  Aggregation::kLast, Aggregation::kSum, Aggregation::kCount}) {
    RangeQuery query;
    query.selector = Selector("edgemond_cpu_utilization_ratio");
    query.from_ms = kT0 + 3500;
    query.to_ms = kT0 + 130000;
    query.step_ms = 7000;  // Buckets straddle the flush boundary.
    query.aggregation = aggregation;
    queries.push_back(query);
  }
  RangeQuery raw;
  raw.selector = Selector(R"(edgemond_cpu_utilization_ratio{cpu="2"})");
  raw.from_ms = kT0;
  raw.to_ms = kT0 + 200000;
  queries.push_back(raw);

  std::vector<QueryResult> before;
  for (const RangeQuery& query : queries) before.push_back(store->Query(query).value());
  ASSERT_EQ(before[0].series.size(), 4u);
  EXPECT_EQ(before[0].step_ms, 7000);
  EXPECT_EQ(before[0].series[0].points.size(), 19u);             // (130000 - 3500) / 7000 + 1.
  EXPECT_EQ(before.back().series[0].points.size(), 137u - 46u);  // 46 gaps in 0..136.

  ASSERT_TRUE(store->Flush().ok());
  EXPECT_EQ(store->Stats().head_samples, 0u);
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const QueryResult after = store->Query(queries[q]).value();
    ASSERT_EQ(after.series.size(), before[q].series.size());
    for (std::size_t s = 0; s < after.series.size(); ++s) {
      EXPECT_EQ(KeyOf(after.series[s].series), KeyOf(before[q].series[s].series));
      ExpectPoints(after.series[s].points, before[q].series[s].points,
                   "query " + std::to_string(q));
    }
  }
  store.reset();
  store = Open();
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const QueryResult reopened = store->Query(queries[q]).value();
    ASSERT_EQ(reopened.series.size(), before[q].series.size());
    for (std::size_t s = 0; s < reopened.series.size(); ++s) {
      ExpectPoints(reopened.series[s].points, before[q].series[s].points,
                   "query " + std::to_string(q));
    }
  }
}

TEST_F(SqliteStoreTest, TheLaterSampleForOneMillisecondWinsBeforeAndAfterFlush) {
  auto store = Open();
  const char* selector = R"(edgemond_thermal_zone_celsius{zone="0"})";
  ASSERT_TRUE(store->Append({MakeSample(kTemperature, {{"zone", "0"}}, kT0, 1)}).ok());
  ASSERT_TRUE(store->Flush().ok());
  // The wall clock stepped back: the same millisecond again, twice, in the head.
  ASSERT_TRUE(store->Append({MakeSample(kTemperature, {{"zone", "0"}}, kT0, 2)}).ok());
  ASSERT_TRUE(store->Append({MakeSample(kTemperature, {{"zone", "0"}}, kT0, 3)}).ok());
  ExpectPoints(Raw(*store, selector), {P(kT0, 3)});
  ASSERT_TRUE(store->Flush().ok());
  ExpectPoints(Raw(*store, selector), {P(kT0, 3)});
  EXPECT_EQ(StoredRows(), 1);
}

TEST_F(SqliteStoreTest, AggregatesPerStepAndGapsAreMissingPoints) {
  auto store = Open();
  const Labels labels = {{"zone", "0"}};
  // 60 s at 1 Hz; the sensor failed from second 20 to 39.
  for (int i = 0; i < 60; ++i) {
    const bool failed = i >= 20 && i < 40;
    ASSERT_TRUE(store
                    ->Append({MakeSample(kTemperature, labels, kT0 + i * 1000,
                                         failed ? std::nullopt : std::optional<double>(i),
                                         failed ? "ENODATA: no reading" : "")})
                    .ok());
    if (i == 30) {
      ASSERT_TRUE(store->Flush().ok());
    }
  }
  ASSERT_TRUE(store->Flush().ok());
  EXPECT_EQ(StoredRows(), 40);  // Gaps are not stored.

  RangeQuery query;
  query.selector = Selector(R"(edgemond_thermal_zone_celsius{zone="0"})");
  query.from_ms = kT0;
  query.to_ms = kT0 + 59999;
  query.step_ms = 10000;
  const auto points = [&](Aggregation aggregation) {
    query.aggregation = aggregation;
    auto result = store->Query(query);
    EXPECT_TRUE(result.ok()) << result.status();
    return result.ok() ? result->series.at(0).points : std::vector<Point>{};
  };
  constexpr std::nullopt_t kGap = std::nullopt;
  // Buckets 2 and 3 (20 s .. 40 s) are there, without a value: never zero.
  ExpectPoints(points(Aggregation::kAvg),
               {P(kT0, 4.5), P(kT0 + 10000, 14.5), P(kT0 + 20000, kGap), P(kT0 + 30000, kGap),
                P(kT0 + 40000, 44.5), P(kT0 + 50000, 54.5)});
  ExpectPoints(points(Aggregation::kMin),
               {P(kT0, 0), P(kT0 + 10000, 10), P(kT0 + 20000, kGap), P(kT0 + 30000, kGap),
                P(kT0 + 40000, 40), P(kT0 + 50000, 50)});
  const std::vector<Point> max = {
      P(kT0, 9),          P(kT0 + 10000, 19), P(kT0 + 20000, kGap), P(kT0 + 30000, kGap),
      P(kT0 + 40000, 49), P(kT0 + 50000, 59)};
  ExpectPoints(points(Aggregation::kMax), max);
  ExpectPoints(points(Aggregation::kLast), max);  // Rising values.
  ExpectPoints(points(Aggregation::kCount),
               {P(kT0, 10), P(kT0 + 10000, 10), P(kT0 + 20000, kGap), P(kT0 + 30000, kGap),
                P(kT0 + 40000, 10), P(kT0 + 50000, 10)});
  // A range that starts mid-bucket: buckets are aligned to `from`.
  query.from_ms = kT0 + 5000;
  query.to_ms = kT0 + 24999;
  ExpectPoints(points(Aggregation::kSum),
               {P(kT0 + 5000, 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14),
                P(kT0 + 15000, 15 + 16 + 17 + 18 + 19)});
  // Raw: only the samples that exist.
  query.step_ms = 0;
  query.from_ms = kT0 + 18000;
  query.to_ms = kT0 + 41000;
  ExpectPoints(points(Aggregation::kAvg),
               {P(kT0 + 18000, 18), P(kT0 + 19000, 19), P(kT0 + 40000, 40), P(kT0 + 41000, 41)});
}

TEST_F(SqliteStoreTest, MissingAndNaNReadingsAreGapsButTheSeriesIsCatalogued) {
  auto store = Open();
  ASSERT_TRUE(
      store
          ->Append({MakeSample(kTemperature, {{"zone", "3"}}, kT0, 41.5),
                    MakeSample(kCpu, {{"cpu", "0"}}, kT0, std::numeric_limits<double>::quiet_NaN()),
                    MakeSample(kCpu, {{"cpu", "1"}}, kT0, std::nullopt, "EIO")})
          .ok());
  ASSERT_TRUE(store
                  ->Append({MakeSample(kTemperature, {{"zone", "3"}}, kT0 + 1000, std::nullopt,
                                       "EAGAIN: sensor busy")})
                  .ok());
  EXPECT_EQ(store->Stats().head_samples, 1u);
  ASSERT_TRUE(store->Flush().ok());
  EXPECT_EQ(StoredRows(), 1);
  ExpectPoints(Raw(*store, R"(edgemond_thermal_zone_celsius{zone="3"})"), {P(kT0, 41.5)});
  for (int reopen = 0; reopen < 2; ++reopen) {
    const auto series = store->ListSeries(std::nullopt).value();
    ASSERT_EQ(series.size(), 3u);
    // A series that never had a value is catalogued, without first/last.
    EXPECT_EQ(KeyOf(series[0]), R"(edgemond_cpu_utilization_ratio{cpu="0"})");
    EXPECT_FALSE(series[0].first_ms.has_value());
    EXPECT_FALSE(series[1].last_ms.has_value());
    EXPECT_EQ(series[2].last_ms, kT0);  // The last reading with a value.
    store.reset();
    store = Open();
  }
}

TEST_F(SqliteStoreTest, SelectorsPickSeries) {
  auto store = Open();
  std::vector<Sample> batch;
  for (const char* cpu : {"all", "0", "1", "2", "3"}) {
    batch.push_back(MakeSample(kCpu, {{"cpu", cpu}}, kT0, 0.5));
  }
  batch.push_back(MakeSample(kTemperature, {{"zone", "0"}, {"type", "cpu"}}, kT0, 40));
  batch.push_back(MakeSample(kTemperature, {{"zone", "1"}, {"type", "gpu"}}, kT0, 50));
  batch.push_back(MakeSample(kTemperature, {{"zone", "2"}}, kT0, 60));
  ASSERT_TRUE(store->Append(batch).ok());
  ASSERT_TRUE(store->Flush().ok());

  const auto keys = [&](std::string_view text) {
    RangeQuery query;
    query.selector = Selector(text);
    query.from_ms = kT0;
    query.to_ms = kT0;
    auto result = store->Query(query);
    EXPECT_TRUE(result.ok()) << result.status();
    std::vector<std::string> queried;
    if (!result.ok()) return queried;
    for (const auto& series : result->series) {
      EXPECT_EQ(series.points.size(), 1u);
      queried.push_back(KeyOf(series.series));
    }
    // ListSeries agrees with Query.
    const std::vector<SeriesInfo> infos = store->ListSeries(query.selector).value();
    std::vector<std::string> listed;
    for (const auto& info : infos) listed.push_back(KeyOf(info));
    EXPECT_EQ(listed, queried);
    return queried;
  };
  EXPECT_EQ(keys(R"(edgemond_cpu_utilization_ratio{cpu!="all"})"),
            (std::vector<std::string>{R"(edgemond_cpu_utilization_ratio{cpu="0"})",
                                      R"(edgemond_cpu_utilization_ratio{cpu="1"})",
                                      R"(edgemond_cpu_utilization_ratio{cpu="2"})",
                                      R"(edgemond_cpu_utilization_ratio{cpu="3"})"}));
  EXPECT_EQ(keys("edgemond_cpu_utilization_ratio").size(), 5u);
  EXPECT_EQ(keys(R"(edgemond_thermal_zone_celsius{type="gpu"})"),
            (std::vector<std::string>{R"(edgemond_thermal_zone_celsius{type="gpu",zone="1"})"}));
  EXPECT_EQ(keys(R"(edgemond_thermal_zone_celsius{type=""})"),
            (std::vector<std::string>{R"(edgemond_thermal_zone_celsius{zone="2"})"}));
  EXPECT_EQ(keys(R"(edgemond_thermal_zone_celsius{type!=""})").size(), 2u);
  EXPECT_TRUE(keys("edgemond_no_such_metric").empty());
  EXPECT_TRUE(keys(R"(edgemond_cpu_utilization_ratio{cpu="99"})").empty());
  EXPECT_EQ(store->ListSeries(std::nullopt)->size(), 8u);
}

TEST_F(SqliteStoreTest, QueriesAreBoundedBeforeAnythingIsBuilt) {
  auto store = Open();
  for (int i = 0; i < 50; ++i) {
    std::vector<Sample> batch;
    for (int cpu = 0; cpu < 4; ++cpu) {
      batch.push_back(MakeSample(kCpu, {{"cpu", std::to_string(cpu)}}, kT0 + i * 1000, 0.1));
    }
    ASSERT_TRUE(store->Append(batch).ok());
  }
  RangeQuery query;
  query.selector = Selector("edgemond_cpu_utilization_ratio");
  query.from_ms = kT0;
  query.to_ms = kT0 + 24 * 3600 * 1000;
  query.step_ms = 1000;
  query.max_points_per_series = 11000;
  auto result = store->Query(query);  // 86,401 buckets.
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument) << result.status();
  EXPECT_NE(result.status().message().find("86401 points per series"), std::string_view::npos)
      << result.status();

  query.step_ms = 0;  // Raw: 50 samples per series.
  query.max_points_per_series = 49;
  result = store->Query(query);
  EXPECT_EQ(result.status().code(), StatusCode::kResourceExhausted) << result.status();
  query.max_points_per_series = 50;
  EXPECT_TRUE(store->Query(query).ok());
  ASSERT_TRUE(store->Flush().ok());
  query.max_points_per_series = 49;  // Stored samples count too.
  EXPECT_EQ(store->Query(query).status().code(), StatusCode::kResourceExhausted);

  query.max_points_per_series = 50;
  query.max_series = 3;
  result = store->Query(query);
  EXPECT_EQ(result.status().code(), StatusCode::kResourceExhausted) << result.status();
  EXPECT_NE(result.status().message().find("more than 3 series"), std::string_view::npos);

  query.max_series = 500;
  query.from_ms = kT0 + 1;
  query.to_ms = kT0;
  EXPECT_EQ(store->Query(query).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(SqliteStoreTest, BadBatchesAreRejectedWhole) {
  auto store = Open();
  Sample no_desc;
  no_desc.at = At(kT0);
  no_desc.value = 1;
  Status status = store->Append({MakeSample(kCpu, {{"cpu", "0"}}, kT0, 0.5), no_desc});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status;
  status = store->Append(
      {MakeSample(kCpu, {{"cpu", "0"}}, kT0, 0.5), MakeSample(kCpu, {{"cpu-id", "0"}}, kT0, 0.5)});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find("cpu-id"), std::string_view::npos) << status;
  status = store->Append({MakeSample(kCpu, {{"cpu", "0"}, {"cpu", "1"}}, kT0, 0.5)});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status;
  constexpr MetricDesc kBadName{"edgemond-bad", "", MetricType::kGauge, ""};
  status = store->Append({MakeSample(kBadName, {}, kT0, 1)});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status;

  EXPECT_EQ(store->Stats().head_samples, 0u);
  EXPECT_EQ(store->Stats().series, 0u);
  ASSERT_TRUE(store->Flush().ok());
  EXPECT_EQ(StoredRows(), 0);
}

TEST_F(SqliteStoreTest, FullHeadRefusesNewBatchesUntilAFlush) {
  StorageOptions options = Options();
  options.max_head_samples = 10;
  auto store = Open(options);
  std::vector<Sample> batch;
  for (int i = 0; i < 6; ++i) batch.push_back(MakeSample(kCpu, {{"cpu", "0"}}, kT0 + i, 0.5));
  ASSERT_TRUE(store->Append(batch).ok());
  const Status status = store->Append(batch);
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted) << status;
  EXPECT_EQ(store->Stats().head_samples, 6u);
  ASSERT_TRUE(store->Flush().ok());
  EXPECT_TRUE(store->Append(batch).ok());
}

TEST_F(SqliteStoreTest, FlushWithNothingNewWritesNothing) {
  auto store = Open();
  ASSERT_TRUE(store->Append({MakeSample(kCpu, {{"cpu", "0"}}, kT0, 0.5)}).ok());
  ASSERT_TRUE(store->Flush().ok());
  auto observer = sqlite::Database::Open(path_, {});
  ASSERT_TRUE(observer.ok());
  // data_version changes whenever another connection commits.
  const auto version = (*observer)->QueryInt64("PRAGMA data_version").value();
  ASSERT_TRUE(store->Flush().ok());
  EXPECT_EQ((*observer)->QueryInt64("PRAGMA data_version").value(), version);
}

TEST_F(SqliteStoreTest, QueriesRunConcurrentlyWithAppendsAndFlushes) {
  auto store = Open();
  ASSERT_TRUE(store->Append({MakeSample(kCpu, {{"cpu", "0"}}, kT0, 0)}).ok());
  std::atomic<bool> done{false};
  std::atomic<int> queries{0};
  std::atomic<int> failures{0};
  std::thread reader([&] {
    std::size_t previous = 0;
    while (!done.load()) {
      RangeQuery query;
      query.selector = Selector(R"(edgemond_cpu_utilization_ratio{cpu="0"})");
      query.from_ms = kT0;
      query.to_ms = kT0 + 10'000'000;
      query.max_points_per_series = 100000;
      auto result = store->Query(query);
      if (!result.ok() || result->series.size() != 1) {
        ++failures;
        continue;
      }
      // Every sample exactly once: values 0..n-1 at consecutive seconds, never fewer than a
      // previous answer (a flush moves samples, it never hides or duplicates them).
      const auto& points = result->series[0].points;
      bool consistent = points.size() >= previous;
      for (std::size_t i = 0; consistent && i < points.size(); ++i) {
        consistent = points[i].t_ms == kT0 + static_cast<std::int64_t>(i) * 1000 &&
                     points[i].value == static_cast<double>(i);
      }
      if (!consistent) ++failures;
      previous = points.size();
      ++queries;
      (void)store->ListSeries(std::nullopt);
      (void)store->Stats();
    }
  });
  for (int i = 1; i < 3000; ++i) {
    ASSERT_TRUE(store->Append({MakeSample(kCpu, {{"cpu", "0"}}, kT0 + i * 1000, i)}).ok());
    if (i % 7 == 0) {
      ASSERT_TRUE(store->Flush().ok());
    }
  }
  ASSERT_TRUE(store->Flush().ok());
  // Let the reader see the final state at least once.
  const int seen = queries.load();
  while (queries.load() < seen + 2) std::this_thread::yield();
  done = true;
  reader.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(queries.load(), 2);
}

// --- Opening what cannot be used -------------------------------------------------------------

TEST_F(SqliteStoreTest, MissingDirectoryIsOneClearError) {
  StorageOptions options = Options();
  options.path = dir_.Join("no/such/dir/edgemond.db");
  const auto store = SqliteStore::Open(options);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store.status().message(), "storage: directory " + dir_.Join("no/such/dir") +
                                          " for database " + options.path + " does not exist");
  EXPECT_FALSE(std::filesystem::exists(dir_.Join("no")));
}

TEST_F(SqliteStoreTest, DatabasePathThatIsADirectoryIsRefused) {
  std::filesystem::create_directory(path_);
  const auto store = SqliteStore::Open(Options());
  EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument) << store.status();
  EXPECT_NE(store.status().message().find(path_), std::string_view::npos);
}

TEST_F(SqliteStoreTest, UnwritableDirectoryIsOneClearError) {
  // Root may write anywhere, so when the suite runs as root the open happens in a child that
  // has dropped to nobody; the child reports the status through a pipe.
  const std::string ro = dir_.Join("ro");
  std::filesystem::create_directory(ro);
  ASSERT_EQ(::chmod(dir_.path().c_str(), 0755), 0);
  ASSERT_EQ(::chmod(ro.c_str(), 0555), 0);
  StorageOptions options = Options();
  options.path = ro + "/edgemond.db";
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(3);
    const auto store = SqliteStore::Open(options);
    const std::string report = std::to_string(static_cast<int>(store.status().code())) + " " +
                               std::string(store.status().message());
    (void)!::write(fds[1], report.data(), report.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string report;
  char buffer[512];
  ssize_t n;
  while ((n = ::read(fds[0], buffer, sizeof(buffer))) > 0) report.append(buffer, n);
  ::close(fds[0]);
  int wait_status = 0;
  ASSERT_EQ(::waitpid(pid, &wait_status, 0), pid);
  ASSERT_TRUE(WIFEXITED(wait_status));
  ASSERT_EQ(WEXITSTATUS(wait_status), 0) << "could not drop privileges";
  EXPECT_EQ(report, std::to_string(static_cast<int>(StatusCode::kPermissionDenied)) +
                        " storage: directory " + ro + " is not writable (database " + options.path +
                        " and its -wal and -shm files are created there): Permission denied");
  EXPECT_FALSE(std::filesystem::exists(options.path));
}

TEST_F(SqliteStoreTest, FileThatIsNotADatabaseIsRefusedAndUntouched) {
  const std::string content = "# edgemond.json\n{\"listen\": \"127.0.0.1:9101\"}\n";
  { std::ofstream(path_) << content; }
  const auto store = SqliteStore::Open(Options());
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kCorruption) << store.status();
  EXPECT_NE(store.status().message().find(path_), std::string_view::npos) << store.status();
  EXPECT_NE(store.status().message().find("file is not a database"), std::string_view::npos)
      << store.status();
  EXPECT_EQ(ReadFile(path_), content);
  EXPECT_FALSE(std::filesystem::exists(path_ + "-wal"));
}

TEST_F(SqliteStoreTest, CorruptDatabaseIsRefusedAndUntouched) {
  {
    auto store = Open();
    for (int i = 0; i < 3000; ++i) {
      std::vector<Sample> batch;
      for (int s = 0; s < 10; ++s) {
        batch.push_back(MakeSample(kCpu, {{"cpu", std::to_string(s)}}, kT0 + i * 1000LL, i));
      }
      ASSERT_TRUE(store->Append(batch).ok());
    }
    ASSERT_TRUE(store->Flush().ok());
  }
  std::int64_t root_page = 0;
  {
    auto db = sqlite::Database::Open(path_, {});
    ASSERT_TRUE(db.ok());
    root_page =
        (*db)->QueryInt64("SELECT rootpage FROM sqlite_master WHERE name = 'series'").value();
  }
  {
    // Garbage over the catalog's b-tree page.
    std::fstream file(path_, std::ios::binary | std::ios::in | std::ios::out);
    file.seekp(static_cast<std::streamoff>(root_page - 1) * 4096);
    const std::string garbage(300, '\x5A');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  const std::string before = ReadFile(path_);
  StorageOptions options = Options();
  options.check_integrity_on_open = true;
  const auto store = SqliteStore::Open(options);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kCorruption) << store.status();
  EXPECT_NE(store.status().message().find(path_), std::string_view::npos) << store.status();
  EXPECT_EQ(ReadFile(path_), before);
}

TEST_F(SqliteStoreTest, DatabaseFromANewerEdgemondIsRefused) {
  {
    auto store = Open();
    auto db = sqlite::Database::Open(path_, {});
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(
        (*db)->Execute("PRAGMA user_version=" + std::to_string(CurrentSchemaVersion() + 1)).ok());
  }
  const auto store = SqliteStore::Open(Options());
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition) << store.status();
  EXPECT_NE(
      store.status().message().find("schema version " + std::to_string(CurrentSchemaVersion() + 1)),
      std::string_view::npos)
      << store.status();
}

TEST_F(SqliteStoreTest, OneStorePerDatabaseFile) {
  auto first = Open();
  ASSERT_NE(first, nullptr);
  const auto second = SqliteStore::Open(Options());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kFailedPrecondition) << second.status();
  EXPECT_EQ(second.status().message(), "storage: database " + path_ +
                                           " is in use by another edgemond (lock file " + path_ +
                                           ".lock); run one per database");
  first.reset();  // Released with the store.
  EXPECT_NE(Open(), nullptr);
}

TEST_F(SqliteStoreTest, InvalidOptionsAreRejected) {
  StorageOptions options = Options();
  options.raw_retention = milliseconds(0);
  EXPECT_EQ(SqliteStore::Open(options).status().code(), StatusCode::kInvalidArgument);
  options = Options();
  options.max_bytes = 1 << 20;
  EXPECT_EQ(SqliteStore::Open(options).status().code(), StatusCode::kInvalidArgument);
  options = Options();
  options.path.clear();
  EXPECT_EQ(SqliteStore::Open(options).status().code(), StatusCode::kInvalidArgument);
  options = Options();
  options.flush_interval = seconds(0);
  EXPECT_EQ(SqliteStore::Open(options).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace edgemond::storage
