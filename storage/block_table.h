// Reading and writing one tier's table of blocks (storage/tier.h) through one connection.
// Internal to storage/.
//
// Reads go through a blob handle: the header of each block first, then only the parts of the
// series asked for, so a query on one series reads a few percent of each block (and, thanks to
// auto_vacuum's pointer map, SQLite finds the overflow page holding a part without reading the
// pages before it).
//
// Thread safety: that of the connection (one thread at a time).

#ifndef EDGEMOND_STORAGE_BLOCK_TABLE_H_
#define EDGEMOND_STORAGE_BLOCK_TABLE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/status.h"
#include "storage/block.h"
#include "storage/sqlite/database.h"
#include "storage/tier.h"

namespace edgemond::storage {

struct BlockRow {
  std::int64_t t0 = 0;
  std::int64_t t1 = 0;
  std::int64_t points = 0;
};

class BlockTable {
 public:
  // Borrows `db`, which must outlive this object.
  BlockTable(sqlite::Database& db, const TierSpec& spec);

  const TierSpec& spec() const { return spec_; }

  // Writes a block (replacing one with the same t0).
  Status Insert(const BlockRow& row, std::string_view data);
  // Deletes the blocks whose t0 lies in [from, to).
  Status DeleteStartingIn(std::int64_t from, std::int64_t to);

  Result<std::optional<BlockRow>> Oldest();
  Result<std::optional<BlockRow>> Newest();
  // Blocks that hold points in [from, to], in time order.
  Result<std::vector<BlockRow>> Overlapping(std::int64_t from, std::int64_t to);
  // Blocks whose t1 is before `cutoff`, oldest first, at most `limit`.
  Result<std::vector<BlockRow>> EndingBefore(std::int64_t cutoff, std::size_t limit);
  // Bytes of the blocks (their data) whose t1 is before `cutoff`.
  Result<std::int64_t> BytesEndingBefore(std::int64_t cutoff);

  // Calls visit(series_id, points) for each series in `series_ids` (ascending; empty means
  // every series) that has points in a block listed in `rows`, block after block. `column_mask`
  // selects the columns decoded (bit c for column c). Points outside [from, to] are included:
  // blocks are decoded whole, the caller filters.
  using Visitor = std::function<Status(std::int64_t series_id, const SeriesPoints& points)>;
  Status Scan(std::span<const BlockRow> rows, std::span<const std::int64_t> series_ids,
              std::uint32_t column_mask, const Visitor& visit);

 private:
  std::string Sql(std::string_view pattern) const;  // Replaces "$T" with the table name.

  sqlite::Database& db_;
  const TierSpec& spec_;
  // Reused across Scan() calls.
  BlockReader reader_;
  SeriesPoints points_;
  std::string buffer_;
};

}  // namespace edgemond::storage

#endif  // EDGEMOND_STORAGE_BLOCK_TABLE_H_
