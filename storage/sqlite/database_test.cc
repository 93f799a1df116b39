#include "storage/sqlite/database.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "storage/sqlite/statement.h"
#include "storage/sqlite/transaction.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::storage::sqlite {
namespace {

using ::edgemond::testing::TempDir;

std::unique_ptr<Database> OpenOrDie(const std::string& path, DatabaseOptions options = {}) {
  auto db = Database::Open(path, options);
  EXPECT_TRUE(db.ok()) << db.status();
  return db.ok() ? std::move(db).value() : nullptr;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
}

TEST(DatabaseTest, RoundTripsEveryColumnType) {
  TempDir dir;
  auto db = OpenOrDie(dir.Join("t.db"));
  ASSERT_TRUE(db->Execute("CREATE TABLE t(i INTEGER, r REAL, s TEXT, n)").ok());
  {
    auto insert = db->Prepare("INSERT INTO t VALUES (?, ?, ?, ?)");
    ASSERT_TRUE(insert.ok()) << insert.status();
    insert->BindInt64(0, 1767225600123);
    insert->BindDouble(1, 45.5);
    insert->BindText(2, std::string_view("temp\0x", 6));  // Embedded NUL survives.
    insert->BindNull(3);
    ASSERT_TRUE(insert->Run().ok());
  }
  auto select = db->Prepare("SELECT i, r, s, n FROM t");
  ASSERT_TRUE(select.ok()) << select.status();
  auto row = select->Step();
  ASSERT_TRUE(row.ok() && *row) << row.status();
  EXPECT_EQ(select->ColumnCount(), 4);
  EXPECT_EQ(select->GetColumnType(0), ColumnType::kInteger);
  EXPECT_EQ(select->ColumnInt64(0), 1767225600123);
  EXPECT_EQ(select->GetColumnType(1), ColumnType::kFloat);
  EXPECT_EQ(select->ColumnDouble(1), 45.5);
  EXPECT_EQ(select->ColumnText(2), std::string_view("temp\0x", 6));
  EXPECT_TRUE(select->ColumnIsNull(3));
  auto done = select->Step();
  ASSERT_TRUE(done.ok());
  EXPECT_FALSE(*done);
}

TEST(DatabaseTest, BindErrorIsReportedByTheNextStep) {
  TempDir dir;
  auto db = OpenOrDie(dir.Join("t.db"));
  auto statement = db->Prepare("SELECT ?");
  ASSERT_TRUE(statement.ok());
  statement->BindInt64(5, 1);  // Only parameter 0 exists.
  auto row = statement->Step();
  ASSERT_FALSE(row.ok());
  EXPECT_EQ(row.status().code(), StatusCode::kInternal);
  EXPECT_NE(row.status().message().find("SQLITE_RANGE"), std::string_view::npos) << row.status();
  EXPECT_NE(row.status().message().find("SELECT ?"), std::string_view::npos) << row.status();
  statement->Reset();  // Clears the sticky error.
  statement->BindInt64(0, 7);
  row = statement->Step();
  ASSERT_TRUE(row.ok() && *row) << row.status();
  EXPECT_EQ(statement->ColumnInt64(0), 7);
}

TEST(DatabaseTest, RunRefusesStatementsThatReturnRows) {
  TempDir dir;
  auto db = OpenOrDie(dir.Join("t.db"));
  auto statement = db->Prepare("SELECT 1");
  ASSERT_TRUE(statement.ok());
  const Status status = statement->Run();
  EXPECT_EQ(status.code(), StatusCode::kInternal) << status;
}

TEST(DatabaseTest, PrepareRejectsSyntaxErrorsAndTrailingStatements) {
  TempDir dir;
  const std::string path = dir.Join("t.db");
  auto db = OpenOrDie(path);
  auto bad = db->Prepare("SELEC 1");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInternal);
  EXPECT_NE(bad.status().message().find(path), std::string_view::npos) << bad.status();
  EXPECT_NE(bad.status().message().find("syntax error"), std::string_view::npos) << bad.status();

  auto two = db->Prepare("SELECT 1; SELECT 2");
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.status().code(), StatusCode::kInternal);
  EXPECT_TRUE(db->Prepare("SELECT 1;  ").ok());
}

