// Blocks: the points of many series over one time window, encoded into one BLOB (one row of a
// blocks_* table). The format, and why: docs/adr/0002-storage-v2-blocks.md.
//
//   varint  header length (bytes that follow, up to the first part)
//   header: u8 format version (1)
//           u8 columns per point (1 for raw samples; 5 for rollups: min, max, sum, count, last)
//           varint tick count, then the ticks: the sorted union of every series' timestamps
//             (ms since the epoch) as an integer column (codec/int_column.h). The daemon stamps
//             all samples of a collection with one time, so the ticks are shared by the series.
//           varint series count, then per series: varint series id (delta from the previous
//             one; ids ascend) and varint byte length of its part.
//   parts, in directory order. Each part:
//           presence: varint points; when fewer than the ticks, varint run count and the runs
//             (alternately absent and present lengths, starting with absent) over the ticks.
//           per column: a value column (codec/value_column.h), each but the last preceded by its
//             varint byte length so that a reader can skip the columns it does not need.
//
// A reader needs the header to find one series' part, so it reads the first bytes of the BLOB
// (HeaderSize), then only that part: a query on one series out of 150 reads a few percent of
// each block.
//
// Thread safety: none; each object is used by one thread.

#ifndef EDGEMOND_STORAGE_BLOCK_H_
#define EDGEMOND_STORAGE_BLOCK_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/status.h"
#include "storage/codec/value_column.h"

namespace edgemond::storage {

inline constexpr int kRawColumns = 1;
inline constexpr int kRollupColumns = 5;
inline constexpr int kMaxColumns = 5;
// Column indexes of a rollup point.
enum RollupColumn : int {
  kMinColumn = 0,
  kMaxColumn = 1,
  kSumColumn = 2,
  kCountColumn = 3,
  kLastColumn = 4
};

// One series' points in a block: timestamps ascending and unique, and per column one value per
// timestamp.
struct SeriesPoints {
  std::vector<std::int64_t> timestamps;
  std::array<std::vector<double>, kMaxColumns> columns;
  void Clear() {
    timestamps.clear();
    for (auto& column : columns) column.clear();
  }
};

class BlockEncoder {
 public:
  explicit BlockEncoder(int columns) : columns_(columns) {}

  // Adds one series. REQUIRES: ids strictly ascending over calls; `points` has at least one
  // timestamp, strictly ascending, and columns() columns of that many values.
  void Add(std::int64_t series_id, const SeriesPoints& points);

  bool empty() const { return series_.empty(); }
  std::size_t points() const { return points_; }
  std::int64_t first_ms() const { return first_ms_; }
  std::int64_t last_ms() const { return last_ms_; }

  // Encodes everything added. The encoder is empty afterwards.
  std::string Finish();

 private:
  struct Series {
    std::int64_t id;
    const SeriesPoints* points;
  };
  const int columns_;
  std::vector<Series> series_;  // Borrowed until Finish().
  std::size_t points_ = 0;
  std::int64_t first_ms_ = 0;
  std::int64_t last_ms_ = 0;
};

class BlockReader {
 public:
  struct Entry {
    std::int64_t series_id;
    std::size_t offset;  // From the start of the block.
    std::size_t length;
  };

  // How many leading bytes of the block hold the header, from at least its first 10 bytes (or
  // the whole block if shorter).
  static Result<std::size_t> HeaderSize(std::string_view first_bytes);

  // Parses the header (the first HeaderSize() bytes of a block). Reuses its buffers.
  Status Parse(std::string_view header);

  int columns() const { return columns_; }
  std::size_t tick_count() const { return tick_count_; }
  const std::vector<std::int64_t>& ticks() const { return ticks_; }
  const std::vector<Entry>& entries() const { return entries_; }
  // The series' entry, or null when the block has no points of it.
  const Entry* Find(std::int64_t series_id) const;

  // Decodes a part (the `entry.length` bytes at `entry.offset`). Columns not in `column_mask`
  // (bit c for column c) are left empty.
  Status DecodeSeries(std::string_view part, std::uint32_t column_mask, SeriesPoints& out);

 private:
  int columns_ = 0;
  std::size_t tick_count_ = 0;
  std::vector<std::int64_t> ticks_;
  std::vector<Entry> entries_;
  codec::DecodeScratch scratch_;
};

}  // namespace edgemond::storage

#endif  // EDGEMOND_STORAGE_BLOCK_H_
