// The one place where SQLite result codes become edgemond Status values.
//
// Every failing sqlite3_* call in storage/ goes through SqliteError(), so the mapping below is
// the whole contract:
//   SQLITE_FULL, SQLITE_NOMEM, SQLITE_TOOBIG       -> kResourceExhausted
//   SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_FORMAT   -> kCorruption
//   SQLITE_BUSY, SQLITE_LOCKED, SQLITE_SCHEMA,
//   SQLITE_PROTOCOL, SQLITE_INTERRUPT, SQLITE_ABORT -> kUnavailable (transient; may be retried)
//   SQLITE_PERM, SQLITE_AUTH, SQLITE_READONLY      -> kPermissionDenied
//   SQLITE_CANTOPEN, SQLITE_IOERR                  -> from the OS errno when SQLite recorded one
//                                                     (Status::FromErrno), else kIoError
//   SQLITE_CONSTRAINT                              -> kFailedPrecondition
//   SQLITE_MISMATCH                                -> kInvalidArgument
//   SQLITE_NOLFS                                   -> kUnsupported
//   anything else (SQLITE_ERROR, MISUSE, RANGE...) -> kInternal: a bug in our SQL or its use
// Extended result codes are reduced to their primary code (rc & 0xff) for the mapping and kept
// in the message.

#ifndef EDGEMOND_STORAGE_SQLITE_ERROR_H_
#define EDGEMOND_STORAGE_SQLITE_ERROR_H_

#include <sqlite3.h>

#include <string_view>

#include "core/status.h"

namespace edgemond::storage::sqlite {

// The StatusCode for a SQLite result code (primary or extended), without OS context.
// `system_errno` is what sqlite3_system_errno() reported for the failure, or 0.
StatusCode StatusCodeFromSqlite(int result_code, int system_errno = 0);

// "SQLITE_BUSY", "SQLITE_IOERR_WRITE", ...; the primary name for extended codes this file does
// not name individually.
std::string_view SqliteCodeName(int result_code);

// A Status for a failed call. `db` (may be null) supplies sqlite3_errmsg() and the OS errno.
// The message reads "<context>: <sqlite message> (<code name>, extended code <n>)" and ends with
// the strerror text when SQLite recorded an OS error; error_number() is that errno.
Status SqliteError(int result_code, sqlite3* db, std::string_view context);

}  // namespace edgemond::storage::sqlite

#endif  // EDGEMOND_STORAGE_SQLITE_ERROR_H_
