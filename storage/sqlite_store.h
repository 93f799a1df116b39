// SqliteStore: the Store (storage/store.h) on one SQLite file, layout v1.
//
// Layout and its measurements: docs/adr/0001-storage-v1-layout.md and docs/storage.md. In short:
// one row per sample in a WITHOUT ROWID table clustered on (ts, series_id), so that a flush
// appends at the right edge of one B-tree and dirties a handful of pages whatever the number of
// series; WAL with synchronous=NORMAL; checkpoints run by the store after a flush, never inside
// a commit; retention trims the left edge of the same B-tree in batches.
//
//   storage::StorageOptions options;
//   options.path = "/var/lib/edgemond/edgemond.db";
//   EDGEMOND_ASSIGN_OR_RETURN(auto store, storage::SqliteStore::Open(options));
//   EDGEMOND_RETURN_IF_ERROR(store->Append(samples));   // every tick
//   EDGEMOND_RETURN_IF_ERROR(store->Flush());           // every flush interval, and on SIGTERM
//
// Connections: a writer connection used by Append/Flush/EnforceRetention, and a read-only one
// (PRAGMA query_only) used by Query; WAL lets a reader proceed while the writer commits.
// ListSeries and Stats read the in-memory catalog and touch no connection.
//
// Concurrency (the contract of store.h, and how it is kept):
//   write_mu_  serializes the writer operations and owns the writer connection.
//   read_mu_   serializes queries on the reader connection.
//   mu_        guards the in-memory state: catalog and head. Writers hold it only to change
//              that state and to commit; queries only to copy what they need.
// A query copies its head samples and opens its read transaction under mu_, and Flush commits
// and drops the flushed samples from the head under mu_, so every query sees each sample exactly
// once: in the head before the commit, in the database after it. Lock order: write_mu_ or
// read_mu_ (never both), then mu_.
//
// One store per database file: Open() takes an exclusive flock(2) on `<path>.lock` for the life of
// the store (released by the kernel if the process dies), so a second edgemond on the same file is
// refused instead of interleaving its catalog with the first one's. The lock is on a separate
// file because closing any descriptor of the database file itself would drop SQLite's own locks.
//
// Destroying the store does not flush: call Flush() first (the daemon does on SIGTERM).

#ifndef EDGEMOND_STORAGE_SQLITE_STORE_H_
#define EDGEMOND_STORAGE_SQLITE_STORE_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/result.h"
#include "core/status.h"
#include "core/unique_fd.h"
#include "storage/sqlite/database.h"
#include "storage/store.h"

namespace edgemond::storage {

struct StorageOptions {
  // The database file. Its directory must exist and be writable (SQLite creates the -wal and
  // -shm files beside it).
  std::string path;
  // How often the owner calls Flush(): the most a crash can lose. The store does not schedule
  // anything itself; the value sizes the head's default bound and documents the contract.
  std::chrono::seconds flush_interval{10};
  // Samples older than this are deleted by EnforceRetention().
  std::chrono::milliseconds retention = std::chrono::hours(24 * 7);
  // Retention deletes expired samples in batches of this many (one transaction each, one per
  // EnforceRetention() call), and only once a whole batch has expired: a few large deletes
  // write far less than one small delete per flush (docs/storage.md). The default is ~2 minutes
  // of data at 150 series, 40 s at 500; a backlog drains at one batch per call.
  std::int64_t retention_batch_samples = 20000;
  // Most samples the head may hold; Append() beyond it is kResourceExhausted. 0 picks
  // 64 flush intervals of 500 series at 1 Hz (it only fills while flushes keep failing).
  std::size_t max_head_samples = 0;
  // A passive checkpoint runs after a flush once the WAL holds this many frames (4 KiB pages).
  int checkpoint_wal_frames = 1000;
  // Runs PRAGMA quick_check (reads the whole file) at open; kCorruption if it fails.
  bool check_integrity_on_open = false;
};

class SqliteStore final : public Store {
 public:
  // Opens (creating if needed) and migrates the database. Errors name the path:
  //   kInvalidArgument     an option is out of range;
  //   kNotFound            the directory does not exist;
  //   kPermissionDenied    the directory or the file is not writable;
  //   kCorruption          the file is not a SQLite database, or fails quick_check;
  //   kFailedPrecondition  another store has it open, it is another application's
  //                        database, or it has a newer schema.
  // A file that cannot be used is never modified.
  static Result<std::unique_ptr<SqliteStore>> Open(const StorageOptions& options);

  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;
  ~SqliteStore() override;

  Status Append(const std::vector<Sample>& samples) override;
  Status Flush() override;
  Result<RetentionResult> EnforceRetention(WallTime now) override;
  Result<std::vector<SeriesInfo>> ListSeries(
      const std::optional<SeriesSelector>& selector) override;
  Result<QueryResult> Query(const RangeQuery& query) override;
  StoreStats Stats() const override;

  const StorageOptions& options() const { return options_; }

 private:
  struct HeadSample {
    std::int64_t ts_ms;
    std::int64_t series_id;
    double value;
  };
  struct SeriesEntry {
    std::int64_t id = 0;        // Row id in `series`; stable for the life of the file.
    std::string key;            // SeriesKey(name, labels).
    SeriesInfo info;            // Labels sorted by name; first_ms/last_ms include the head.
    bool persisted = false;     // Has a row in `series`.
    bool extent_dirty = false;  // first_ms/last_ms changed since the last flush.
  };

  SqliteStore(StorageOptions options, UniqueFd lock_fd, std::unique_ptr<sqlite::Database> writer,
              std::unique_ptr<sqlite::Database> reader);

  Status LoadCatalog();
  // Writer connection helpers; REQUIRES write_mu_.
  Status WriteFlush(const std::vector<HeadSample>& rows, std::vector<SeriesEntry*>& new_series,
                    std::vector<SeriesEntry*>& extents);
  Status CheckpointIfDue();
  // The series a query asks for, in key order; REQUIRES mu_.
  Result<std::vector<const SeriesEntry*>> SelectSeries(const RangeQuery& query) const;
  std::size_t head_limit() const;

  const StorageOptions options_;
  const UniqueFd lock_fd_;  // Holds the exclusive flock on `<path>.lock`.

  // Serializes Append/Flush/EnforceRetention; the writer connection belongs to it.
  std::mutex write_mu_;
  std::unique_ptr<sqlite::Database> writer_;  // Guarded by write_mu_.

  // Serializes queries; the reader connection belongs to it.
  std::mutex read_mu_;
  std::unique_ptr<sqlite::Database> reader_;  // Guarded by read_mu_.

  // In-memory state. Modified only with write_mu_ and mu_ both held, so the writer may read it
  // holding write_mu_ alone; everyone else holds mu_.
  mutable std::mutex mu_;
  std::map<std::string, SeriesEntry> series_by_key_;             // Sorted: ListSeries order.
  std::unordered_map<std::int64_t, SeriesEntry*> series_by_id_;  // Into series_by_key_.
  std::int64_t next_series_id_ = 1;
  std::vector<HeadSample> head_;  // In Append order.
  // Series appended to since the store opened: still reported, so retention keeps their catalog
  // entries even when all their samples expired (a sensor failing for the whole period).
  std::unordered_set<std::int64_t> live_series_;
};

}  // namespace edgemond::storage

#endif  // EDGEMOND_STORAGE_SQLITE_STORE_H_
