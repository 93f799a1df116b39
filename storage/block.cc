#include "storage/block.h"

#include <algorithm>

#include "storage/codec/coding.h"
#include "storage/codec/int_column.h"
#include "storage/codec/value_column.h"

namespace edgemond::storage {

namespace {

using codec::ByteReader;
using codec::PutVarint;

constexpr std::uint8_t kFormatVersion = 1;
// More timestamps than any block holds (an hour at 1 kHz): a damaged count must not make the
// reader allocate gigabytes.
constexpr std::uint64_t kMaxTicks = std::uint64_t{1} << 22;

}  // namespace

void BlockEncoder::Add(std::int64_t series_id, const SeriesPoints& points) {
  const auto& ts = points.timestamps;
  if (series_.empty()) {
    first_ms_ = ts.front();
    last_ms_ = ts.back();
  } else {
    first_ms_ = std::min(first_ms_, ts.front());
    last_ms_ = std::max(last_ms_, ts.back());
  }
  points_ += ts.size();
  series_.push_back({series_id, &points});
}

std::string BlockEncoder::Finish() {
  // The ticks: usually every series has the same timestamps.
  std::vector<std::int64_t> ticks;
  bool shared = true;
  for (const Series& s : series_) {
    if (s.points->timestamps != series_.front().points->timestamps) {
      shared = false;
      break;
    }
  }
  if (shared && !series_.empty()) {
    ticks = series_.front().points->timestamps;
  } else {
    for (const Series& s : series_) {
      ticks.insert(ticks.end(), s.points->timestamps.begin(), s.points->timestamps.end());
    }
    std::sort(ticks.begin(), ticks.end());
    ticks.erase(std::unique(ticks.begin(), ticks.end()), ticks.end());
  }

  std::string parts;
  std::vector<std::size_t> lengths;
  lengths.reserve(series_.size());
  std::string column;
  for (const Series& s : series_) {
    const std::size_t start = parts.size();
    const auto& ts = s.points->timestamps;
    PutVarint(parts, ts.size());
    if (ts.size() != ticks.size()) {
      // Runs over the ticks, alternately absent and present, starting with absent.
      std::vector<std::uint64_t> runs;
      std::size_t t = 0;
      std::size_t i = 0;
      while (t < ticks.size()) {
        std::uint64_t absent = 0;
        while (t < ticks.size() && (i >= ts.size() || ticks[t] != ts[i])) {
          ++absent;
          ++t;
        }
        std::uint64_t present = 0;
        while (t < ticks.size() && i < ts.size() && ticks[t] == ts[i]) {
          ++present;
          ++t;
          ++i;
        }
        runs.push_back(absent);
        if (present > 0) runs.push_back(present);
      }
      PutVarint(parts, runs.size());
      for (const std::uint64_t run : runs) PutVarint(parts, run);
    }
    for (int c = 0; c < columns_; ++c) {
      column.clear();
      codec::EncodeValueColumn(s.points->columns[static_cast<std::size_t>(c)], column);
      if (c + 1 < columns_) PutVarint(parts, column.size());
      parts += column;
    }
    lengths.push_back(parts.size() - start);
  }

  std::string header;
  header.push_back(static_cast<char>(kFormatVersion));
  header.push_back(static_cast<char>(columns_));
  PutVarint(header, ticks.size());
  codec::EncodeIntColumn(ticks, header);
  PutVarint(header, series_.size());
  std::int64_t previous_id = 0;
  for (std::size_t i = 0; i < series_.size(); ++i) {
    PutVarint(header, static_cast<std::uint64_t>(series_[i].id - previous_id));
    previous_id = series_[i].id;
    PutVarint(header, lengths[i]);
  }

  std::string block;
  block.reserve(codec::VarintLength(header.size()) + header.size() + parts.size());
  PutVarint(block, header.size());
  block += header;
  block += parts;
  series_.clear();
  points_ = 0;
  return block;
}

Result<std::size_t> BlockReader::HeaderSize(std::string_view first_bytes) {
  ByteReader in(first_bytes);
  const std::uint64_t length = in.Varint();
  if (!in.ok() || length > (std::uint64_t{1} << 31)) {
    return Status::Corruption("block: bad header length");
  }
  return in.position() + static_cast<std::size_t>(length);
}

Status BlockReader::Parse(std::string_view header) {
  ByteReader in(header);
  const std::uint64_t header_length = in.Varint();
  const std::size_t header_end = in.position() + static_cast<std::size_t>(header_length);
  if (!in.ok() || header_end != header.size()) {
    return Status::Corruption("block: header length does not match");
  }
  const std::uint8_t version = in.Byte();
  columns_ = in.Byte();
  if (!in.ok() || version != kFormatVersion) {
    return Status::Corruption("block: unknown format version " + std::to_string(version));
  }
  if (columns_ < 1 || columns_ > kMaxColumns) return Status::Corruption("block: bad column count");
  const std::uint64_t ticks = in.Varint();
  if (!in.ok() || ticks > kMaxTicks) return Status::Corruption("block: bad tick count");
  tick_count_ = static_cast<std::size_t>(ticks);
  // The tick column is not length-prefixed: decoding it is how a reader finds its end.
  EDGEMOND_RETURN_IF_ERROR(codec::DecodeIntColumn(in, tick_count_, ticks_));
  // Queries merge and search the ticks as sorted and unique: a block that says otherwise is
  // damaged.
  for (std::size_t i = 1; i < ticks_.size(); ++i) {
    if (ticks_[i] <= ticks_[i - 1]) return Status::Corruption("block: ticks out of order");
  }
  const std::uint64_t series = in.Varint();
  if (!in.ok() || series > header.size()) return Status::Corruption("block: bad series count");
  entries_.clear();
  entries_.reserve(static_cast<std::size_t>(series));
  std::int64_t id = 0;
  std::size_t offset = header_end;
  for (std::uint64_t i = 0; i < series; ++i) {
    const std::uint64_t delta = in.Varint();
    const std::uint64_t length = in.Varint();
    if (!in.ok() || (i > 0 && delta == 0) || length > (std::uint64_t{1} << 31)) {
      return Status::Corruption("block: bad directory entry");
    }
    id += static_cast<std::int64_t>(delta);
    entries_.push_back({id, offset, static_cast<std::size_t>(length)});
    offset += static_cast<std::size_t>(length);
  }
  if (!in.empty()) return Status::Corruption("block: trailing bytes in the header");
  return Status::Ok();
}

const BlockReader::Entry* BlockReader::Find(std::int64_t series_id) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), series_id,
                             [](const Entry& e, std::int64_t id) { return e.series_id < id; });
  return it != entries_.end() && it->series_id == series_id ? &*it : nullptr;
}

