#include "storage/sqlite/error.h"

#include <string>

namespace edgemond::storage::sqlite {

StatusCode StatusCodeFromSqlite(int result_code, int system_errno) {
  switch (result_code & 0xff) {
    case SQLITE_OK:
    case SQLITE_ROW:
    case SQLITE_DONE:
      return StatusCode::kOk;
    case SQLITE_FULL:
    case SQLITE_NOMEM:
    case SQLITE_TOOBIG:
      return StatusCode::kResourceExhausted;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_FORMAT:
      return StatusCode::kCorruption;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_SCHEMA:
    case SQLITE_PROTOCOL:
    case SQLITE_INTERRUPT:
    case SQLITE_ABORT:
      return StatusCode::kUnavailable;
    case SQLITE_PERM:
    case SQLITE_AUTH:
    case SQLITE_READONLY:
      return StatusCode::kPermissionDenied;
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
      if (system_errno != 0) return Status::FromErrno(system_errno, "").code();
      return StatusCode::kIoError;
    case SQLITE_CONSTRAINT:
      return StatusCode::kFailedPrecondition;
    case SQLITE_MISMATCH:
      return StatusCode::kInvalidArgument;
    case SQLITE_NOLFS:
      return StatusCode::kUnsupported;
    default:
      return StatusCode::kInternal;
  }
}

std::string_view SqliteCodeName(int result_code) {
  switch (result_code) {
    // Extended codes that an operator may meet on a device: I/O, locking, opening, read-only.
    case SQLITE_IOERR_READ:
      return "SQLITE_IOERR_READ";
    case SQLITE_IOERR_SHORT_READ:
      return "SQLITE_IOERR_SHORT_READ";
    case SQLITE_IOERR_WRITE:
      return "SQLITE_IOERR_WRITE";
    case SQLITE_IOERR_FSYNC:
      return "SQLITE_IOERR_FSYNC";
    case SQLITE_IOERR_DIR_FSYNC:
      return "SQLITE_IOERR_DIR_FSYNC";
    case SQLITE_IOERR_TRUNCATE:
      return "SQLITE_IOERR_TRUNCATE";
    case SQLITE_IOERR_FSTAT:
      return "SQLITE_IOERR_FSTAT";
    case SQLITE_IOERR_LOCK:
      return "SQLITE_IOERR_LOCK";
    case SQLITE_IOERR_SHMOPEN:
      return "SQLITE_IOERR_SHMOPEN";
    case SQLITE_IOERR_SHMSIZE:
      return "SQLITE_IOERR_SHMSIZE";
    case SQLITE_IOERR_SHMMAP:
      return "SQLITE_IOERR_SHMMAP";
    case SQLITE_BUSY_RECOVERY:
      return "SQLITE_BUSY_RECOVERY";
    case SQLITE_BUSY_SNAPSHOT:
      return "SQLITE_BUSY_SNAPSHOT";
    case SQLITE_CANTOPEN_ISDIR:
      return "SQLITE_CANTOPEN_ISDIR";
    case SQLITE_CANTOPEN_FULLPATH:
      return "SQLITE_CANTOPEN_FULLPATH";
    case SQLITE_READONLY_RECOVERY:
      return "SQLITE_READONLY_RECOVERY";
    case SQLITE_READONLY_CANTLOCK:
      return "SQLITE_READONLY_CANTLOCK";
    case SQLITE_READONLY_DBMOVED:
      return "SQLITE_READONLY_DBMOVED";
#ifdef SQLITE_READONLY_DIRECTORY
    case SQLITE_READONLY_DIRECTORY:
      return "SQLITE_READONLY_DIRECTORY";
#endif
    case SQLITE_CONSTRAINT_PRIMARYKEY:
      return "SQLITE_CONSTRAINT_PRIMARYKEY";
    case SQLITE_CONSTRAINT_UNIQUE:
      return "SQLITE_CONSTRAINT_UNIQUE";
    case SQLITE_CONSTRAINT_NOTNULL:
      return "SQLITE_CONSTRAINT_NOTNULL";
    case SQLITE_CONSTRAINT_CHECK:
      return "SQLITE_CONSTRAINT_CHECK";
    case SQLITE_CONSTRAINT_FOREIGNKEY:
      return "SQLITE_CONSTRAINT_FOREIGNKEY";
    default:
      break;
  }
  switch (result_code & 0xff) {
    case SQLITE_OK:
      return "SQLITE_OK";
    case SQLITE_ERROR:
      return "SQLITE_ERROR";
    case SQLITE_INTERNAL:
      return "SQLITE_INTERNAL";
    case SQLITE_PERM:
      return "SQLITE_PERM";
    case SQLITE_ABORT:
      return "SQLITE_ABORT";
    case SQLITE_BUSY:
      return "SQLITE_BUSY";
    case SQLITE_LOCKED:
      return "SQLITE_LOCKED";
    case SQLITE_NOMEM:
      return "SQLITE_NOMEM";
    case SQLITE_READONLY:
      return "SQLITE_READONLY";
    case SQLITE_INTERRUPT:
      return "SQLITE_INTERRUPT";
    case SQLITE_IOERR:
      return "SQLITE_IOERR";
    case SQLITE_CORRUPT:
      return "SQLITE_CORRUPT";
    case SQLITE_NOTFOUND:
      return "SQLITE_NOTFOUND";
    case SQLITE_FULL:
      return "SQLITE_FULL";
    case SQLITE_CANTOPEN:
      return "SQLITE_CANTOPEN";
    case SQLITE_PROTOCOL:
      return "SQLITE_PROTOCOL";
    case SQLITE_EMPTY:
      return "SQLITE_EMPTY";
    case SQLITE_SCHEMA:
      return "SQLITE_SCHEMA";
    case SQLITE_TOOBIG:
      return "SQLITE_TOOBIG";
    case SQLITE_CONSTRAINT:
      return "SQLITE_CONSTRAINT";
    case SQLITE_MISMATCH:
      return "SQLITE_MISMATCH";
    case SQLITE_MISUSE:
      return "SQLITE_MISUSE";
    case SQLITE_NOLFS:
      return "SQLITE_NOLFS";
    case SQLITE_AUTH:
      return "SQLITE_AUTH";
    case SQLITE_FORMAT:
      return "SQLITE_FORMAT";
    case SQLITE_RANGE:
      return "SQLITE_RANGE";
    case SQLITE_NOTADB:
      return "SQLITE_NOTADB";
    case SQLITE_NOTICE:
      return "SQLITE_NOTICE";
    case SQLITE_WARNING:
      return "SQLITE_WARNING";
    case SQLITE_ROW:
      return "SQLITE_ROW";
    case SQLITE_DONE:
      return "SQLITE_DONE";
    default:
      return "SQLITE_UNKNOWN";
  }
}

Status SqliteError(int result_code, sqlite3* db, std::string_view context) {
  // sqlite3_system_errno() keeps the errno of the connection's last OS failure, which may be
  // stale; it only explains errors of the classes that come from the OS.
  int system_errno = 0;
  const int primary = result_code & 0xff;
  if (db != nullptr &&
      (primary == SQLITE_CANTOPEN || primary == SQLITE_IOERR || primary == SQLITE_FULL)) {
    system_errno = sqlite3_system_errno(db);
  }
  // sqlite3_errmsg() describes the connection's most recent failure; when the caller reports a
  // code that is not that failure (e.g. from sqlite3_open_v2 without a handle), fall back to
  // the generic text for the code.
  const char* sqlite_message = sqlite3_errstr(result_code);
  if (db != nullptr && sqlite3_extended_errcode(db) == result_code) {
    sqlite_message = sqlite3_errmsg(db);
  }
  std::string message(context);
  if (!message.empty()) message += ": ";
  message += sqlite_message != nullptr ? sqlite_message : "unknown error";
  message += " (";
  message += SqliteCodeName(result_code);
  if (result_code != primary) {
    message += ", extended code ";
    message += std::to_string(result_code);
  }
  message += ")";
  const StatusCode code = StatusCodeFromSqlite(result_code, system_errno);
  if (system_errno == 0) return Status(code, message);
  // Status::FromErrno owns the strerror text ("<message>: No space left on device").
  return Status(code, Status::FromErrno(system_errno, message).message(), system_errno);
}

}  // namespace edgemond::storage::sqlite
