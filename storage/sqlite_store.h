// SqliteStore: the Store (storage/store.h) on one SQLite file, layout v2: compressed blocks in
// three tiers (raw samples, 1-minute and 1-hour rollups).
//
// Layout and its measurements: docs/adr/0002-storage-v2-blocks.md and docs/storage.md. In short:
//  - Append() buffers samples in memory (the head); nothing is written.
//  - Flush() encodes the head into one raw block (every series of the flush interval, each
//    series' timestamps and values compressed: storage/block.h) and writes it in one
//    transaction: a flush appends one row, a few pages, whatever the number of series.
//  - Rollup tiers: when a flush completes an hour, the same transaction writes that hour's
//    1-minute rollups (min, max, sum, count, last per series and minute), built from the raw
//    blocks; when it completes a day, the day's 1-hour rollups, built from the 1-minute ones.
//    The window still open is always derived from the tier below at query time, so every tier
//    answers up to the last Append, and a restart (or data arriving late) rebuilds what it must
//    from raw.
//  - Queries: the planner picks the coarsest tier whose resolution divides the step (raw when
//    none does) and falls back to coarser tiers for the part of the range that the chosen tier
//    no longer holds. Stored blocks and the head are merged, so a query answers the same before
//    and after a flush.
//  - EnforceRetention(): whole blocks, per tier by age (raw 7 days, 1-minute 90 days, 1-hour 2
//    years by default), then a size cap on the file (256 MiB by default) that drops the oldest
//    blocks first, oldest measured against each tier's retention; free pages go back to the
//    file system with incremental vacuum.
//  - Disk full: Flush() checks the file system's free space before writing; when it runs short
//    it keeps the head in memory, deletes the ballast file (`<path>.ballast`, reserved at open)
//    so that retention, vacuum and checkpoints can still run, and returns kResourceExhausted
//    until space returns, when it writes the head and reserves the ballast again. disk_full in
//    Stats() tells the state. Nothing is ever half-written (SQLite rolls a failed transaction
//    back).
//  - Crash safety: WAL with synchronous=NORMAL and journal_size_limit; a kill -9 loses at most
//    the head (what was appended since the last successful Flush()).
//
//   storage::StorageOptions options;
//   options.path = "/var/lib/edgemond/edgemond.db";
//   EDGEMOND_ASSIGN_OR_RETURN(auto store, storage::SqliteStore::Open(options));
//   EDGEMOND_RETURN_IF_ERROR(store->Append(samples));   // every tick
//   EDGEMOND_RETURN_IF_ERROR(store->Flush());           // every flush interval, and on SIGTERM
//
// Connections: a writer connection used by Append/Flush/EnforceRetention, and a read-only one
// (PRAGMA query_only) used by Query; WAL lets a reader proceed while the writer commits. Both
// keep small page caches and give them back after large reads. ListSeries and Stats read the
// in-memory catalog and touch no connection.
//
// Concurrency (the contract of store.h, and how it is kept):
//   write_mu_  serializes the writer operations and owns the writer connection.
//   read_mu_   serializes queries on the reader connection.
//   mu_        guards the in-memory state: catalog, head and tier state. Writers hold it only to
//              change that state and to commit; queries only to copy what they need.
// A query copies its head samples and the tier state and opens its read transaction under mu_,
// and Flush commits and empties the head under mu_, so every query sees each sample exactly once.
// Lock order: write_mu_ or read_mu_ (never both), then mu_.
//
// One store per database file: Open() takes an exclusive flock(2) on `<path>.lock` for the life of
// the store (released by the kernel if the process dies).
//
// Destroying the store does not flush: call Flush() first (the daemon does on SIGTERM).
//
// The class is defined in four files, one per concern: sqlite_store.cc (opening, the catalog,
// Append, Stats), sqlite_store_flush.cc (Flush and the rollups), sqlite_store_space.cc (free
// space, the ballast, retention, vacuum) and sqlite_store_query.cc (ListSeries and Query); what
// they share is in sqlite_store_internal.h.

#ifndef EDGEMOND_STORAGE_SQLITE_STORE_H_
#define EDGEMOND_STORAGE_SQLITE_STORE_H_

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/result.h"
#include "core/status.h"
#include "core/unique_fd.h"
#include "storage/block.h"
#include "storage/sqlite/database.h"
#include "storage/store.h"
#include "storage/tier.h"