Status BlockReader::DecodeSeries(std::string_view part, std::uint32_t column_mask,
                                 SeriesPoints& out) {
  out.Clear();
  ByteReader in(part);
  const std::uint64_t points = in.Varint();
  if (!in.ok() || points == 0 || points > tick_count_) {
    return Status::Corruption("block: bad point count");
  }
  out.timestamps.reserve(static_cast<std::size_t>(points));
  if (points == tick_count_) {
    out.timestamps.assign(ticks_.begin(), ticks_.end());
  } else {
    const std::uint64_t runs = in.Varint();
    if (!in.ok() || runs > tick_count_ * 2 + 1) return Status::Corruption("block: bad runs");
    std::size_t t = 0;
    for (std::uint64_t r = 0; r < runs; ++r) {
      const std::uint64_t length = in.Varint();
      if (!in.ok() || length > tick_count_ - t) return Status::Corruption("block: bad run");
      if (r % 2 == 1) {
        out.timestamps.insert(out.timestamps.end(), ticks_.begin() + static_cast<long>(t),
                              ticks_.begin() + static_cast<long>(t + length));
      }
      t += static_cast<std::size_t>(length);
    }
    if (out.timestamps.size() != points) {
      return Status::Corruption("block: runs do not match the point count");
    }
  }
  for (int c = 0; c < columns_; ++c) {
    const bool last = c + 1 == columns_;
    const bool wanted = (column_mask >> c) & 1;
    if (!last) {
      const std::uint64_t length = in.Varint();
      if (!in.ok() || length > in.remaining()) return Status::Corruption("block: bad column");
      if (!wanted) {
        in.Skip(static_cast<std::size_t>(length));
        continue;
      }
      ByteReader column(in.Bytes(static_cast<std::size_t>(length)));
      EDGEMOND_RETURN_IF_ERROR(codec::DecodeValueColumn(column, static_cast<std::size_t>(points),
                                                        out.columns[static_cast<std::size_t>(c)],
                                                        scratch_));
    } else if (wanted) {
      EDGEMOND_RETURN_IF_ERROR(codec::DecodeValueColumn(in, static_cast<std::size_t>(points),
                                                        out.columns[static_cast<std::size_t>(c)],
                                                        scratch_));
    }
  }
  return Status::Ok();
}

}  // namespace edgemond::storage
