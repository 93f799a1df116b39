// AlertHistory: every alert transition (firing, resolved), kept in the daemon's SQLite database
// for GET /api/v1/alerts/history and for restoring firing alerts after a restart.
//
// The history has a table of its own, `alert_history`, created idempotently (CREATE TABLE IF NOT
// EXISTS) on its own connection to the store's database file, outside the store's numbered
// migrations: it stays valid whatever layout the sample tables have. Transitions are rare (one per
// alert state change), so each Append() is one small transaction written at once, not batched.
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
  // Opens the database at `path` (creating it if needed) and the history table in it.
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
