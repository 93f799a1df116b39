// What the parts of SqliteStore (storage/sqlite_store*.cc) share: the sizes they budget the file
// with, and the operations on series points that more than one of them performs. Not part of the
// storage API; nothing outside storage/ includes it.
#ifndef EDGEMOND_STORAGE_SQLITE_STORE_INTERNAL_H_
#define EDGEMOND_STORAGE_SQLITE_STORE_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "storage/block.h"
#include "storage/sqlite/database.h"
#include "storage/sqlite_store.h"
#include "storage/tier.h"

namespace edgemond::storage::internal {

// The WAL file is cut back to this size whenever SQLite rewinds it (journal_size_limit), so a
// burst (a rollup rebuild, a migration) does not leave a large file behind. With a size cap the
// WAL gets a sixteenth of it, at most this: the cap covers the database and its WAL together.
constexpr std::int64_t kJournalSizeLimitBytes = 4 << 20;
constexpr std::int64_t kPageBytes = 4096;
constexpr std::int64_t kWalFrameBytes = kPageBytes + 24;
// Space a flush needs beyond its data: WAL frame headers, the pages of the tree it touches, a
// rollup window it may complete.
constexpr std::int64_t kFlushOverheadBytes = 1 << 20;
// Free space the store never takes for itself (the rest of the system needs some too).
constexpr std::int64_t kReserveBytes = 256 << 10;

constexpr std::uint32_t kAllColumns = (1u << kMaxColumns) - 1;

// What the WAL may take of the size cap.
std::int64_t WalBudget(const StorageOptions& options);

// The size of the file at `path`; 0 when it does not exist.
std::int64_t FileSize(const std::string& path);

// Sorts a series' head samples by time, keeping the later Append of one millisecond.
void SortHead(std::vector<std::int64_t>& ms, std::vector<double>& values);

// Merges `newer` into `older` (both raw points sorted by time); on equal timestamps `newer`
// wins.
void MergeRaw(SeriesPoints& older, const SeriesPoints& newer);

// Whether rollup `window` of `tier` may be (re)built from the tier below: when that tier still
// holds the whole window (its oldest point is not after the window's start), or when `tier` has
// nothing stored for the window (nothing can be lost). Otherwise the lower tier's data for part
// of the window has expired and only the rollup still summarizes it.
Result<bool> MayRebuild(sqlite::Database& db, Tier tier, std::int64_t window,
                        std::optional<std::int64_t> lower_oldest);

}  // namespace edgemond::storage::internal

#endif  // EDGEMOND_STORAGE_SQLITE_STORE_INTERNAL_H_
