// The on-disk schema of the SQLite store and its numbered migrations.
//
// The schema version lives in PRAGMA user_version; PRAGMA application_id marks the file as
// edgemond's. A migration moves a database from version N-1 to N inside one transaction that
// also sets user_version, so a crash or an error mid-way leaves version N-1 intact. Migrations
// run oldest first; v0 -> v1 creates the foundation layout (docs/adr/0001-storage-v1-layout.md),
// v1 -> v2 turns its samples into compressed blocks (docs/adr/0002-storage-v2-blocks.md),
// v2 -> v3 adds the alert history table (storage/alert_history.h).
//
// The schema is refused, never used or modified, when:
//   - user_version is newer than this binary understands (a downgrade): kFailedPrecondition;
//   - application_id belongs to another application, or the file has tables but no version
//     (some other SQLite database): kFailedPrecondition.
//
// Thread safety: these functions use the given connection; see sqlite/database.h.

#ifndef EDGEMOND_STORAGE_SCHEMA_H_
#define EDGEMOND_STORAGE_SCHEMA_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "core/result.h"
#include "core/status.h"
#include "storage/sqlite/database.h"

namespace edgemond::storage {

// "EDMD": PRAGMA application_id of every edgemond database.
inline constexpr std::int32_t kApplicationId = 0x45444d44;

// The first schema version with the alert_history table.
inline constexpr int kAlertHistorySchemaVersion = 3;
// The first schema version with the benchmark runs' tables (storage/benchmark_runs.h).
inline constexpr int kBenchmarkRunsSchemaVersion = 4;

struct Migration {
  int to_version;                         // Applied to a database at to_version - 1.
  std::string_view description;           // One line, for logs and errors.
  Status (*apply)(sqlite::Database& db);  // Runs inside the migration's transaction.
};

// The migrations this binary knows, in order; the last one's to_version is the current schema.
std::span<const Migration> BuiltinMigrations();
int CurrentSchemaVersion();

// Reads user_version and application_id and refuses a database this binary must not touch (see
// above). Writes nothing. Returns the database's schema version (0 for a new, empty file).
Result<int> CheckSchema(sqlite::Database& db, std::span<const Migration> migrations);

// Settings that SQLite only accepts before the first table exists and before WAL mode is
// switched on: auto_vacuum=INCREMENTAL, page_size. A no-op on a database that has any content.
Status PrepareEmptyDatabase(sqlite::Database& db);

// Brings the database to the newest version in `migrations`, one transaction per migration.
// Calls CheckSchema first, so a refused database is left untouched.
Status Migrate(sqlite::Database& db, std::span<const Migration> migrations = BuiltinMigrations());

}  // namespace edgemond::storage

#endif  // EDGEMOND_STORAGE_SCHEMA_H_