namespace edgemond::storage {

struct StorageOptions {
  // The database file. Its directory must exist and be writable (SQLite creates the -wal and
  // -shm files beside it, the store its .lock and .ballast files).
  std::string path;
  // How often the owner calls Flush(): the most a crash can lose. One flush writes one raw
  // block, so it also sets how many samples of a series are compressed together (at 1 Hz, 60
  // per minute). The store does not schedule anything itself; the value sizes the head's
  // default bound.
  std::chrono::seconds flush_interval{60};
  // How long each tier keeps its blocks (EnforceRetention).
  std::chrono::milliseconds raw_retention = std::chrono::hours(24 * 7);
  std::chrono::milliseconds minute_retention = std::chrono::hours(24 * 90);
  std::chrono::milliseconds hour_retention = std::chrono::hours(24 * 730);
  // The most the database file and its WAL may hold together; EnforceRetention drops the oldest
  // blocks to stay below (the WAL gets max_bytes / 16, at most 4 MiB, and is checkpointed before
  // it outgrows that). 0: no cap.
  std::int64_t max_bytes = std::int64_t{256} << 20;
  // Space reserved in `<path>.ballast` and given up when the file system is full, so that the
  // store can still clean up. 0: no ballast.
  std::int64_t ballast_bytes = std::int64_t{4} << 20;
  // Most samples the head may hold; Append() beyond it is kResourceExhausted. 0 picks
  // 64 flush intervals of 500 series at 1 Hz (it only fills while flushes keep failing).
  std::size_t max_head_samples = 0;
  // A passive checkpoint runs after a flush once the WAL holds this many frames (4 KiB pages).
  int checkpoint_wal_frames = 1000;
  // Holds the database against other processes while the store is open, which keeps SQLite's WAL
  // index in memory instead of a `-shm` file written back to disk at every flush (a fifth of
  // what reaches the flash: docs/storage.md). Other processes, the sqlite3 shell among them, can
  // open the file only once the store has closed it. false keeps the `-shm` file and lets them
  // read alongside.
  bool exclusive_to_process = true;
  // Runs PRAGMA quick_check (reads the whole file) at open; kCorruption if it fails.
  bool check_integrity_on_open = false;
  // A database file that is damaged (it has SQLite's header, but SQLite finds it malformed, or
  // quick_check fails) is moved aside (storage/damaged_file.h) and a new one is made, rather than
  // refused: moved_aside() says where it went and why.
  bool move_aside_if_damaged = false;
};

// A damaged database that Open() moved aside (StorageOptions::move_aside_if_damaged).
struct MovedAside {
  std::string path;    // Where the damaged file is now.
  std::string reason;  // What SQLite found.
};

class SqliteStore final : public Store {
 public:
  // Opens (creating if needed) and migrates the database (a v1 database's samples become raw
  // blocks, and the rollup tiers are built from them). Errors name the path:
  //   kInvalidArgument     an option is out of range;
  //   kNotFound            the directory does not exist;
  //   kPermissionDenied    the directory or the file is not writable;
  //   kCorruption          the file is not a SQLite database, or fails quick_check;
  //   kFailedPrecondition  another store has it open, it is another application's
  //                        database, or it has a newer schema.
  // A file that cannot be used is never modified, but for a damaged one when
  // move_aside_if_damaged is set: it is renamed, never changed.
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
  // Set when Open() found the file damaged and made a new one.
  const std::optional<MovedAside>& moved_aside() const { return moved_aside_; }

  // Tests only: Flush() writes without checking the free space first, so that a full file
  // system is met inside the transaction (SQLITE_FULL), as when another program takes the space
  // between the check and the commit. REQUIRES: no other thread uses the store yet.
  void TEST_SkipFreeSpaceCheck() { skip_free_space_check_ = true; }

 private:
  struct HeadPoint {
    std::int64_t ms;
    double value;
  };
  struct SeriesEntry {
    std::int64_t id = 0;  // Row id in `series`; stable for the life of the file.
    std::string key;      // SeriesKey(name, labels).
    SeriesInfo info;      // Labels sorted by name; first_ms/last_ms include the head.
    // The sample that last resolved to this entry, to recognize the next one without building
    // its key: its MetricDesc and its labels in the collector's order (shared with the samples,
    // so the next tick's sample of the series compares by pointer).
    const MetricDesc* desc = nullptr;
    SeriesLabels given_labels;
    bool persisted = false;      // Has a row in `series`.
    bool extent_dirty = false;   // first_ms/last_ms changed since series_extent was written.
    bool extent_stored = false;  // Has a row in series_extent.
    bool live = false;           // Appended to since the store opened.
    // The head: samples appended since the last flush, in Append order. One vector of pairs, not
    // one per column, so that an Append writes one cache line per series, not two.
    std::vector<HeadPoint> head;
  };
  // Per tier: what the in-memory state knows of its table.
  struct TierState {
    std::optional<std::int64_t> oldest_t0;  // First stored point.
    std::optional<std::int64_t> newest_t1;  // Last stored point.
    // Rollup tiers: every window before this is stored (or had no data); the window holding it
    // and those after are derived from the tier below at query time.
    std::int64_t built_until = INT64_MIN;
  };

