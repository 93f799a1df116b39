#include "storage/block_table.h"

#include <algorithm>
#include <utility>

#include "storage/sqlite/blob.h"
#include "storage/sqlite/statement.h"

namespace edgemond::storage {

namespace {

// The first read of a block: enough for the header of a few hundred series.
constexpr std::size_t kHeaderGuess = 1024;

BlockRow RowFrom(const sqlite::Statement& select) {
  return BlockRow{select.ColumnInt64(0), select.ColumnInt64(1), select.ColumnInt64(2)};
}

}  // namespace

BlockTable::BlockTable(sqlite::Database& db, const TierSpec& spec) : db_(db), spec_(spec) {}

std::string BlockTable::Sql(std::string_view pattern) const {
  std::string sql(pattern);
  for (std::size_t at = sql.find("$T"); at != std::string::npos; at = sql.find("$T", at)) {
    sql.replace(at, 2, spec_.table);
  }
  return sql;
}

Status BlockTable::Insert(const BlockRow& row, std::string_view data) {
  EDGEMOND_ASSIGN_OR_RETURN(
      sqlite::Statement insert,
      db_.GetCachedStatement(
          Sql("INSERT OR REPLACE INTO $T(t0, t1, points, data) VALUES (?, ?, ?, ?)")));
  insert.BindInt64(0, row.t0);
  insert.BindInt64(1, row.t1);
  insert.BindInt64(2, row.points);
  insert.BindBlob(3, data);
  return insert.Run();
}

Status BlockTable::DeleteStartingIn(std::int64_t from, std::int64_t to) {
  EDGEMOND_ASSIGN_OR_RETURN(sqlite::Statement erase,
                            db_.GetCachedStatement(Sql("DELETE FROM $T WHERE t0 >= ? AND t0 < ?")));
  erase.BindInt64(0, from);
  erase.BindInt64(1, to);
  return erase.Run();
}

Result<std::optional<BlockRow>> BlockTable::Oldest() {
  EDGEMOND_ASSIGN_OR_RETURN(
      sqlite::Statement select,
      db_.GetCachedStatement(Sql("SELECT t0, t1, points FROM $T ORDER BY t0 LIMIT 1")));
  EDGEMOND_ASSIGN_OR_RETURN(const bool has_row, select.Step());
  if (!has_row) return std::optional<BlockRow>();
  return std::optional<BlockRow>(RowFrom(select));
}

Result<std::optional<BlockRow>> BlockTable::Newest() {
  EDGEMOND_ASSIGN_OR_RETURN(
      sqlite::Statement select,
      db_.GetCachedStatement(Sql("SELECT t0, t1, points FROM $T ORDER BY t0 DESC LIMIT 1")));
  EDGEMOND_ASSIGN_OR_RETURN(const bool has_row, select.Step());
  if (!has_row) return std::optional<BlockRow>();
  return std::optional<BlockRow>(RowFrom(select));
}

Result<std::vector<BlockRow>> BlockTable::Overlapping(std::int64_t from, std::int64_t to) {
  std::vector<BlockRow> rows;
  if (from > to) return rows;
  // A block starts at most window_ms before its end, so the rowid range bounds the scan.
  EDGEMOND_ASSIGN_OR_RETURN(
      sqlite::Statement select,
      db_.GetCachedStatement(Sql("SELECT t0, t1, points FROM $T WHERE t0 BETWEEN ? AND ? AND "
                                 "t1 >= ? ORDER BY t0")));
  select.BindInt64(0, from - spec_.window_ms);
  select.BindInt64(1, to);
  select.BindInt64(2, from);
  while (true) {
    EDGEMOND_ASSIGN_OR_RETURN(const bool has_row, select.Step());
    if (!has_row) break;
    rows.push_back(RowFrom(select));
  }
  return rows;
}

Result<std::vector<BlockRow>> BlockTable::EndingBefore(std::int64_t cutoff, std::size_t limit) {
  std::vector<BlockRow> rows;
  EDGEMOND_ASSIGN_OR_RETURN(
      sqlite::Statement select,
      db_.GetCachedStatement(
          Sql("SELECT t0, t1, points FROM $T WHERE t0 < ?1 AND t1 < ?1 ORDER BY t0 LIMIT ?2")));
  select.BindInt64(0, cutoff);
  select.BindInt64(1, static_cast<std::int64_t>(limit));
  while (true) {
    EDGEMOND_ASSIGN_OR_RETURN(const bool has_row, select.Step());
    if (!has_row) break;
    rows.push_back(RowFrom(select));
  }
  return rows;
}

Result<std::int64_t> BlockTable::BytesEndingBefore(std::int64_t cutoff) {
  EDGEMOND_ASSIGN_OR_RETURN(
      sqlite::Statement select,
      db_.GetCachedStatement(
          Sql("SELECT coalesce(sum(length(data)), 0) FROM $T WHERE t0 < ?1 AND t1 < ?1")));
  select.BindInt64(0, cutoff);
  EDGEMOND_ASSIGN_OR_RETURN(const bool has_row, select.Step());
  return has_row ? select.ColumnInt64(0) : 0;
}

Status BlockTable::Scan(std::span<const BlockRow> rows, std::span<const std::int64_t> series_ids,
                        std::uint32_t column_mask, const Visitor& visit) {
  if (rows.empty()) return Status::Ok();
  std::optional<sqlite::Blob> blob;
  std::string part;
  for (const BlockRow& row : rows) {
    const auto context = [&] {
      return std::string(spec_.table) + " block " + std::to_string(row.t0);
    };
    if (!blob) {
      auto opened = db_.OpenBlob(std::string(spec_.table), "data", row.t0);
      if (!opened.ok()) return opened.status().WithContext(context());
      blob.emplace(std::move(opened).value());
    } else {
      const Status moved = blob->Reopen(row.t0);
      if (!moved.ok()) return moved.WithContext(context());
    }
    const auto size = static_cast<std::size_t>(blob->size());
    buffer_.resize(std::min(size, kHeaderGuess));
    Status status = blob->Read(0, buffer_);
    if (!status.ok()) return status.WithContext(context());
    auto header_size = BlockReader::HeaderSize(buffer_);
    if (!header_size.ok()) return header_size.status().WithContext(context());
    if (*header_size > size) return Status::Corruption(context() + ": header past the end");
    // Read the whole block when most of it is wanted anyway.
    const bool whole = series_ids.empty() || *header_size > buffer_.size();
    if (whole) {
      buffer_.resize(size);
      status = blob->Read(0, buffer_);
      if (!status.ok()) return status.WithContext(context());
    }
    status = reader_.Parse(std::string_view(buffer_).substr(0, *header_size));
    if (!status.ok()) return status.WithContext(context());
    const bool read_all = whole || series_ids.size() * 4 >= reader_.entries().size();
    if (read_all && !whole) {
      buffer_.resize(size);
      status = blob->Read(0, buffer_);
      if (!status.ok()) return status.WithContext(context());
    }
    const auto decode = [&](const BlockReader::Entry& entry) -> Status {
      if (entry.offset + entry.length > size) {
        return Status::Corruption(context() + ": part past the end");
      }
      std::string_view bytes;
      if (read_all) {
        bytes = std::string_view(buffer_).substr(entry.offset, entry.length);
      } else {
        part.resize(entry.length);
        EDGEMOND_RETURN_IF_ERROR(blob->Read(static_cast<std::int64_t>(entry.offset), part));
        bytes = part;
      }
      Status decoded = reader_.DecodeSeries(bytes, column_mask, points_);
      if (!decoded.ok()) return decoded.WithContext(context());
      return visit(entry.series_id, points_);
    };
    const auto& entries = reader_.entries();
    if (series_ids.empty()) {
      for (const auto& entry : entries) EDGEMOND_RETURN_IF_ERROR(decode(entry));
    } else {
      // Both lists ascend: walk them together.
      std::size_t e = 0;
      for (const std::int64_t id : series_ids) {
        while (e < entries.size() && entries[e].series_id < id) ++e;
        if (e == entries.size()) break;
        if (entries[e].series_id == id) EDGEMOND_RETURN_IF_ERROR(decode(entries[e]));
      }
    }
  }
  return Status::Ok();
}

}  // namespace edgemond::storage
