// Blob: a read-only handle on one BLOB value for incremental reads (sqlite3_blob*), so that a
// reader can fetch a few hundred bytes out of a value spread over many overflow pages without
// loading the rest.
//
//   EDGEMOND_ASSIGN_OR_RETURN(sqlite::Blob blob, db.OpenBlob("blocks_raw", "data", rowid));
//   EDGEMOND_RETURN_IF_ERROR(blob.Read(offset, buffer));
//   EDGEMOND_RETURN_IF_ERROR(blob.Reopen(next_rowid));   // cheap: no new statement
//
// The table must be a rowid table. The handle reads within the connection's current read
// transaction (it sees the same snapshot as the connection's statements) and must be destroyed
// before that transaction ends.
//
// Ownership: the Blob owns its sqlite3_blob* and closes it on destruction; it borrows the
// connection, which must outlive it. Thread safety: that of its Database.

#ifndef EDGEMOND_STORAGE_SQLITE_BLOB_H_
#define EDGEMOND_STORAGE_SQLITE_BLOB_H_

#include <sqlite3.h>

#include <cstdint>
#include <span>
#include <string_view>

#include "core/status.h"

namespace edgemond::storage::sqlite {

class Blob final {
 public:
  Blob(Blob&& other) noexcept;
  Blob& operator=(Blob&& other) noexcept;
  Blob(const Blob&) = delete;
  Blob& operator=(const Blob&) = delete;
  ~Blob();

  // Points the handle at another row of the same table and column.
  Status Reopen(std::int64_t rowid);

  // Size in bytes of the current value.
  std::int64_t size() const { return size_; }
  std::int64_t rowid() const { return rowid_; }

  // Reads out.size() bytes starting at `offset`; kCorruption if that runs past the end.
  Status Read(std::int64_t offset, std::span<char> out) const;

 private:
  friend class Database;
  Blob(sqlite3* db, sqlite3_blob* blob, std::int64_t rowid);
  Status Error(int result_code, std::string_view what) const;

  sqlite3* db_ = nullptr;         // Borrowed.
  sqlite3_blob* blob_ = nullptr;  // Owned.
  std::int64_t rowid_ = 0;
  std::int64_t size_ = 0;
};

}  // namespace edgemond::storage::sqlite

#endif  // EDGEMOND_STORAGE_SQLITE_BLOB_H_
