// The rollup tiers, the query planner, late data, retention per tier and the size cap, on real
// SQLite files.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>

#include "storage/block_table.h"
#include "storage/sqlite/database.h"
#include "storage/sqlite_store.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::storage {
namespace {

using ::edgemond::testing::TempDir;
using std::chrono::hours;

constexpr MetricDesc kVoltage{"edgemond_hwmon_voltage_volts", "Voltage", MetricType::kGauge,
                              "volts"};
// 2026-01-01T00:00:00Z: hour and day windows start on it.
constexpr std::int64_t kT0 = 1767225600000;
constexpr std::int64_t kMinute = 60'000;
constexpr std::int64_t kHour = 3'600'000;
constexpr std::int64_t kDay = 24 * kHour;

// A decimal reading of series s at tick i, or nothing (series 2 misses every 7th reading).
std::optional<double> ValueOf(int s, std::int64_t i) {
  if (s == 2 && i % 7 == 3) return std::nullopt;
  return static_cast<double>(19000 + (i * 37 + s * 11) % 97) * 1e-3;  // hwmon: mV * 1e-3
}

class TierTest : public ::testing::Test {
 protected:
  StorageOptions Options() const {
    StorageOptions options;
    options.path = path_;
    options.ballast_bytes = 0;
    return options;
  }
  std::unique_ptr<SqliteStore> Open(const StorageOptions& options) {
    auto store = SqliteStore::Open(options);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(store).value() : nullptr;
  }

  // Appends ticks [from, to) of `series` series every `interval_ms` from kT0 (+ offset_ms),
  // flushing every `flush_every` ticks and after the last one.
  void Write(SqliteStore& store, std::int64_t from, std::int64_t to, std::int64_t interval_ms,
             int flush_every, int series = 3, std::int64_t offset_ms = 0,
             const std::function<std::optional<double>(int, std::int64_t)>& value = ValueOf) {
    for (std::int64_t i = from; i < to; ++i) {
      std::vector<Sample> batch;
      for (int s = 0; s < series; ++s) {
        Sample sample;
        sample.desc = &kVoltage;
        sample.labels = {{"sensor", "in" + std::to_string(s)}};
        sample.at = FromUnixMillis(kT0 + offset_ms + i * interval_ms);
        sample.value = value(s, i);
        if (!sample.value) sample.missing_reason = "EIO";
        batch.push_back(std::move(sample));
      }
      ASSERT_TRUE(store.Append(batch).ok());
      if ((i + 1) % flush_every == 0 || i + 1 == to) {
        ASSERT_TRUE(store.Flush().ok());
      }
    }
  }

  static RangeQuery Query(int s, std::int64_t from_ms, std::int64_t to_ms, std::int64_t step_ms,
                          Aggregation aggregation) {
    RangeQuery query;
    query.selector.name = std::string(kVoltage.name);
    query.selector.matchers = {{"sensor", LabelMatcher::Op::kEqual, "in" + std::to_string(s)}};
    query.from_ms = from_ms;
    query.to_ms = to_ms;
    query.step_ms = step_ms;
    query.aggregation = aggregation;
    query.max_points_per_series = 1'000'000;
    return query;
  }

  std::vector<Point> Points(SqliteStore& store, const RangeQuery& query) {
    auto result = store.Query(query);
    EXPECT_TRUE(result.ok()) << result.status();
    if (!result.ok() || result->series.size() != 1) return {};
    return result->series[0].points;
  }

  std::int64_t Int(const std::string& sql) {
    auto db = sqlite::Database::Open(path_, {});
    EXPECT_TRUE(db.ok()) << db.status();
    return (*db)->QueryInt64(sql).value();
  }

