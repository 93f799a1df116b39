#include "storage/schema.h"

#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <iterator>
#include <map>

#include "storage/block_table.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::storage {
namespace {

using ::edgemond::testing::TempDir;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class SchemaTest : public ::testing::Test {
 protected:
  std::unique_ptr<sqlite::Database> Open() {
    auto db = sqlite::Database::Open(path_, {});
    EXPECT_TRUE(db.ok()) << db.status();
    return db.ok() ? std::move(db).value() : nullptr;
  }
  // A new database the way SqliteStore creates it, at the current schema or at `version`.
  std::unique_ptr<sqlite::Database> Create(int version = CurrentSchemaVersion()) {
    auto db = Open();
    EXPECT_TRUE(PrepareEmptyDatabase(*db).ok());
    EXPECT_TRUE(db->QueryString("PRAGMA journal_mode=WAL").ok());
    EXPECT_TRUE(Migrate(*db, BuiltinMigrations().first(static_cast<std::size_t>(version))).ok());
    return db;
  }
  std::int64_t Int(sqlite::Database& db, const char* sql) { return db.QueryInt64(sql).value(); }

  TempDir dir_;
  const std::string path_ = dir_.Join("edgemond.db");
};

TEST_F(SchemaTest, NewDatabaseGetsTheCurrentSchema) {
  auto db = Create();
  EXPECT_EQ(Int(*db, "PRAGMA user_version"), CurrentSchemaVersion());
  EXPECT_EQ(CurrentSchemaVersion(), 4);
  EXPECT_EQ(Int(*db, "PRAGMA application_id"), kApplicationId);
  EXPECT_EQ(Int(*db, "PRAGMA auto_vacuum"), 2);  // INCREMENTAL.
  EXPECT_EQ(Int(*db, "PRAGMA page_size"), 4096);
  EXPECT_EQ(db->QueryString("PRAGMA journal_mode").value(), "wal");
  EXPECT_EQ(db->QueryString("SELECT group_concat(name) FROM (SELECT name FROM sqlite_master "
                            "WHERE type = 'table' ORDER BY name)")
                .value(),
            "alert_history,benchmark_run_power,benchmark_run_readings,benchmark_runs,blocks_1h,"
            "blocks_1m,blocks_raw,series,series_extent");
  // Blocks are rowid tables keyed by their first timestamp (incremental blob reads need rowids).
  EXPECT_EQ(db->QueryString("SELECT group_concat(name || ':' || pk) FROM "
                            "pragma_table_info('blocks_raw')")
                .value(),
            "t0:1,t1:0,points:0,data:0");
  EXPECT_TRUE(db->IntegrityCheck().ok());
}

TEST_F(SchemaTest, MigrateIsIdempotent) {
  {
    auto db = Create();
    ASSERT_TRUE(db->Execute("INSERT INTO blocks_raw VALUES (1, 1, 1, x'00')").ok());
  }
  auto db = Open();
  auto version = CheckSchema(*db, BuiltinMigrations());
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, CurrentSchemaVersion());
  ASSERT_TRUE(Migrate(*db).ok());
  EXPECT_EQ(Int(*db, "SELECT count(*) FROM blocks_raw"), 1);
}

TEST_F(SchemaTest, PrepareEmptyDatabaseLeavesExistingDatabasesAlone) {
  {
    auto db = Open();
    ASSERT_TRUE(db->Execute("CREATE TABLE t(x)").ok());
  }
  auto db = Open();
  ASSERT_TRUE(PrepareEmptyDatabase(*db).ok());
  EXPECT_EQ(Int(*db, "PRAGMA auto_vacuum"), 0);
}

TEST_F(SchemaTest, FutureVersionIsRefusedAndLeftUntouched) {
  {
    auto db = Create();
    ASSERT_TRUE(db->Execute("PRAGMA user_version=5").ok());
    ASSERT_TRUE(db->Checkpoint(sqlite::Database::CheckpointMode::kTruncate).ok());
  }
  const std::string before = ReadFile(path_);
  auto db = Open();
  const Status status = Migrate(*db);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition) << status;
  EXPECT_NE(status.message().find(path_), std::string_view::npos) << status;
  EXPECT_NE(status.message().find("schema version 5, newer than this edgemond understands (4)"),
            std::string_view::npos)
      << status;
  EXPECT_EQ(Int(*db, "PRAGMA user_version"), 5);
  db.reset();
  EXPECT_EQ(ReadFile(path_), before);
}

TEST_F(SchemaTest, OtherSqliteDatabasesAreRefused) {
  {
    auto db = Open();
    ASSERT_TRUE(db->Execute("CREATE TABLE contacts(name)").ok());
  }
  auto db = Open();
  Status status = Migrate(*db);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition) << status;
  EXPECT_NE(status.message().find("not an edgemond database"), std::string_view::npos) << status;
  EXPECT_EQ(Int(*db, "SELECT count(*) FROM sqlite_master"), 1);

  ASSERT_TRUE(db->Execute("PRAGMA application_id=1234").ok());
  status = Migrate(*db);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition) << status;
  EXPECT_NE(status.message().find("another application (application_id 0x000004d2)"),
            std::string_view::npos)
      << status;
}

Status CreateExtraTable(sqlite::Database& db) { return db.Execute("CREATE TABLE extra(x)"); }
Status CreateThenFail(sqlite::Database& db) {
  EDGEMOND_RETURN_IF_ERROR(db.Execute("CREATE TABLE doomed(x)"));
  return Status::Internal("migration step failed");
}

