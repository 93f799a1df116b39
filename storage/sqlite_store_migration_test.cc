// Upgrading databases written by earlier edgemond versions, each made by that version's own code
// (tests/fixtures/storage/make_fixtures.sh): storage v1 (schema 1), edgemond 0.1 with its alert
// history table made outside the migrations (schema 1 + alert_history), storage v2 before the
// alert history became a migration (schema 2), the last schema 3 and the first schema 4. The
// samples and transitions come back exactly, the rollups are built, the alert history works, and
// every one ends with the schema of a new database. Each migration still makes what its version
// wrote: a migration, once released, is never edited.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <filesystem>

#include "storage/alert_history.h"
#include "storage/schema.h"
#include "storage/sqlite/database.h"
#include "storage/sqlite_store.h"
#include "tests/fixtures/storage/alert_history_contents.h"
#include "tests/fixtures/storage/v1_db_contents.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::storage {
namespace {

using ::edgemond::testing::FixturePath;
using ::edgemond::testing::TempDir;
namespace v1 = ::edgemond::v1_fixture;

class MigrationTest : public ::testing::Test {
 protected:
  // Tests only ever open copies of the fixtures.
  void CopyFixture(const std::string& name) {
    std::filesystem::copy_file(FixturePath("storage/" + name), path_);
  }
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
  std::string Text(const std::string& sql) {
    auto db = sqlite::Database::Open(path_, {});
    EXPECT_TRUE(db.ok()) << db.status();
    return (*db)->QueryString(sql).value();
  }
  static constexpr const char* kAllRawBlocks =
      "SELECT group_concat(t0 || ':' || t1 || ':' || points || ':' || hex(data), ',') FROM "
      "(SELECT * FROM blocks_raw ORDER BY t0)";
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

