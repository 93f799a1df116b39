// Transaction: a scoped SQLite transaction that rolls back unless Commit() succeeded, in the
// manner of Chromium's sql::Transaction.
//
//   sqlite::Transaction transaction(db, sqlite::Transaction::Mode::kImmediate);
//   EDGEMOND_RETURN_IF_ERROR(transaction.Begin());
//   ... statements ...
//   return transaction.Commit();   // any early return above rolls back
//
// The constructor does nothing that can fail; Begin() starts the transaction. Transactions do not
// nest: Begin() on a connection that is already in a transaction returns kFailedPrecondition.
//
// REQUIRES: the Database outlives the Transaction. Thread safety: that of the Database.

#ifndef EDGEMOND_STORAGE_SQLITE_TRANSACTION_H_
#define EDGEMOND_STORAGE_SQLITE_TRANSACTION_H_

#include "core/status.h"
#include "storage/sqlite/database.h"

namespace edgemond::storage::sqlite {

class Transaction final {
 public:
  enum class Mode {
    // Takes locks as statements need them. A read transaction's WAL snapshot is fixed by its
    // first read.
    kDeferred,
    // Takes the write lock at once, so a writer never fails half-way with SQLITE_BUSY because
    // another connection wrote first.
    kImmediate,
  };

  explicit Transaction(Database& db, Mode mode = Mode::kDeferred) : db_(db), mode_(mode) {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  // Rolls back if Begin() succeeded and Commit() did not.
  ~Transaction();

  Status Begin();
  // On failure the transaction is rolled back (by SQLite or by this object) and is over.
  Status Commit();
  Status Rollback();

  bool is_open() const { return open_; }

 private:
  Database& db_;  // Borrowed; outlives this object.
  const Mode mode_;
  bool open_ = false;
};

}  // namespace edgemond::storage::sqlite

#endif  // EDGEMOND_STORAGE_SQLITE_TRANSACTION_H_
