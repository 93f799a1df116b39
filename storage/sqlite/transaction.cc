#include "storage/sqlite/transaction.h"

namespace edgemond::storage::sqlite {

Transaction::~Transaction() {
  // Nothing to report to from a destructor; a rollback that fails leaves SQLite to roll back
  // when the connection closes, which is equally atomic.
  if (open_) (void)Rollback();
}

Status Transaction::Begin() {
  if (open_ || db_.InTransaction()) {
    return Status::FailedPrecondition("database " + db_.path() +
                                      ": a transaction is already open on this connection");
  }
  EDGEMOND_RETURN_IF_ERROR(
      db_.Execute(mode_ == Mode::kImmediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED"));
  open_ = true;
  return Status::Ok();
}

Status Transaction::Commit() {
  if (!open_) {
    return Status::FailedPrecondition("database " + db_.path() + ": commit without a transaction");
  }
  Status status = db_.Execute("COMMIT");
  if (status.ok()) {
    open_ = false;
    return status;
  }
  // A failed COMMIT (SQLITE_FULL, SQLITE_IOERR) may leave the transaction open; end it so the
  // connection is usable and nothing half-written stays pending.
  (void)Rollback();
  return status;
}

Status Transaction::Rollback() {
  if (!open_) return Status::Ok();
  open_ = false;
  // SQLite may already have rolled back on its own (after SQLITE_FULL, for example).
  if (!db_.InTransaction()) return Status::Ok();
  return db_.Execute("ROLLBACK");
}

}  // namespace edgemond::storage::sqlite