TEST_F(SchemaTest, AppliesOnlyTheMissingMigrationsInOrder) {
  { auto db = Create(); }
  const std::array<Migration, 5> migrations = {{
      BuiltinMigrations()[0],
      BuiltinMigrations()[1],
      BuiltinMigrations()[2],
      BuiltinMigrations()[3],
      {5, "extra table", &CreateExtraTable},
  }};
  auto db = Open();
  ASSERT_TRUE(Migrate(*db, migrations).ok());
  EXPECT_EQ(Int(*db, "PRAGMA user_version"), 5);
  EXPECT_EQ(Int(*db, "SELECT count(*) FROM sqlite_master WHERE name = 'extra'"), 1);
  // With only v1 to v4 known, this database is now from the future.
  EXPECT_EQ(Migrate(*db).code(), StatusCode::kFailedPrecondition);
}

TEST_F(SchemaTest, MigratesV1SamplesIntoRawBlocks) {
  constexpr std::int64_t kT0 = 1767225600000;
  {
    auto db = Create(/*version=*/1);
    ASSERT_TRUE(db->Execute("INSERT INTO series VALUES (1, 'a', '', '', 'gauge'), "
                            "(2, 'b', '', '', 'counter');"
                            "INSERT INTO series_extent VALUES (1, 0, 0), (2, 0, 0)")
                    .ok());
    auto insert = db->Prepare("INSERT INTO samples VALUES (?, ?, ?)");
    ASSERT_TRUE(insert.ok());
    // 25 minutes of series 1 at 1 Hz and series 2 every 10 s: three 10-minute blocks.
    for (int i = 0; i < 1500; ++i) {
      for (int s = 1; s <= 2; ++s) {
        if (s == 2 && i % 10 != 0) continue;
        insert->BindInt64(0, kT0 + i * 1000);
        insert->BindInt64(1, s);
        insert->BindDouble(2, s == 1 ? i * 0.5 : 1e9 + i);
        ASSERT_TRUE(insert->Run().ok());
        insert->Reset();
      }
    }
  }
  auto db = Open();
  ASSERT_TRUE(Migrate(*db).ok());
  EXPECT_EQ(Int(*db, "PRAGMA user_version"), CurrentSchemaVersion());
  EXPECT_EQ(Int(*db, "SELECT count(*) FROM sqlite_master WHERE name = 'samples'"), 0);
  EXPECT_EQ(Int(*db, "SELECT count(*) FROM blocks_raw"), 3);
  EXPECT_EQ(Int(*db, "SELECT sum(points) FROM blocks_raw"), 1500 + 150);
  EXPECT_EQ(Int(*db, "SELECT count(*) FROM series_extent"), 2);
  BlockTable table(*db, SpecOf(Tier::kRaw));
  auto rows = table.Overlapping(kT0, kT0 + 3'600'000);
  ASSERT_TRUE(rows.ok());
  std::map<std::int64_t, SeriesPoints> read;
  ASSERT_TRUE(table
                  .Scan(*rows, {}, 1,
                        [&](std::int64_t id, const SeriesPoints& points) {
                          auto& all = read[id];
                          all.timestamps.insert(all.timestamps.end(), points.timestamps.begin(),
                                                points.timestamps.end());
                          all.columns[0].insert(all.columns[0].end(), points.columns[0].begin(),
                                                points.columns[0].end());
                          return Status::Ok();
                        })
                  .ok());
  ASSERT_EQ(read[1].timestamps.size(), 1500u);
  ASSERT_EQ(read[2].timestamps.size(), 150u);
  for (int i = 0; i < 1500; ++i) {
    EXPECT_EQ(read[1].timestamps[static_cast<std::size_t>(i)], kT0 + i * 1000);
    EXPECT_EQ(read[1].columns[0][static_cast<std::size_t>(i)], i * 0.5);
  }
  EXPECT_EQ(read[2].columns[0][149], 1e9 + 1490);
  EXPECT_TRUE(db->IntegrityCheck().ok());
}

TEST_F(SchemaTest, FailedMigrationLeavesThePreviousVersion) {
  { auto db = Create(/*version=*/1); }
  const std::array<Migration, 2> migrations = {{
      BuiltinMigrations()[0],
      {2, "fails half-way", &CreateThenFail},
  }};
  auto db = Open();
  const Status status = Migrate(*db, migrations);
  EXPECT_EQ(status.code(), StatusCode::kInternal);
  EXPECT_NE(status.message().find("to schema version 2 (fails half-way)"), std::string_view::npos)
      << status;
  EXPECT_EQ(Int(*db, "PRAGMA user_version"), 1);
  EXPECT_EQ(Int(*db, "SELECT count(*) FROM sqlite_master WHERE name = 'doomed'"), 0);
  EXPECT_FALSE(db->InTransaction());
}

TEST_F(SchemaTest, MisnumberedMigrationsAreRejected) {
  const std::array<Migration, 1> migrations = {{{2, "skips v1", &CreateExtraTable}}};
  auto db = Open();
  EXPECT_EQ(Migrate(*db, migrations).code(), StatusCode::kInternal);
  EXPECT_EQ(Int(*db, "SELECT count(*) FROM sqlite_master"), 0);
}

}  // namespace
}  // namespace edgemond::storage