  // Open() once the lock is held; on failure `lock_fd` still holds it.
  static Result<std::unique_ptr<SqliteStore>> OpenLocked(const StorageOptions& options,
                                                         UniqueFd& lock_fd);
  SqliteStore(StorageOptions options, UniqueFd lock_fd, std::unique_ptr<sqlite::Database> writer,
              std::unique_ptr<sqlite::Database> reader);

  // Open() steps; REQUIRES write_mu_ (the store is not shared yet).
  Status LoadCatalog();
  Status LoadTierState();
  Status RefreshExtentsFromRecentBlocks();
  Status CatchUpRollups();

  // Writer helpers; REQUIRES write_mu_.
  Result<SeriesEntry*> Resolve(const Sample& sample, std::size_t position,
                               std::map<std::string, SeriesEntry*>& created);
  // Writes `head` (per series, sorted, one point per ms) as raw blocks, merging into stored
  // blocks what falls inside them; adds the windows of rollup tiers it touches to `dirty`.
  Status WriteRaw(const std::map<std::int64_t, SeriesPoints>& head,
                  std::array<std::vector<std::int64_t>, kTierCount>& dirty,
                  std::optional<std::int64_t>& newest_t1);
  // Builds (or rebuilds) the rollup windows in `dirty` and those the data has closed.
  Status BuildRollups(std::array<std::vector<std::int64_t>, kTierCount>& dirty,
                      std::optional<std::int64_t> newest_raw_t1,
                      std::array<std::int64_t, kTierCount>& built_until);
  Status BuildRollupWindow(Tier tier, std::int64_t window_start);
  Status WriteExtents(const std::vector<SeriesEntry*>& entries);
  Status CheckpointIfDue();
  Result<std::int64_t> FreeBytes() const;
  bool HasRoomFor(std::int64_t bytes, std::int64_t free_bytes) const;
  void ReleaseBallast();
  void ReserveBallast(std::int64_t free_bytes);
  Status VacuumIfWorthIt();

  // The series a query asks for, in key order; REQUIRES mu_.
  Result<std::vector<const SeriesEntry*>> SelectSeries(const RangeQuery& query) const;
  std::size_t head_limit() const;
  std::chrono::milliseconds RetentionOf(Tier tier) const;

  const StorageOptions options_;
  const std::string ballast_path_;
  UniqueFd lock_fd_;  // Holds the exclusive flock on `<path>.lock`; handed back if Open fails.
  std::optional<MovedAside> moved_aside_;

  // Serializes Append/Flush/EnforceRetention; the writer connection belongs to it.
  std::mutex write_mu_;
  std::unique_ptr<sqlite::Database> writer_;  // Guarded by write_mu_.
  // Positional cache for Append: the entry each position of the previous batch resolved to.
  // Guarded by write_mu_.
  std::vector<SeriesEntry*> last_batch_;
  // What the batch being appended resolves to; becomes last_batch_ once it is accepted (the two
  // swap, so neither is reallocated per batch). Guarded by write_mu_.
  std::vector<SeriesEntry*> resolved_;
  bool ballast_held_ = false;           // Guarded by write_mu_.
  bool skip_free_space_check_ = false;  // Set before the store is shared (tests only).
  // Series an Append is creating, until the batch is accepted. Guarded by write_mu_.
  std::vector<std::unique_ptr<SeriesEntry>> staged_;

  // Serializes queries; the reader connection belongs to it.
  std::mutex read_mu_;
  std::unique_ptr<sqlite::Database> reader_;  // Guarded by read_mu_.

  // In-memory state. Modified only with write_mu_ and mu_ both held, so the writer may read it
  // holding write_mu_ alone; everyone else holds mu_.
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<SeriesEntry>> series_by_key_;  // ListSeries order.
  std::unordered_map<std::int64_t, SeriesEntry*> series_by_id_;
  std::int64_t next_series_id_ = 1;
  std::size_t head_samples_ = 0;
  std::array<TierState, kTierCount> tiers_;
  bool disk_full_ = false;
};

}  // namespace edgemond::storage

#endif  // EDGEMOND_STORAGE_SQLITE_STORE_H_
