#include "storage/sqlite/transaction.h"

#include <gtest/gtest.h>

#include "storage/sqlite/database.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::storage::sqlite {
namespace {

using ::edgemond::testing::TempDir;

class TransactionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = Database::Open(dir_.Join("t.db"), {});
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = std::move(db).value();
    ASSERT_TRUE(db_->Execute("PRAGMA journal_mode=WAL; CREATE TABLE t(x)").ok());
  }
  std::int64_t Rows() { return db_->QueryInt64("SELECT count(*) FROM t").value(); }

  TempDir dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(TransactionTest, CommitKeepsTheChanges) {
  Transaction transaction(*db_);
  ASSERT_TRUE(transaction.Begin().ok());
  EXPECT_TRUE(db_->InTransaction());
  ASSERT_TRUE(db_->Execute("INSERT INTO t VALUES (1)").ok());
  ASSERT_TRUE(transaction.Commit().ok());
  EXPECT_FALSE(transaction.is_open());
  EXPECT_FALSE(db_->InTransaction());
  EXPECT_EQ(Rows(), 1);
}

TEST_F(TransactionTest, DestructorRollsBackUncommittedChanges) {
  {
    Transaction transaction(*db_, Transaction::Mode::kImmediate);
    ASSERT_TRUE(transaction.Begin().ok());
    ASSERT_TRUE(db_->Execute("INSERT INTO t VALUES (1)").ok());
  }
  EXPECT_FALSE(db_->InTransaction());
  EXPECT_EQ(Rows(), 0);
}

TEST_F(TransactionTest, ExplicitRollbackDiscardsChanges) {
  Transaction transaction(*db_);
  ASSERT_TRUE(transaction.Begin().ok());
  ASSERT_TRUE(db_->Execute("INSERT INTO t VALUES (1)").ok());
  ASSERT_TRUE(transaction.Rollback().ok());
  EXPECT_FALSE(transaction.is_open());
  EXPECT_EQ(Rows(), 0);
}

TEST_F(TransactionTest, DoesNotNest) {
  Transaction outer(*db_);
  ASSERT_TRUE(outer.Begin().ok());
  Transaction inner(*db_);
  EXPECT_EQ(inner.Begin().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(outer.Begin().code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(outer.Commit().ok());
  EXPECT_EQ(outer.Commit().code(), StatusCode::kFailedPrecondition);
}

TEST_F(TransactionTest, FailedCommitRollsBackAndFreesTheConnection) {
  // A deferred foreign-key violation is only detected by COMMIT, which then fails and leaves
  // SQLite's transaction open: Commit() must end it.
  ASSERT_TRUE(db_->Execute("PRAGMA foreign_keys=ON;"
                           "CREATE TABLE parent(id INTEGER PRIMARY KEY);"
                           "CREATE TABLE child(p REFERENCES parent(id) "
                           "DEFERRABLE INITIALLY DEFERRED)")
                  .ok());
  Transaction transaction(*db_);
  ASSERT_TRUE(transaction.Begin().ok());
  ASSERT_TRUE(db_->Execute("INSERT INTO t VALUES (1); INSERT INTO child VALUES (42)").ok());
  const Status status = transaction.Commit();
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition) << status;
  EXPECT_NE(status.message().find("SQLITE_CONSTRAINT_FOREIGNKEY"), std::string_view::npos)
      << status;
  EXPECT_FALSE(transaction.is_open());
  EXPECT_FALSE(db_->InTransaction());
  EXPECT_EQ(Rows(), 0);
}

}  // namespace
}  // namespace edgemond::storage::sqlite