  // Every point of one tier's blocks, by series.
  std::map<std::int64_t, SeriesPoints> ReadTier(Tier tier) {
    auto db = sqlite::Database::Open(path_, {});
    EXPECT_TRUE(db.ok());
    BlockTable table(**db, SpecOf(tier));
    auto rows = table.Overlapping(0, INT64_MAX / 2);
    EXPECT_TRUE(rows.ok());
    std::map<std::int64_t, SeriesPoints> all;
    EXPECT_TRUE(table
                    .Scan(*rows, {}, 0x1f,
                          [&](std::int64_t id, const SeriesPoints& points) {
                            SeriesPoints& out = all[id];
                            out.timestamps.insert(out.timestamps.end(), points.timestamps.begin(),
                                                  points.timestamps.end());
                            for (std::size_t c = 0; c < out.columns.size(); ++c) {
                              out.columns[c].insert(out.columns[c].end(), points.columns[c].begin(),
                                                    points.columns[c].end());
                            }
                            return Status::Ok();
                          })
                    .ok());
    return all;
  }

  TempDir dir_;
  const std::string path_ = dir_.Join("edgemond.db");
};

// Expected rollup of series s over the ticks whose time falls in [start, start + width).
struct Expected {
  double min = 0, max = 0, last = 0;
  std::int64_t count = 0;
  std::int64_t millivolts = 0;  // The exact sum, in raw units.
};
Expected Aggregate(int s, std::int64_t start, std::int64_t width, std::int64_t interval_ms) {
  Expected e;
  for (std::int64_t i = (start - kT0 + interval_ms - 1) / interval_ms;
       kT0 + i * interval_ms < start + width; ++i) {
    const auto v = ValueOf(s, i);
    if (!v) continue;
    e.min = e.count == 0 ? *v : std::min(e.min, *v);
    e.max = e.count == 0 ? *v : std::max(e.max, *v);
    e.last = *v;
    ++e.count;
    e.millivolts += std::llround(*v * 1000);
  }
  return e;
}

TEST_F(TierTest, RollupsEqualTheAggregateOfTheirRawData) {
  auto store = Open(Options());
  // 26 hours every 5 s, a flush every 2 minutes: 25 closed hours, one closed day.
  constexpr std::int64_t kInterval = 5000;
  Write(*store, 0, 26 * 720, kInterval, 24);
  EXPECT_EQ(Int("SELECT count(*) FROM blocks_1m"), 25);
  EXPECT_EQ(Int("SELECT count(*) FROM blocks_1h"), 1);
  for (const auto& [tier, width] : {std::pair{Tier::kMinute, kMinute}, {Tier::kHour, kHour}}) {
    const auto points = ReadTier(tier);
    ASSERT_EQ(points.size(), 3u);
    for (const auto& [id, p] : points) {
      const int s = static_cast<int>(id) - 1;
      const std::size_t expected_points = tier == Tier::kMinute ? 25 * 60 : 24;
      ASSERT_EQ(p.timestamps.size(), expected_points) << "series " << s;
      for (std::size_t k = 0; k < p.timestamps.size(); ++k) {
        const std::int64_t start = p.timestamps[k];
        ASSERT_EQ(start, kT0 + static_cast<std::int64_t>(k) * width);
        const Expected e = Aggregate(s, start, width, kInterval);
        EXPECT_EQ(p.columns[kMinColumn][k], e.min);
        EXPECT_EQ(p.columns[kMaxColumn][k], e.max);
        EXPECT_EQ(p.columns[kLastColumn][k], e.last);
        EXPECT_EQ(p.columns[kCountColumn][k], static_cast<double>(e.count));
        // Decimal readings are summed exactly.
        EXPECT_EQ(p.columns[kSumColumn][k], static_cast<double>(e.millivolts) / 1000.0);
      }
    }
  }
  // And the tiers answer like the raw samples do.
  for (const std::int64_t step : {kMinute, kHour, 10 * kMinute}) {
    for (const Aggregation aggregation :
         {Aggregation::kMin, Aggregation::kMax, Aggregation::kCount, Aggregation::kAvg}) {
      const auto tiered = Points(*store, Query(2, kT0, kT0 + 26 * kHour - 1, step, aggregation));
      ASSERT_EQ(tiered.size(), static_cast<std::size_t>(26 * kHour / step));
      for (std::size_t k = 0; k < tiered.size(); ++k) {
        const Expected e = Aggregate(2, tiered[k].t_ms, step, kInterval);
        ASSERT_TRUE(tiered[k].value.has_value());
        const double expected = aggregation == Aggregation::kMin   ? e.min
                                : aggregation == Aggregation::kMax ? e.max
                                : aggregation == Aggregation::kCount
                                    ? e.count
                                    : e.millivolts / 1000.0 / e.count;
        EXPECT_NEAR(*tiered[k].value, expected, 1e-12 * std::fabs(expected)) << k;
      }
    }
  }
}

TEST_F(TierTest, TiersAnswerTheSameBeforeAndAfterFlushAndReopen) {
  auto store = Open(Options());
  // 90 minutes at 1 s; the last 25 minutes stay in the head.
  Write(*store, 0, 65 * 60, 1000, 60);
  for (std::int64_t i = 65 * 60; i < 90 * 60; ++i) {
    Sample sample;
    sample.desc = &kVoltage;
    sample.labels = {{"sensor", "in1"}};
    sample.at = FromUnixMillis(kT0 + i * 1000);
    sample.value = ValueOf(1, i);
    ASSERT_TRUE(store->Append({sample}).ok());
  }
  std::vector<RangeQuery> queries;
  for (const std::int64_t step :
       {std::int64_t{0}, std::int64_t{7000}, kMinute, 5 * kMinute, kHour}) {
    for (const Aggregation aggregation :
         {Aggregation::kAvg, Aggregation::kLast, Aggregation::kSum, Aggregation::kCount}) {
      // A range that starts and ends off the grid.
      queries.push_back(Query(1, kT0 + 1234, kT0 + 89 * kMinute + 5, step, aggregation));
    }
  }
  std::vector<std::vector<Point>> before;
  for (const auto& query : queries) before.push_back(Points(*store, query));
  const auto expect_same = [&](const char* when) {
    for (std::size_t q = 0; q < queries.size(); ++q) {
      const auto now = Points(*store, queries[q]);
      ASSERT_EQ(now.size(), before[q].size()) << when << " query " << q;
      for (std::size_t k = 0; k < now.size(); ++k) {
        EXPECT_EQ(now[k].t_ms, before[q][k].t_ms);
        EXPECT_EQ(now[k].value, before[q][k].value) << when << " query " << q << " point " << k;
      }
    }
  };
  ASSERT_TRUE(store->Flush().ok());
  expect_same("after the flush");
  store.reset();
  store = Open(Options());
  expect_same("after reopening");
  // Closing the hour writes its rollups; they answer as the raw samples did.
  Write(*store, 2 * 3600, 2 * 3600 + 1, 1000, 1);
  EXPECT_EQ(Int("SELECT count(*) FROM blocks_1m"), 2);
  expect_same("after the hour was rolled up");
}

TEST_F(TierTest, RollupsMissingFromTheFileAreRebuiltFromRawOnOpen) {
  // 25 hours every 30 s: 24 closed hours (1-minute blocks) and one closed day (a 1-hour block).
  {
    auto store = Open(Options());
    Write(*store, 0, 25 * 120, 30'000, 20);
  }
  ASSERT_EQ(Int("SELECT count(*) FROM blocks_1m"), 24);
  ASSERT_EQ(Int("SELECT count(*) FROM blocks_1h"), 1);
  const auto minutes = ReadTier(Tier::kMinute);
  const auto hours_before = ReadTier(Tier::kHour);
  const auto query = Query(2, kT0, kT0 + 25 * kHour - 1, 10 * kMinute, Aggregation::kAvg);
  std::vector<Point> answered;
  {
    auto store = Open(Options());
    answered = Points(*store, query);
  }
  // The rollup tiers are lost (a file restored from the raw blocks alone, say).
  {
    auto db = sqlite::Database::Open(path_, {});
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Execute("DELETE FROM blocks_1m; DELETE FROM blocks_1h").ok());
  }
  auto store = Open(Options());
  EXPECT_EQ(Int("SELECT count(*) FROM blocks_1m"), 24);
  EXPECT_EQ(Int("SELECT count(*) FROM blocks_1h"), 1);
  const auto same = [](const std::map<std::int64_t, SeriesPoints>& a,
                       const std::map<std::int64_t, SeriesPoints>& b) {
    if (a.size() != b.size()) return false;
    for (const auto& [id, points] : a) {
      const auto it = b.find(id);
      if (it == b.end() || it->second.timestamps != points.timestamps) return false;
      for (std::size_t c = 0; c < points.columns.size(); ++c) {
        if (it->second.columns[c] != points.columns[c]) return false;
      }
    }
    return true;
  };
  EXPECT_TRUE(same(ReadTier(Tier::kMinute), minutes));
  EXPECT_TRUE(same(ReadTier(Tier::kHour), hours_before));
  const auto now = Points(*store, query);
  ASSERT_EQ(now.size(), answered.size());
  for (std::size_t k = 0; k < now.size(); ++k) EXPECT_EQ(now[k].value, answered[k].value) << k;
}

TEST_F(TierTest, PlannerUsesRollupsWhereRawDataIsGone) {
  StorageOptions options = Options();
  options.raw_retention = hours(3);
  auto store = Open(options);
  constexpr std::int64_t kInterval = 10'000;
  Write(*store, 0, 30 * 360, kInterval, 30);  // 30 hours every 10 s.
  const std::int64_t end = kT0 + 30 * kHour - kInterval;
  auto retention = store->EnforceRetention(FromUnixMillis(end));
  ASSERT_TRUE(retention.ok()) << retention.status();
  EXPECT_GT(retention->deleted_blocks, 0);
  // Raw samples are kept for 3 hours plus a batch (an hour) at most.
  const std::int64_t oldest_raw = Int("SELECT min(t0) FROM blocks_raw");
  EXPECT_GE(oldest_raw, end - 4 * kHour - kHour / 10);
  EXPECT_LT(Points(*store, Query(0, kT0, end, 0, Aggregation::kAvg)).size(), 5u * 360);

  // A step that is a multiple of a minute reads the 1-minute tier: the whole day is there.
  const auto minutes = Points(*store, Query(0, kT0, end, 10 * kMinute, Aggregation::kCount));
  ASSERT_EQ(minutes.size(), 180u);
  for (const Point& p : minutes) EXPECT_EQ(p.value, 60.0) << p.t_ms;
  // A step that is not: raw where raw data is kept, the 1-minute tier before (bucket edges snap
  // to minutes there), and nothing is missing.
  const std::int64_t odd_step = 90 * 60'000 + 500;  // 90 min 0.5 s
  const auto odd = Points(*store, Query(0, kT0, end, odd_step, Aggregation::kCount));
  double counted = 0;
  for (const Point& p : odd) counted += p.value.value_or(0);
  EXPECT_EQ(counted, 30.0 * 360);
  for (std::size_t k = 0; k + 1 < odd.size(); ++k) EXPECT_TRUE(odd[k].value.has_value()) << k;
}

TEST_F(TierTest, LateSamplesAreMergedAndTheirRollupsRebuilt) {
  auto store = Open(Options());
  Write(*store, 0, 2 * 3600 + 10, 1000, 60);  // Two closed hours and a bit.
  ASSERT_EQ(Int("SELECT count(*) FROM blocks_1m"), 2);
  const auto count_first_minute = [&] {
    return Points(*store, Query(0, kT0, kT0 + kMinute - 1, kMinute, Aggregation::kCount));
  };
  ASSERT_EQ(count_first_minute().at(0).value, 60.0);
  // The clock stepped back: a sample between two ticks of the first minute, another that
  // replaces a stored one, and one older than anything stored.
  const auto sample = [](std::int64_t ms, double value) {
    Sample s;
    s.desc = &kVoltage;
    s.labels = {{"sensor", "in0"}};
    s.at = FromUnixMillis(ms);
    s.value = value;
    return s;
  };
  ASSERT_TRUE(store
                  ->Append({sample(kT0 + 1500, 99.5), sample(kT0 + 2000, 77.25),
                            sample(kT0 - 5 * kMinute, 1.5)})
                  .ok());
  EXPECT_EQ(count_first_minute().at(0).value, 61.0);  // Before the flush...
  ASSERT_TRUE(store->Flush().ok());
  EXPECT_EQ(count_first_minute().at(0).value, 61.0);  // ...and after.
  const auto raw = Points(*store, Query(0, kT0 - kHour, kT0 + 3000, 0, Aggregation::kAvg));
  ASSERT_EQ(raw.size(), 6u);
  EXPECT_EQ(raw[0].value, 1.5);
  EXPECT_EQ(raw[3].t_ms, kT0 + 1500);
  EXPECT_EQ(raw[3].value, 99.5);
  EXPECT_EQ(raw[4].t_ms, kT0 + 2000);
  EXPECT_EQ(raw[4].value, 77.25);
  // The stored minute was rebuilt, not just patched over at query time.
  const auto minutes = ReadTier(Tier::kMinute);
  EXPECT_EQ(minutes.at(1).timestamps.at(0), kT0 - 5 * kMinute);  // A window of its own.
  EXPECT_EQ(minutes.at(1).columns[kCountColumn].at(0), 1.0);
  EXPECT_EQ(minutes.at(1).timestamps.at(1), kT0);
  EXPECT_EQ(minutes.at(1).columns[kCountColumn].at(1), 61.0);
  EXPECT_EQ(minutes.at(1).columns[kMaxColumn].at(1), 99.5);
  EXPECT_EQ(
      Points(*store, Query(0, kT0 - kHour, kT0 - 1, kMinute, Aggregation::kCount)).at(55).value,
      1.0);
  // Blocks of a tier never overlap.
  for (const char* table : {"blocks_raw", "blocks_1m", "blocks_1h"}) {
    EXPECT_EQ(Int(std::string("SELECT count(*) FROM ") + table + " a JOIN " + table +
                  " b ON a.t0 < b.t0 AND a.t1 >= b.t0"),
              0)
        << table;
  }
}

TEST_F(TierTest, RetentionDropsWholeExpiredBlocksPerTier) {
  StorageOptions options = Options();
  options.raw_retention = hours(2);
  options.minute_retention = hours(6);
  options.hour_retention = hours(24 * 30);
  auto store = Open(options);
  Write(*store, 0, 50 * 360, 10'000, 60);  // 50 hours every 10 s.
  const std::int64_t end = kT0 + 50 * kHour - 10'000;
  const std::int64_t blocks_before = Int("SELECT count(*) FROM blocks_raw");
  auto result = store->EnforceRetention(FromUnixMillis(end));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->complete);
  EXPECT_EQ(result->dropped_for_size, 0);
  // Raw: older than 2 h goes once an hour's worth has expired; whole blocks only.
  EXPECT_GE(Int("SELECT min(t1) FROM blocks_raw"), end - 2 * kHour);
  EXPECT_LT(Int("SELECT min(t0) FROM blocks_raw"), end - 2 * kHour + 10 * kMinute);
  // 1-minute: older than 6 h goes once a day's worth has expired.
  EXPECT_GE(Int("SELECT min(t1) FROM blocks_1m"), end - 6 * kHour);
  EXPECT_EQ(Int("SELECT count(*) FROM blocks_1h"), 2);  // Kept for 30 days.
  EXPECT_LT(Int("SELECT count(*) FROM blocks_raw"), blocks_before);
  // Nothing more is due right after.
  result = store->EnforceRetention(FromUnixMillis(end));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->deleted_blocks, 0);
  // The day at 1 h is still complete, from the 1-hour tier.
  const auto day = Points(*store, Query(1, kT0, kT0 + kDay - 1, kHour, Aggregation::kCount));
  ASSERT_EQ(day.size(), 24u);
  for (const Point& p : day) EXPECT_EQ(p.value, 360.0);
  // Extents follow what is left.
  const auto series = store->ListSeries(std::nullopt).value();
  EXPECT_EQ(series.at(0).first_ms, kT0);  // The 1-hour tier reaches back to the start.
}

