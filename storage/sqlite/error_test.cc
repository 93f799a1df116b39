#include "storage/sqlite/error.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace edgemond::storage::sqlite {
namespace {

TEST(SqliteErrorTest, MapsResultCodesToStatusCodes) {
  EXPECT_EQ(StatusCodeFromSqlite(SQLITE_FULL), StatusCode::kResourceExhausted);
  EXPECT_EQ(StatusCodeFromSqlite(SQLITE_NOMEM), StatusCode::kResourceExhausted);
  EXPECT_EQ(StatusCodeFromSqlite(SQLITE_CORRUPT), StatusCode::kCorruption);
  EXPECT_EQ(StatusCodeFromSqlite(SQLITE_NOTADB), StatusCode::kCorruption);
  EXPECT_EQ(StatusCodeFromSqlite(SQLITE_BUSY), StatusCode::kUnavailable);
  EXPECT_EQ(StatusCodeFromSqlite(SQLITE_BUSY_SNAPSHOT), StatusCode::kUnavailable);
  EXPECT_EQ(StatusCodeFromSqlite(SQLITE_LOCKED), StatusCode::kUnavailable);
  EXPECT_EQ(StatusCodeFromSqlite(SQLITE_READONLY), StatusCode::kPermissionDenied);
  EXPECT_EQ(StatusCodeFromSqlite(SQLITE_PERM), StatusCode::kPermissionDenied);
  EXPECT_EQ(StatusCodeFromSqlite(SQLITE_CONSTRAINT_UNIQUE), StatusCode::kFailedPrecondition);
  EXPECT_EQ(StatusCodeFromSqlite(SQLITE_MISMATCH), StatusCode::kInvalidArgument);
  EXPECT_EQ(StatusCodeFromSqlite(SQLITE_ERROR), StatusCode::kInternal);
  EXPECT_EQ(StatusCodeFromSqlite(SQLITE_MISUSE), StatusCode::kInternal);
  EXPECT_EQ(StatusCodeFromSqlite(SQLITE_IOERR_WRITE), StatusCode::kIoError);
  EXPECT_EQ(StatusCodeFromSqlite(SQLITE_CANTOPEN), StatusCode::kIoError);
}

TEST(SqliteErrorTest, OsErrorsUseTheErrnoMapping) {
  EXPECT_EQ(StatusCodeFromSqlite(SQLITE_CANTOPEN, ENOENT), StatusCode::kNotFound);
  EXPECT_EQ(StatusCodeFromSqlite(SQLITE_CANTOPEN, EACCES), StatusCode::kPermissionDenied);
  EXPECT_EQ(StatusCodeFromSqlite(SQLITE_IOERR_WRITE, ENOSPC), StatusCode::kResourceExhausted);
  EXPECT_EQ(StatusCodeFromSqlite(SQLITE_IOERR_READ, EIO), StatusCode::kIoError);
  // Disk full stays disk full whatever errno SQLite kept around.
  EXPECT_EQ(StatusCodeFromSqlite(SQLITE_FULL, EIO), StatusCode::kResourceExhausted);
}

TEST(SqliteErrorTest, NamesPrimaryAndExtendedCodes) {
  EXPECT_EQ(SqliteCodeName(SQLITE_BUSY), "SQLITE_BUSY");
  EXPECT_EQ(SqliteCodeName(SQLITE_IOERR_WRITE), "SQLITE_IOERR_WRITE");
  EXPECT_EQ(SqliteCodeName(SQLITE_CONSTRAINT_PRIMARYKEY), "SQLITE_CONSTRAINT_PRIMARYKEY");
  // An extended code without its own name falls back to its primary code's name.
  EXPECT_EQ(SqliteCodeName(SQLITE_IOERR_NOMEM), "SQLITE_IOERR");
}

TEST(SqliteErrorTest, MessageCarriesContextTextAndCodes) {
  const Status status = SqliteError(SQLITE_IOERR_NOMEM, nullptr, "flushing /var/x.db");
  EXPECT_EQ(status.code(), StatusCode::kIoError);
  EXPECT_EQ(status.message().substr(0, 20), "flushing /var/x.db: ");
  EXPECT_NE(status.message().find("(SQLITE_IOERR, extended code 3082)"), std::string_view::npos)
      << status;
  const Status full = SqliteError(SQLITE_FULL, nullptr, "");
  EXPECT_EQ(full.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(full.message(), "database or disk is full (SQLITE_FULL)");
}

}  // namespace
}  // namespace edgemond::storage::sqlite