  // The samples of v1_db_contents.h, every one bit for bit, their catalog and their rollups.
  static void ExpectFixtureSamples(SqliteStore& store) {
    // The catalog, with the original ids, units, types and extents.
    const auto series = store.ListSeries(std::nullopt).value();
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
    ExpectSeries(store, R"(edgemond_thermal_zone_celsius{zone="0"})", v1::Zone);
    ExpectSeries(store, R"(edgemond_cpu_utilization_ratio{cpu="all"})", v1::Cpu);
    ExpectSeries(store, R"(edgemond_hwmon_energy_joules_total{sensor="energy1"})", v1::Energy);
    // The 1-minute rollups of the hour the data completed were built from the samples.
    const auto minutes =
        Query(store, R"(edgemond_thermal_zone_celsius{zone="0"})", 60'000, Aggregation::kCount);
    ASSERT_EQ(minutes.size(), 21u);
    for (std::size_t m = 0; m < 20; ++m) EXPECT_EQ(minutes[m].value, 60.0) << m;
  }

  // The history opens on the migrated database, answers what it holds and takes new transitions.
  void ExpectAlertHistoryWorks(const std::vector<AlertTransition>& stored) {
    auto history = AlertHistory::Open(path_);
    ASSERT_TRUE(history.ok()) << history.status();
    const AlertHistoryQuery everything{0, INT64_MAX, {}, 1000};
    auto before = (*history)->Query(everything);
    ASSERT_TRUE(before.ok()) << before.status();
    ASSERT_EQ(before->size(), stored.size());
    for (std::size_t i = 0; i < stored.size(); ++i) {
      const AlertTransition& want = stored[stored.size() - 1 - i];  // Newest first.
      const AlertTransition& got = (*before)[i];
      EXPECT_EQ(got.rule, want.rule) << i;
      EXPECT_EQ(got.state, want.state) << i;
      EXPECT_EQ(got.severity, want.severity) << i;
      EXPECT_EQ(got.labels, want.labels) << i;
      EXPECT_EQ(got.rule_labels, want.rule_labels) << i;
      EXPECT_EQ(got.value, want.value) << i;
      EXPECT_EQ(got.op, want.op) << i;
      EXPECT_EQ(got.threshold, want.threshold) << i;
      EXPECT_EQ(got.clear_threshold, want.clear_threshold) << i;
      EXPECT_EQ(got.at, want.at) << i;
      EXPECT_EQ(got.active_since, want.active_since) << i;
      EXPECT_EQ(got.reason, want.reason) << i;
      EXPECT_EQ(got.annotations, want.annotations) << i;
    }
    AlertTransition next;
    next.rule = "memory_low";
    next.severity = AlertSeverity::kWarning;
    next.value = 0.05;
    next.op = "<";
    next.threshold = 0.1;
    next.clear_threshold = 0.15;
    next.at = FromUnixMillis(v1::kStartMs + v1::kTicks * 1000LL);
    next.active_since = next.at;
    next.reason = "threshold";
    ASSERT_TRUE((*history)->Append({next}).ok());
    auto firing = (*history)->StillFiring();
    ASSERT_TRUE(firing.ok()) << firing.status();
    std::vector<std::string> rules;
    for (const AlertTransition& t : *firing) rules.push_back(t.rule);
    // The fixture's hot zone was firing when that edgemond stopped; its failing collector had
    // recovered.
    const std::vector<std::string> expected =
        stored.empty() ? std::vector<std::string>{"memory_low"}
                       : std::vector<std::string>{"memory_low", "thermal_zone_hot"};
    EXPECT_EQ(rules, expected);
  }

  void ExpectCurrentSchemaIntact() {
    EXPECT_EQ(Int("PRAGMA user_version"), CurrentSchemaVersion());
    EXPECT_EQ(Int("SELECT count(*) FROM sqlite_master WHERE name = 'samples'"), 0);
    EXPECT_EQ(Int("SELECT count(*) FROM sqlite_master WHERE name = 'alert_history'"), 1);
    EXPECT_EQ(Int("SELECT count(*) FROM sqlite_master WHERE name LIKE 'benchmark_run%' AND "
                  "type = 'table'"),
              3);
    EXPECT_EQ(Int("SELECT sum(points) FROM blocks_raw"), 1200 + 118 + 120);
    EXPECT_EQ(Int("SELECT count(*) FROM blocks_1m"), 1);
    auto db = sqlite::Database::Open(path_, {});
    ASSERT_TRUE(db.ok());
    EXPECT_TRUE((*db)->IntegrityCheck().ok());
  }

  // Every object of the database's schema, with the SQL that made it, and the settings a
  // migration or the first open fixes.
  static std::string SchemaOf(const std::string& path) {
    auto db = sqlite::Database::Open(path, {});
    EXPECT_TRUE(db.ok()) << db.status();
    if (!db.ok()) return "";
    std::string out;
    for (const char* pragma : {"user_version", "application_id", "page_size", "auto_vacuum"}) {
      out += std::string(pragma) + "=" +
             std::to_string((*db)->QueryInt64(std::string("PRAGMA ") + pragma).value()) + "; ";
    }
    const std::string entries =
        (*db)
            ->QueryString(
                "SELECT group_concat(entry, char(10)) FROM (SELECT type || ' ' || name "
                "|| ' on ' || tbl_name || ': ' || coalesce(sql, '') AS entry FROM "
                "sqlite_master ORDER BY type, name)")
            .value();
    // Runs of white space count as one: edgemond 0.1 indented its alert_history table's SQL
    // differently, and SQLite keeps the text as written.
    for (const char c : entries) {
      const bool space = c == ' ' || c == '\n' || c == '\t';
      if (space && !out.empty() && out.back() == ' ') continue;
      out += space ? ' ' : c;
    }
    return out;
  }

  TempDir dir_;
  const std::string path_ = dir_.Join("edgemond.db");
};

constexpr const char* kFixtures[] = {"v1.db", "v1_alert_history.db", "v2.db", "v3.db", "v4.db"};

TEST_F(MigrationTest, UpgradesAV1DatabaseWithoutLosingAnything) {
  CopyFixture("v1.db");
  ASSERT_EQ(Int("PRAGMA user_version"), 1);
  const auto v1_bytes = std::filesystem::file_size(path_);
  for (int open = 0; open < 2; ++open) {
    SCOPED_TRACE(open == 0 ? "migrated" : "reopened");
    auto store = SqliteStore::Open(Options());
    ASSERT_TRUE(store.ok()) << store.status();
    ExpectFixtureSamples(**store);
  }
  // The samples take less room as blocks than as v1's rows. Tables that later migrations add for
  // other data (the alert history, the benchmark runs) are empty here: one root page each.
  const auto added_pages =
      Int("SELECT count(*) FROM sqlite_master WHERE name LIKE 'alert_history%' OR "
          "name LIKE 'benchmark_run%'");
  EXPECT_LT(std::filesystem::file_size(path_) -
                static_cast<std::uintmax_t>(added_pages * Int("PRAGMA page_size")),
            v1_bytes);
  ExpectCurrentSchemaIntact();
  auto store = SqliteStore::Open(Options());  // The history needs the store's database.
  ASSERT_TRUE(store.ok()) << store.status();
  ExpectAlertHistoryWorks({});
}

TEST_F(MigrationTest, KeepsTheAlertHistoryOfAV1Database) {
  // edgemond 0.1 created alert_history itself, beside schema version 1's tables.
  CopyFixture("v1_alert_history.db");
  ASSERT_EQ(Int("PRAGMA user_version"), 1);
  ASSERT_EQ(Int("SELECT count(*) FROM alert_history"), 5);
  auto store = SqliteStore::Open(Options());
  ASSERT_TRUE(store.ok()) << store.status();
  ExpectFixtureSamples(**store);
  ExpectCurrentSchemaIntact();
  ExpectAlertHistoryWorks(alert_history_fixture::Transitions());
}

TEST_F(MigrationTest, AddsTheAlertHistoryToAV2Database) {
  CopyFixture("v2.db");
  ASSERT_EQ(Int("PRAGMA user_version"), 2);
  ASSERT_EQ(Int("SELECT count(*) FROM sqlite_master WHERE name = 'alert_history'"), 0);
  const std::string blocks = Text(kAllRawBlocks);
  // Without the migration the history refuses the file, and leaves it as it is.
  auto early = AlertHistory::Open(path_);
  EXPECT_EQ(early.status().code(), StatusCode::kFailedPrecondition) << early.status();
  EXPECT_EQ(Int("PRAGMA user_version"), 2);
  auto store = SqliteStore::Open(Options());
  ASSERT_TRUE(store.ok()) << store.status();
  ExpectFixtureSamples(**store);
  ExpectCurrentSchemaIntact();
  // The blocks were not rewritten.
  EXPECT_EQ(Text(kAllRawBlocks), blocks);
  ExpectAlertHistoryWorks({});
}

TEST_F(MigrationTest, UpgradesAV3DatabaseWithItsAlertHistory) {
  CopyFixture("v3.db");
  ASSERT_EQ(Int("PRAGMA user_version"), 3);
  ASSERT_EQ(Int("SELECT count(*) FROM alert_history"), 5);
  auto store = SqliteStore::Open(Options());
  ASSERT_TRUE(store.ok()) << store.status();
  ExpectFixtureSamples(**store);
  ExpectCurrentSchemaIntact();
  ExpectAlertHistoryWorks(alert_history_fixture::Transitions());
}

TEST_F(MigrationTest, OpensAV4DatabaseAsItsFirstWritersLeftIt) {
  CopyFixture("v4.db");
  ASSERT_EQ(Int("PRAGMA user_version"), 4);
  auto store = SqliteStore::Open(Options());
  ASSERT_TRUE(store.ok()) << store.status();
  ExpectFixtureSamples(**store);
  ExpectCurrentSchemaIntact();
  ExpectAlertHistoryWorks(alert_history_fixture::Transitions());
}

TEST_F(MigrationTest, EveryEarlierVersionEndsWithTheSchemaOfANewDatabase) {
  {
    auto fresh = SqliteStore::Open(Options());
    ASSERT_TRUE(fresh.ok()) << fresh.status();
  }
  const std::string want = SchemaOf(path_);
  ASSERT_NE(want.find("CREATE TABLE benchmark_runs"), std::string::npos) << want;
  for (const char* fixture : kFixtures) {
    SCOPED_TRACE(fixture);
    const std::string path = dir_.Join(std::string("migrated-") + fixture);
    std::filesystem::copy_file(FixturePath(std::string("storage/") + fixture), path);
    StorageOptions options = Options();
    options.path = path;
    {
      auto store = SqliteStore::Open(options);
      ASSERT_TRUE(store.ok()) << store.status();
    }
    EXPECT_EQ(SchemaOf(path), want);
  }
}

TEST_F(MigrationTest, EachMigrationStillMakesWhatItsVersionWrote) {
  for (const int version : {1, 2, 3, 4}) {
    SCOPED_TRACE("schema version " + std::to_string(version));
    const std::string fixture = "v" + std::to_string(version) + ".db";
    const std::string written = dir_.Join("written-" + fixture);
    std::filesystem::copy_file(FixturePath("storage/" + fixture), written);
    const std::string made = dir_.Join("made-" + fixture);
    {
      auto db = sqlite::Database::Open(made, {});
      ASSERT_TRUE(db.ok()) << db.status();
      ASSERT_TRUE(PrepareEmptyDatabase(**db).ok());
      ASSERT_TRUE(Migrate(**db, BuiltinMigrations().first(static_cast<std::size_t>(version))).ok());
    }
    EXPECT_EQ(SchemaOf(made), SchemaOf(written));
  }
}

}  // namespace
}  // namespace edgemond::storage