TEST_F(TierTest, RetentionForgetsSeriesWithNothingLeft) {
  StorageOptions options = Options();
  options.raw_retention = hours(24);
  options.minute_retention = hours(24);
  options.hour_retention = hours(24);
  const auto sample = [](const char* zone, std::int64_t ms, std::optional<double> value) {
    Sample s;
    s.desc = &kVoltage;
    s.labels = {{"sensor", zone}};
    s.at = FromUnixMillis(ms);
    s.value = value;
    if (!value) s.missing_reason = "EIO";
    return s;
  };
  {
    // A previous run saw a USB sensor and a sensor that never read.
    auto store = Open(options);
    ASSERT_TRUE(store
                    ->Append({sample("usb", kT0, 30), sample("broken", kT0, std::nullopt),
                              sample("in0", kT0, 40)})
                    .ok());
    ASSERT_TRUE(store->Flush().ok());
  }
  auto store = Open(options);
  // This run, 10 days later (the 1-hour tier deletes a week at a time): in0 still exists but is
  // failing; in1 reads.
  const std::int64_t later = kT0 + 10 * kDay;
  ASSERT_TRUE(store->Append({sample("in0", later, std::nullopt), sample("in1", later, 41)}).ok());
  ASSERT_TRUE(store->Flush().ok());
  auto result = store->EnforceRetention(FromUnixMillis(later));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->deleted_series, 2);  // usb and broken.
  EXPECT_GE(result->deleted_points, 2);
  for (int reopen = 0; reopen < 2; ++reopen) {
    const auto series = store->ListSeries(std::nullopt).value();
    ASSERT_EQ(series.size(), 2u);
    EXPECT_EQ(series[0].labels.at(0).value, "in0");
    EXPECT_FALSE(series[0].first_ms.has_value());  // Kept (it is still reported), but empty.
    EXPECT_EQ(series[1].labels.at(0).value, "in1");
    EXPECT_EQ(series[1].first_ms, later);
    store.reset();
    store = Open(options);
  }
}