TEST(DatabaseTest, CachedStatementIsResetAndClearedWhenReleased) {
  TempDir dir;
  auto db = OpenOrDie(dir.Join("t.db"));
  ASSERT_TRUE(db->Execute("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)").ok());
  constexpr std::string_view kSql = "SELECT x FROM t WHERE x >= ? ORDER BY x";
  {
    auto statement = db->GetCachedStatement(kSql);
    ASSERT_TRUE(statement.ok()) << statement.status();
    statement->BindInt64(0, 2);
    auto row = statement->Step();
    ASSERT_TRUE(row.ok() && *row);
    EXPECT_EQ(statement->ColumnInt64(0), 2);
    // Borrowing the same statement while it is in use is a programmer error.
    auto again = db->GetCachedStatement(kSql);
    EXPECT_EQ(again.status().code(), StatusCode::kInternal);
  }
  // Released mid-iteration: it starts over, and the old binding is gone (NULL matches nothing).
  auto statement = db->GetCachedStatement(kSql);
  ASSERT_TRUE(statement.ok()) << statement.status();
  auto row = statement->Step();
  ASSERT_TRUE(row.ok());
  EXPECT_FALSE(*row);
  statement->Reset();
  statement->BindInt64(0, 1);
  row = statement->Step();
  ASSERT_TRUE(row.ok() && *row);
  EXPECT_EQ(statement->ColumnInt64(0), 1);
}

TEST(DatabaseTest, ReleasedCachedStatementEndsItsReadTransaction) {
  // A borrowed statement left mid-iteration would pin a WAL snapshot; releasing must end it.
  TempDir dir;
  auto db = OpenOrDie(dir.Join("t.db"));
  ASSERT_TRUE(
      db->Execute("PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)")
          .ok());
  {
    auto statement = db->GetCachedStatement("SELECT x FROM t");
    ASSERT_TRUE(statement.ok());
    ASSERT_TRUE(statement->Step().ok());
  }
  auto checkpoint = db->Checkpoint(Database::CheckpointMode::kTruncate);
  ASSERT_TRUE(checkpoint.ok()) << checkpoint.status();
  EXPECT_EQ(checkpoint->wal_frames, 0);
}

TEST(DatabaseTest, QueryHelpersReturnTheFirstColumn) {
  TempDir dir;
  auto db = OpenOrDie(dir.Join("t.db"));
  auto number = db->QueryInt64("SELECT 6 * 7");
  ASSERT_TRUE(number.ok());
  EXPECT_EQ(*number, 42);
  auto text = db->QueryString("SELECT 'wal'");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "wal");
  EXPECT_EQ(db->QueryInt64("SELECT 1 WHERE 0").status().code(), StatusCode::kNotFound);
}

TEST(DatabaseTest, FileThatIsNotADatabaseIsCorruptionAndLeftUntouched) {
  TempDir dir;
  const std::string path = dir.Join("notes.db");
  const std::string content(8192, 'x');
  WriteFile(path, "this is not a database\n" + content);
  auto db = Database::Open(path, {});
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), StatusCode::kCorruption) << db.status();
  EXPECT_NE(db.status().message().find(path), std::string_view::npos) << db.status();
  EXPECT_NE(db.status().message().find("SQLITE_NOTADB"), std::string_view::npos) << db.status();
  EXPECT_EQ(ReadFile(path), "this is not a database\n" + content);
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
  EXPECT_FALSE(std::filesystem::exists(path + "-journal"));
}

TEST(DatabaseTest, MissingDirectoryIsNotFoundNamingThePath) {
  TempDir dir;
  const std::string path = dir.Join("no/such/dir/t.db");
  auto db = Database::Open(path, {});
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), StatusCode::kNotFound) << db.status();
  EXPECT_NE(db.status().message().find(path), std::string_view::npos) << db.status();
  EXPECT_NE(db.status().message().find("SQLITE_CANTOPEN"), std::string_view::npos) << db.status();
}

TEST(DatabaseTest, ReadWriteModeDoesNotCreateTheFile) {
  TempDir dir;
  const std::string path = dir.Join("t.db");
  DatabaseOptions options;
  options.mode = DatabaseOptions::Mode::kReadWrite;
  EXPECT_FALSE(Database::Open(path, options).ok());
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(DatabaseTest, ReadOnlyConnectionRefusesWrites) {
  TempDir dir;
  const std::string path = dir.Join("t.db");
  ASSERT_TRUE(OpenOrDie(path)->Execute("CREATE TABLE t(x)").ok());
  DatabaseOptions options;
  options.mode = DatabaseOptions::Mode::kReadOnly;
  auto db = OpenOrDie(path, options);
  const Status status = db->Execute("INSERT INTO t VALUES (1)");
  EXPECT_EQ(status.code(), StatusCode::kPermissionDenied) << status;
  EXPECT_NE(status.message().find("SQLITE_READONLY"), std::string_view::npos) << status;
}

TEST(DatabaseTest, ConstraintViolationIsFailedPrecondition) {
  TempDir dir;
  auto db = OpenOrDie(dir.Join("t.db"));
  ASSERT_TRUE(db->Execute("CREATE TABLE t(x PRIMARY KEY); INSERT INTO t VALUES (1)").ok());
  const Status status = db->Execute("INSERT INTO t VALUES (1)");
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition) << status;
  EXPECT_NE(status.message().find("SQLITE_CONSTRAINT_"), std::string_view::npos) << status;
}

