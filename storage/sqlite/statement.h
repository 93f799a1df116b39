// Statement: one prepared SQLite statement (sqlite3_stmt*), in the manner of Chromium's
// sql::Statement.
//
//   EDGEMOND_ASSIGN_OR_RETURN(auto insert, db.GetCachedStatement(
//       "INSERT INTO samples(ts, series_id, value) VALUES (?, ?, ?)"));
//   insert.BindInt64(0, ts_ms);
//   insert.BindInt64(1, series_id);
//   insert.BindDouble(2, value);
//   EDGEMOND_RETURN_IF_ERROR(insert.Run());
//
// Parameter and column indexes are 0-based (SQLite's parameters are 1-based; we translate).
// Bind errors are sticky: Bind*() records the first failure and the next Step()/Run() returns it,
// so a mistyped index cannot be silently ignored and call sites stay readable.
//
// Ownership: a Statement from Database::Prepare() owns its sqlite3_stmt and finalizes it. A
// Statement from Database::GetCachedStatement() borrows one from the database's cache; on
// destruction it resets the statement and clears its bindings, so that no borrowed statement
// keeps a read transaction (and with it an old WAL snapshot) open.
//
// REQUIRES: the Database outlives every Statement it produced.
// Thread safety: none; a Statement is used by the thread that uses its Database.

#ifndef EDGEMOND_STORAGE_SQLITE_STATEMENT_H_
#define EDGEMOND_STORAGE_SQLITE_STATEMENT_H_

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"
#include "core/status.h"

namespace edgemond::storage::sqlite {

enum class ColumnType { kInteger, kFloat, kText, kBlob, kNull };

class Statement final {
 public:
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  void BindNull(int index);
  void BindInt64(int index, std::int64_t value);
  // NaN cannot be stored: SQLite turns it into NULL. The store filters NaN before binding.
  void BindDouble(int index, double value);
  // The text is copied by SQLite (SQLITE_TRANSIENT); `value` need not outlive the call.
  void BindText(int index, std::string_view value);
  // Binds `bytes` as a BLOB, copied like BindText (an empty view binds a zero-length blob).
  void BindBlob(int index, std::string_view bytes);

  // Advances to the next row: true when a row is available, false when the statement is done.
  Result<bool> Step();
  // Runs a statement that returns no rows (INSERT, UPDATE, DELETE, DDL) to completion.
  // Returns kInternal if the statement produces a row: use Step() for those.
  Status Run();
  // Rewinds the statement and clears its bindings and any sticky bind error.
  void Reset();

  int ColumnCount() const;
  ColumnType GetColumnType(int column) const;
  bool ColumnIsNull(int column) const { return GetColumnType(column) == ColumnType::kNull; }
  std::int64_t ColumnInt64(int column) const;
  double ColumnDouble(int column) const;
  // Valid until the next Step(), Reset() or destruction.
  std::string_view ColumnText(int column) const;
  std::string ColumnString(int column) const { return std::string(ColumnText(column)); }
  // The bytes of a BLOB (or TEXT) column; valid until the next Step(), Reset() or destruction.
  std::string_view ColumnBlob(int column) const;

  // The SQL text, for error messages.
  std::string_view sql() const;

 private:
  friend class Database;
  // `in_use` is the cache slot's busy flag for a borrowed statement, null for an owned one.
  Statement(sqlite3* db, sqlite3_stmt* stmt, bool* in_use);

  void RecordBindResult(int result_code, int index);
  Status Error(int result_code, std::string_view what) const;
  void Release();

  sqlite3* db_ = nullptr;         // Borrowed from the Database.
  sqlite3_stmt* stmt_ = nullptr;  // Owned unless in_use_ is set.
  bool* in_use_ = nullptr;        // Set for statements borrowed from the cache.
  Status bind_status_;            // First bind failure since the last Reset().
};

}  // namespace edgemond::storage::sqlite

#endif  // EDGEMOND_STORAGE_SQLITE_STATEMENT_H_
