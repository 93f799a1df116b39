// Upgrading a database written by storage v1 (tests/fixtures/storage/v1.db, made by v1's own
// code: see make_v1_db.sh there): the samples become blocks, the rollups are built, nothing is
// lost or changed, and the file is smaller.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <filesystem>

#include "storage/schema.h"
#include "storage/sqlite/database.h"
#include "storage/sqlite_store.h"
#include "tests/fixtures/storage/v1_db_contents.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::storage {
namespace {

using ::edgemond::testing::FixturePath;
using ::edgemond::testing::TempDir;
namespace v1 = ::edgemond::v1_fixture;

class MigrationTest : public ::testing::Test {
 protected:
  void SetUp() override { std::filesystem::copy_file(FixturePath("storage/v1.db"), path_); }
  StorageOptions Options() const {
    StorageOptions options;
    options.path = path_;
    options.ballast_bytes = 0;
    return options;
  }
  std::int64_t Int(const std::string& sql) {
    auto db = sqlite::Database::Open(path_, {});
    EXPECT_TRUE(db.ok()) << db.status();
    return (*db)->QueryInt64(sql).value();
  }
  static std::vector<Point> Query(SqliteStore& store, std::string_view selector,
                                  std::int64_t step_ms, Aggregation aggregation) {
    RangeQuery query;
    query.selector = ParseSeriesSelector(selector).value();
    // On the minute grid, so that minutes and buckets coincide.
    query.from_ms = v1::kStartMs - v1::kStartMs % 60'000;
    query.to_ms = v1::kStartMs + v1::kTicks * 1000LL;
    query.step_ms = step_ms;
    query.aggregation = aggregation;
    auto result = store.Query(query);
    EXPECT_TRUE(result.ok()) << result.status();
    if (!result.ok() || result->series.size() != 1) return {};
    return result->series[0].points;
  }
  // Every stored sample of one series, checked bit for bit against the generator's values.
  static void ExpectSeries(SqliteStore& store, std::string_view selector,
                           std::optional<double> (*value)(int)) {
    const auto points = Query(store, selector, 0, Aggregation::kAvg);
    std::size_t next = 0;
    for (int tick = 0; tick < v1::kTicks; ++tick) {
      const auto expected = value(tick);
      if (!expected || std::isnan(*expected)) continue;  // Gaps were never stored.
      ASSERT_LT(next, points.size()) << selector << " tick " << tick;
      EXPECT_EQ(points[next].t_ms, v1::kStartMs + tick * 1000LL) << selector;
      EXPECT_EQ(std::bit_cast<std::uint64_t>(points[next].value.value()),
                std::bit_cast<std::uint64_t>(*expected))
          << selector << " tick " << tick;
      ++next;
    }
    EXPECT_EQ(next, points.size()) << selector;
  }

  TempDir dir_;
  const std::string path_ = dir_.Join("edgemond.db");
};

TEST_F(MigrationTest, UpgradesAV1DatabaseWithoutLosingAnything) {
  ASSERT_EQ(Int("PRAGMA user_version"), 1);
  const auto v1_bytes = std::filesystem::file_size(path_);
  for (int open = 0; open < 2; ++open) {
    SCOPED_TRACE(open == 0 ? "migrated" : "reopened");
    auto store = SqliteStore::Open(Options());
    ASSERT_TRUE(store.ok()) << store.status();
    // The catalog, with v1's ids, units, types and extents.
    const auto series = (*store)->ListSeries(std::nullopt).value();
    ASSERT_EQ(series.size(), 4u);
    EXPECT_EQ(SeriesKey(series[0].name, series[0].labels),
              R"(edgemond_cpu_utilization_ratio{cpu="all"})");
    EXPECT_EQ(series[1].type, MetricType::kCounter);
    EXPECT_EQ(series[1].unit, "joules");
    EXPECT_EQ(SeriesKey(series[2].name, series[2].labels),
              R"(edgemond_thermal_zone_celsius{type="broken",zone="9"})");
    EXPECT_FALSE(series[2].first_ms.has_value());  // Never read: catalogued, no samples.
    EXPECT_EQ(series[3].first_ms, v1::kStartMs);
    EXPECT_EQ(series[3].last_ms, v1::kStartMs + (v1::kTicks - 1) * 1000LL);
    EXPECT_EQ(series[0].last_ms, v1::kStartMs + (v1::kTicks - 10) * 1000LL);
    // Every sample, bit for bit (an infinity included); nothing else.
    ExpectSeries(**store, R"(edgemond_thermal_zone_celsius{zone="0"})", v1::Zone);
    ExpectSeries(**store, R"(edgemond_cpu_utilization_ratio{cpu="all"})", v1::Cpu);
    ExpectSeries(**store, R"(edgemond_hwmon_energy_joules_total{sensor="energy1"})", v1::Energy);
    // The 1-minute rollups of the hour the data completed were built from the samples.
    const auto minutes =
        Query(**store, R"(edgemond_thermal_zone_celsius{zone="0"})", 60'000, Aggregation::kCount);
    ASSERT_EQ(minutes.size(), 21u);
    for (std::size_t m = 0; m < 20; ++m) EXPECT_EQ(minutes[m].value, 60.0) << m;
  }
  EXPECT_EQ(Int("PRAGMA user_version"), CurrentSchemaVersion());
  EXPECT_EQ(Int("SELECT count(*) FROM sqlite_master WHERE name = 'samples'"), 0);
  EXPECT_EQ(Int("SELECT sum(points) FROM blocks_raw"), 1200 + 118 + 120);
  EXPECT_EQ(Int("SELECT count(*) FROM blocks_1m"), 1);
  EXPECT_LT(std::filesystem::file_size(path_), v1_bytes);
  auto db = sqlite::Database::Open(path_, {});
  ASSERT_TRUE(db.ok());
  EXPECT_TRUE((*db)->IntegrityCheck().ok());
}

}  // namespace
}  // namespace edgemond::storage
