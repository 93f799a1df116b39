// Database: one SQLite connection (sqlite3*), in the manner of Chromium's sql::Database.
//
//   EDGEMOND_ASSIGN_OR_RETURN(auto db, sqlite::Database::Open(path, {}));
//   EDGEMOND_RETURN_IF_ERROR(db->Execute("PRAGMA synchronous=NORMAL"));
//
// Open() fails rather than hand out a connection that cannot be used: it reads the schema once,
// so a file that is not a SQLite database (SQLITE_NOTADB) or whose first page is damaged is
// reported as kCorruption at open, naming the path, and is never written to. Every error is a
// Status built by SqliteError() (storage/sqlite/error.h) and names the database path.
//
// Ownership: the Database owns the connection and every cached statement; it closes them on
// destruction. Statements it hands out borrow the connection and must not outlive it.
// Thread safety: a Database (and everything it hands out) is used by one thread at a time; the
// connection is opened with SQLITE_OPEN_NOMUTEX, so callers that share one must serialize.
// Separate Database objects on the same file may be used from different threads (WAL lets one
// writer and many readers proceed concurrently).

#ifndef EDGEMOND_STORAGE_SQLITE_DATABASE_H_
#define EDGEMOND_STORAGE_SQLITE_DATABASE_H_

#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/result.h"
#include "core/status.h"
#include "storage/sqlite/blob.h"
#include "storage/sqlite/statement.h"

namespace edgemond::storage::sqlite {

struct DatabaseOptions {
  enum class Mode {
    kReadWriteCreate,  // Creates the file if it does not exist.
    kReadWrite,        // The file must exist.
    kReadOnly,
  };
  Mode mode = Mode::kReadWriteCreate;
  // How long a statement waits for a lock held by another connection before SQLITE_BUSY.
  std::chrono::milliseconds busy_timeout{5000};
  // Turns off SQLite's automatic checkpoint (run inside whichever COMMIT crosses
  // wal_autocheckpoint) so that the owner can checkpoint when it suits it, outside its locks,
  // and tracks the WAL size in wal_frames().
  bool manual_checkpoints = false;
  // Gives the connection no lookaside allocator (SQLite's default is ~120 KiB per connection of
  // small-allocation slots): for long-lived connections in a process that must stay small.
  bool small_memory = false;
  // Opens the file through SQLite's unix-excl VFS: the connection's first lock holds the whole
  // file against other processes until the last connection of this process closes it, and the
  // WAL index lives in this process's heap instead of a `-shm` file beside the database, which
  // the kernel would write back to disk after every commit (docs/storage.md, "What reaches the
  // flash"). Connections of one process share that index, so every connection of the process to
  // the file must set it alike.
  bool exclusive_to_process = false;
};

// Result of a WAL checkpoint, in WAL frames (one frame = one page plus a 24-byte header).
struct CheckpointResult {
  int wal_frames = 0;           // Frames in the WAL after the call.
  int checkpointed_frames = 0;  // Of those, frames now copied into the database file.
};

class Database final {
 public:
  static Result<std::unique_ptr<Database>> Open(const std::string& path,
                                                const DatabaseOptions& options);

  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  const std::string& path() const { return path_; }

  // Runs one or more SQL statements that return no rows of interest (DDL, PRAGMA settings).
  Status Execute(std::string_view sql);

  // Prepares a single statement that the caller owns. Trailing SQL after it is an error.
  Result<Statement> Prepare(std::string_view sql);

  // Returns the cached prepared statement for `sql`, preparing it on first use. For statements
  // on hot paths (one INSERT per sample). The returned Statement is reset when it goes away.
  // A cached statement may be borrowed by one Statement at a time: borrowing it twice at once is
  // a programmer error and returns kInternal.
  Result<Statement> GetCachedStatement(std::string_view sql);

  // The first column of the first row of `sql` ("PRAGMA user_version", "SELECT count(*) ...").
  // kNotFound when the statement returns no row.
  Result<std::int64_t> QueryInt64(std::string_view sql);
  Result<std::string> QueryString(std::string_view sql);

  // PRAGMA integrity_check (O(N log N): reads every page). OK, or kCorruption listing the first
  // problems SQLite reported.
  Status IntegrityCheck();
  // PRAGMA quick_check (O(N), skips index consistency).
  Status QuickCheck();

  // Runs sqlite3_wal_checkpoint_v2 on the main database. kPassive never blocks writers or
  // readers; kTruncate waits for them and truncates the WAL to zero bytes.
  enum class CheckpointMode { kPassive, kTruncate };
  Result<CheckpointResult> Checkpoint(CheckpointMode mode);

  // With manual_checkpoints: the frames in the WAL after this connection's last commit, or
  // after its last Checkpoint() the frames that one could not copy yet (a reader held them).
  // 0 before either; always 0 without manual_checkpoints.
  int wal_frames() const { return wal_frames_; }

  // A read-only handle on `table`.`column` of the row with `rowid` (see blob.h). kNotFound when
  // there is no such row.
  Result<Blob> OpenBlob(const std::string& table, const std::string& column, std::int64_t rowid);

  // Frees the page cache memory that the connection is not using right now
  // (sqlite3_db_release_memory): after a large read, so that its pages do not stay resident.
  void ReleaseMemory();

  // Rows changed by the most recent INSERT/UPDATE/DELETE on this connection.
  std::int64_t Changes() const;
  // True while an explicit transaction is open on this connection.
  bool InTransaction() const;

 private:
  Database(std::string path, sqlite3* db);
  Status Error(int result_code, std::string_view what) const;
  Result<std::vector<std::string>> CheckRows(std::string_view pragma);
  static int OnWalCommit(void* self, sqlite3* db, const char* name, int frames);

  struct CachedStatement {
    sqlite3_stmt* stmt = nullptr;  // Owned; finalized in ~Database.
    bool in_use = false;           // Borrowed by a live Statement.
  };

  const std::string path_;
  sqlite3* const db_;  // Owned; closed in ~Database.
  // Node-based, so the address of each in_use flag is stable while statements borrow it.
  std::unordered_map<std::string, CachedStatement> cache_;
  int wal_frames_ = 0;  // Updated by OnWalCommit.
};

}  // namespace edgemond::storage::sqlite

#endif  // EDGEMOND_STORAGE_SQLITE_DATABASE_H_
