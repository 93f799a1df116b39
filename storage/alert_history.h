// AlertHistory: every alert transition (firing, resolved), kept in the daemon's SQLite database
// for GET /api/v1/alerts/history and for restoring firing alerts after a restart.
//
// The history is the `alert_history` table of the store's database, created by the store's
// numbered migrations (storage/schema.h, version 3), and used through a connection of its own.
// Transitions are rare (one per alert state change), so each Append() is one small transaction
// written at once, not batched.
//
// Thread safety: every method may be called from any thread; calls are serialized internally.

#ifndef EDGEMOND_STORAGE_ALERT_HISTORY_H_
#define EDGEMOND_STORAGE_ALERT_HISTORY_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/alert.h"
#include "core/result.h"
#include "core/status.h"
#include "storage/sqlite/database.h"

namespace edgemond::storage {

class AlertHistory final {
 public:
  // Opens the history in the database at `path`, which SqliteStore::Open() has created or
  // migrated (open the store first). Writes nothing. kNotFound if the file does not exist,
  // kFailedPrecondition if its schema predates the history (or is not edgemond's, or is newer).
  static Result<std::unique_ptr<AlertHistory>> Open(const std::string& path);

  AlertHistory(const AlertHistory&) = delete;
  AlertHistory& operator=(const AlertHistory&) = delete;

  // Stores the transitions, in order, in one transaction.
  Status Append(const std::vector<AlertTransition>& transitions);

  // Transitions with `at` in [from_ms, to_ms] (and of `rule`, if given), newest first.
  Result<std::vector<AlertTransition>> Query(const AlertHistoryQuery& query);

  // The alerts whose last stored transition is kFiring: what was firing when the daemon stopped.
  Result<std::vector<AlertTransition>> StillFiring();

  // Deletes transitions older than `now - retention`, except each alert's newest one while it
  // is firing. Returns how many rows went.
  Result<std::int64_t> EnforceRetention(WallTime now, std::chrono::milliseconds retention);

 private:
  explicit AlertHistory(std::unique_ptr<sqlite::Database> db) : db_(std::move(db)) {}

  std::mutex mu_;
  std::unique_ptr<sqlite::Database> db_;  // Guarded by mu_.
};

}  // namespace edgemond::storage

#endif  // EDGEMOND_STORAGE_ALERT_HISTORY_H_
