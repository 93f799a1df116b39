#include "storage/schema.h"

#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <iterator>

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
  // A new database the way SqliteStore creates it.
  std::unique_ptr<sqlite::Database> Create() {
    auto db = Open();
    EXPECT_TRUE(PrepareEmptyDatabase(*db).ok());
    EXPECT_TRUE(db->QueryString("PRAGMA journal_mode=WAL").ok());
    EXPECT_TRUE(Migrate(*db).ok());
    return db;
  }
  std::int64_t Int(sqlite::Database& db, const char* sql) { return db.QueryInt64(sql).value(); }

  TempDir dir_;
  const std::string path_ = dir_.Join("edgemond.db");
};

TEST_F(SchemaTest, NewDatabaseGetsTheCurrentSchema) {
  auto db = Create();
  EXPECT_EQ(Int(*db, "PRAGMA user_version"), CurrentSchemaVersion());
  EXPECT_EQ(CurrentSchemaVersion(), 1);
  EXPECT_EQ(Int(*db, "PRAGMA application_id"), kApplicationId);
  EXPECT_EQ(Int(*db, "PRAGMA auto_vacuum"), 2);  // INCREMENTAL.
  EXPECT_EQ(Int(*db, "PRAGMA page_size"), 4096);
  EXPECT_EQ(db->QueryString("PRAGMA journal_mode").value(), "wal");
  EXPECT_EQ(Int(*db,
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                "('series', 'series_extent', 'samples')"),
            3);
  // samples is clustered on (ts, series_id).
  EXPECT_EQ(db->QueryString("SELECT group_concat(name) FROM (SELECT name FROM "
                            "pragma_index_xinfo('sqlite_autoindex_samples_1') WHERE key = 1 "
                            "ORDER BY seqno)")
                .value(),
            "ts,series_id");
  EXPECT_TRUE(db->IntegrityCheck().ok());
}

TEST_F(SchemaTest, MigrateIsIdempotent) {
  {
    auto db = Create();
    ASSERT_TRUE(db->Execute("INSERT INTO samples VALUES (1, 1, 0.5)").ok());
  }
  auto db = Open();
  auto version = CheckSchema(*db, BuiltinMigrations());
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, 1);
  ASSERT_TRUE(Migrate(*db).ok());
  EXPECT_EQ(Int(*db, "SELECT count(*) FROM samples"), 1);
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
    ASSERT_TRUE(db->Execute("PRAGMA user_version=2").ok());
    ASSERT_TRUE(db->Checkpoint(sqlite::Database::CheckpointMode::kTruncate).ok());
  }
  const std::string before = ReadFile(path_);
  auto db = Open();
  const Status status = Migrate(*db);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition) << status;
  EXPECT_NE(status.message().find(path_), std::string_view::npos) << status;
  EXPECT_NE(status.message().find("schema version 2, newer than this edgemond understands (1)"),
            std::string_view::npos)
      << status;
  EXPECT_EQ(Int(*db, "PRAGMA user_version"), 2);
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
  const std::array<Migration, 2> migrations = {{
      BuiltinMigrations()[0],
      {2, "extra table", &CreateExtraTable},
  }};
  auto db = Open();
  ASSERT_TRUE(Migrate(*db, migrations).ok());
  EXPECT_EQ(Int(*db, "PRAGMA user_version"), 2);
  EXPECT_EQ(Int(*db, "SELECT count(*) FROM sqlite_master WHERE name = 'extra'"), 1);
  // With only v1 known, this database is now from the future.
  EXPECT_EQ(Migrate(*db).code(), StatusCode::kFailedPrecondition);
}

TEST_F(SchemaTest, FailedMigrationLeavesThePreviousVersion) {
  { auto db = Create(); }
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