TEST(DatabaseTest, LockHeldByAnotherConnectionIsUnavailable) {
  TempDir dir;
  const std::string path = dir.Join("t.db");
  auto writer = OpenOrDie(path);
  ASSERT_TRUE(writer->Execute("PRAGMA journal_mode=WAL; CREATE TABLE t(x)").ok());
  DatabaseOptions impatient;
  impatient.busy_timeout = std::chrono::milliseconds(0);
  auto other = OpenOrDie(path, impatient);
  Transaction holding(*writer, Transaction::Mode::kImmediate);
  ASSERT_TRUE(holding.Begin().ok());
  Transaction waiting(*other, Transaction::Mode::kImmediate);
  const Status status = waiting.Begin();
  EXPECT_EQ(status.code(), StatusCode::kUnavailable) << status;
  EXPECT_NE(status.message().find("SQLITE_BUSY"), std::string_view::npos) << status;
  // WAL: the reader is not blocked by the writer.
  EXPECT_TRUE(other->QueryInt64("SELECT count(*) FROM t").ok());
}

TEST(DatabaseTest, IntegrityCheckFindsDamagedPages) {
  TempDir dir;
  const std::string path = dir.Join("t.db");
  {
    auto db = OpenOrDie(path);
    ASSERT_TRUE(db->Execute("CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT);"
                            "CREATE INDEX t_v ON t(v);"
                            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
                            "WHERE i < 5000) INSERT INTO t SELECT i, printf('value-%08d', i) "
                            "FROM n;")
                    .ok());
    EXPECT_TRUE(db->IntegrityCheck().ok());
    EXPECT_TRUE(db->QuickCheck().ok());
  }
  const auto size = std::filesystem::file_size(path);
  ASSERT_GT(size, 40u * 4096u);
  {
    // Scribble over the cell area of a few pages in the middle of the file (not page 1, so the
    // file still opens).
    std::fstream file(path, std::ios::binary | std::ios::in | std::ios::out);
    for (int page = 10; page < 14; ++page) {
      file.seekp(static_cast<std::streamoff>(page) * 4096 + 100);
      const std::string garbage(3000, '\xA5');
      file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
    }
  }
  auto db = OpenOrDie(path);
  const Status status = db->IntegrityCheck();
  EXPECT_EQ(status.code(), StatusCode::kCorruption) << status;
  EXPECT_NE(status.message().find(path), std::string_view::npos) << status;
}

TEST(DatabaseTest, CheckpointReportsWalFrames) {
  TempDir dir;
  auto db = OpenOrDie(dir.Join("t.db"));
  ASSERT_TRUE(
      db->Execute("PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1)").ok());
  auto passive = db->Checkpoint(Database::CheckpointMode::kPassive);
  ASSERT_TRUE(passive.ok()) << passive.status();
  EXPECT_GT(passive->wal_frames, 0);
  EXPECT_EQ(passive->checkpointed_frames, passive->wal_frames);
  auto truncate = db->Checkpoint(Database::CheckpointMode::kTruncate);
  ASSERT_TRUE(truncate.ok()) << truncate.status();
  EXPECT_EQ(truncate->wal_frames, 0);
}

TEST(DatabaseTest, ManualCheckpointsLetTheWalGrowAndCountIt) {
  TempDir dir;
  DatabaseOptions options;
  options.manual_checkpoints = true;
  auto db = OpenOrDie(dir.Join("t.db"), options);
  ASSERT_TRUE(db->Execute("PRAGMA journal_mode=WAL; CREATE TABLE t(x)").ok());
  EXPECT_GT(db->wal_frames(), 0);
  // One commit of ~1500 pages, past SQLite's default automatic checkpoint (1000 frames)...
  ASSERT_TRUE(db->Execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
                          "WHERE i < 1500) INSERT INTO t SELECT randomblob(3000) FROM n")
                  .ok());
  const int after_big_commit = db->wal_frames();
  EXPECT_GT(after_big_commit, 1000);
  // ...and another: had SQLite checkpointed automatically, this commit would rewind the WAL.
  ASSERT_TRUE(db->Execute("INSERT INTO t VALUES (1)").ok());
  EXPECT_GT(db->wal_frames(), after_big_commit);
  auto checkpoint = db->Checkpoint(Database::CheckpointMode::kPassive);
  ASSERT_TRUE(checkpoint.ok()) << checkpoint.status();
  EXPECT_EQ(db->wal_frames(), 0);
  ASSERT_TRUE(db->Execute("INSERT INTO t VALUES (2)").ok());
  EXPECT_LT(db->wal_frames(), 5);  // Everything was copied, so this commit rewound the WAL.
}

}  // namespace
}  // namespace edgemond::storage::sqlite