// Noisy values (random doubles) that cost ~8 bytes each, to fill megabytes quickly.
std::optional<double> Noise(int s, std::int64_t i) {
  std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15u + static_cast<unsigned>(s);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9u;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBu;
  return static_cast<double>(x >> 11) / 9007199254740992.0;
}

TEST_F(TierTest, SizeCapDropsTheOldestFirstAndTheFileShrinks) {
  StorageOptions options = Options();
  options.max_bytes = 0;
  {
    auto store = Open(options);
    Write(*store, 0, 5 * 3600, 1000, 300, 60, 0, Noise);  // 1,080,000 samples, ~9 MB.
  }
  const auto full_bytes = static_cast<std::int64_t>(std::filesystem::file_size(path_));
  ASSERT_GT(full_bytes, 7 << 20);

  // The raw blocks of the hour still open (not rolled up yet) and the rollups fit in the cap.
  options.max_bytes = 6 << 20;
  auto store = Open(options);
  const std::int64_t end = kT0 + 5 * kHour - 1000;
  auto result = store->EnforceRetention(FromUnixMillis(end));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_GT(result->dropped_for_size, 0);
  EXPECT_EQ(result->dropped_for_size, result->deleted_blocks);  // Nothing had expired by age.
  // Raw blocks went first (the oldest relative to their retention), the oldest first.
  EXPECT_EQ(Int("SELECT count(*) FROM blocks_1m"), 4);
  const std::int64_t oldest_raw = Int("SELECT min(t0) FROM blocks_raw");
  EXPECT_GT(oldest_raw, kT0);
  // The 1-minute tier still answers for the dropped part.
  const auto minutes = Points(*store, Query(7, kT0, oldest_raw - 1, kMinute, Aggregation::kCount));
  ASSERT_FALSE(minutes.empty());
  for (const Point& p : minutes) EXPECT_EQ(p.value, 60.0) << p.t_ms;
  store.reset();
  const auto capped_bytes = static_cast<std::int64_t>(std::filesystem::file_size(path_));
  EXPECT_LE(capped_bytes, options.max_bytes);
  EXPECT_LT(capped_bytes, full_bytes);
  // Writing on stays under the cap.
  store = Open(options);
  Write(*store, 5 * 3600, 6 * 3600, 1000, 300, 60, 0, Noise);
  ASSERT_TRUE(store->EnforceRetention(FromUnixMillis(kT0 + 6 * kHour)).ok());
  store.reset();
  EXPECT_LE(static_cast<std::int64_t>(std::filesystem::file_size(path_)), options.max_bytes);
  auto db = sqlite::Database::Open(path_, {});
  ASSERT_TRUE(db.ok());
  EXPECT_TRUE((*db)->IntegrityCheck().ok());
}

}  // namespace
}  // namespace edgemond::storage
