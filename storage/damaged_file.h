// What the store does with a database file that SQLite reports damaged: it is renamed, with its
// -wal file, to `<path>.damaged-<UTC time>` beside it, so that a new file can take its place and
// the old one stays for `sqlite3 .recover`. Only a file that begins with SQLite's header counts
// as a damaged database; any other file at the path is not one edgemond wrote, and is left alone.

#ifndef EDGEMOND_STORAGE_DAMAGED_FILE_H_
#define EDGEMOND_STORAGE_DAMAGED_FILE_H_

#include <string>

#include "core/clock.h"
#include "core/result.h"

namespace edgemond::storage {

// Whether `path` starts with the 16 bytes "SQLite format 3\0".
bool HasSqliteHeader(const std::string& path);

// Renames `path` and its -wal file (when present) to `<path>.damaged-YYYYmmddTHHMMSSZ` (and
// "-wal"), adding "-2", "-3", ... if that name is taken, and deletes its -shm file (an index of the
// WAL, rebuilt from it). Returns the new path of the database file. REQUIRES: no connection to the
// file is open.
Result<std::string> MoveDamagedAside(const std::string& path, WallTime now);

}  // namespace edgemond::storage

#endif  // EDGEMOND_STORAGE_DAMAGED_FILE_H_
