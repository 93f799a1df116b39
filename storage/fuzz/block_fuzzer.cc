// Fuzz target for the block format (storage/block.h), two ways chosen by the first byte:
//  - bit 7 clear: the rest is read as a query reads a block (storage/block_table.cc): the header
//    size from the first bytes, the header, then every series' part, with the column mask of the
//    low 5 bits. Any byte string, a block damaged on disk among them, must decode or fail with
//    kCorruption, never crash or read past its end;
//  - bit 7 set: the rest describes up to 8 series over up to 64 ticks (which ticks each series
//    has, and each value's 64 bits), raw (bit 0 clear) or rollup (set): encoded and read back,
//    every series must come back with the same timestamps and the same bits.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "storage/block.h"
#include "tests/fuzz/fuzz_check.h"

namespace edgemond::storage {
namespace {

// What block_table.cc reads before it knows the header's size.
constexpr std::size_t kHeaderGuess = 1024;

void ReadBlock(std::uint32_t column_mask, std::string_view block) {
  auto header_size = BlockReader::HeaderSize(block.substr(0, std::min(block.size(), kHeaderGuess)));
  if (!header_size.ok()) {
    FUZZ_CHECK(header_size.status().code() == StatusCode::kCorruption, "HeaderSize error code");
    return;
  }
  if (*header_size > block.size()) return;  // block_table.cc refuses it: header past the end.
  BlockReader reader;
  const Status parsed = reader.Parse(block.substr(0, *header_size));
  if (!parsed.ok()) {
    FUZZ_CHECK(parsed.code() == StatusCode::kCorruption, "Parse error code");
    return;
  }
  FUZZ_CHECK(reader.ticks().size() == reader.tick_count(), "tick count");
  FUZZ_CHECK(std::is_sorted(reader.ticks().begin(), reader.ticks().end()), "ticks ascend");
  SeriesPoints points;
  for (const BlockReader::Entry& entry : reader.entries()) {
    if (entry.offset + entry.length > block.size()) continue;  // Part past the end: refused.
    const Status decoded =
        reader.DecodeSeries(block.substr(entry.offset, entry.length), column_mask, points);
    if (!decoded.ok()) {
      FUZZ_CHECK(decoded.code() == StatusCode::kCorruption, "DecodeSeries error code");
      continue;
    }
    FUZZ_CHECK(points.timestamps.size() <= reader.tick_count(), "more points than ticks");
    for (int c = 0; c < reader.columns(); ++c) {
      if ((column_mask >> c) & 1u) {
        FUZZ_CHECK(points.columns[static_cast<std::size_t>(c)].size() == points.timestamps.size(),
                   "a column with a value per point");
      }
    }
  }
}

// Takes bytes from the front of the input; zeros once it is used up.
class Bytes {
 public:
  explicit Bytes(std::string_view data) : data_(data) {}
  std::uint8_t Byte() { return data_.empty() ? 0 : Take(1)[0]; }
  std::uint64_t Word() {
    std::uint64_t word = 0;
    const std::string_view bytes = Take(sizeof(word));
    std::memcpy(&word, bytes.data(), bytes.size());
    return word;
  }

 private:
  std::string_view Take(std::size_t n) {
    const std::string_view taken = data_.substr(0, n);
    data_.remove_prefix(taken.size());
    return taken;
  }
  std::string_view data_;
};

void RoundTrip(int columns, std::string_view data) {
  Bytes in(data);
  const int tick_count = 1 + in.Byte() % 64;
  const int series_count = 1 + in.Byte() % 8;
  std::vector<std::int64_t> ticks;
  std::int64_t t = static_cast<std::int64_t>(in.Word() >> 24);  // Up to ~3 * 10^11 ms.
  for (int k = 0; k < tick_count; ++k) {
    ticks.push_back(t);
    t += 1 + in.Byte() * 37;
  }
  std::vector<std::int64_t> ids;
  std::vector<SeriesPoints> series(static_cast<std::size_t>(series_count));
  std::int64_t id = 0;
  BlockEncoder encoder(columns);
  for (SeriesPoints& points : series) {
    id += 1 + in.Byte();
    for (int k = 0; k < tick_count; ++k) {
      if (in.Byte() % 4 == 0) continue;  // Absent at this tick.
      points.timestamps.push_back(ticks[static_cast<std::size_t>(k)]);
      for (int c = 0; c < columns; ++c) {
        const std::uint64_t bits = in.Word();
        double value;
        std::memcpy(&value, &bits, sizeof(value));
        points.columns[static_cast<std::size_t>(c)].push_back(value);
      }
    }
    if (points.timestamps.empty()) continue;
    ids.push_back(id);
    encoder.Add(id, points);
  }
  if (encoder.empty()) return;
  const std::string block = encoder.Finish();

  auto header_size = BlockReader::HeaderSize(std::string_view(block).substr(0, kHeaderGuess));
  FUZZ_CHECK(header_size.ok() && *header_size <= block.size(), "HeaderSize of an encoded block");
  BlockReader reader;
  FUZZ_CHECK(reader.Parse(std::string_view(block).substr(0, *header_size)).ok(), "Parse");
  FUZZ_CHECK(reader.columns() == columns, "columns");
  FUZZ_CHECK(reader.entries().size() == ids.size(), "one entry per series");
  std::size_t next = 0;
  SeriesPoints decoded;
  for (const SeriesPoints& points : series) {
    if (points.timestamps.empty()) continue;
    const BlockReader::Entry* entry = reader.Find(ids[next++]);
    FUZZ_CHECK(entry != nullptr && entry->offset + entry->length <= block.size(), "entry");
    FUZZ_CHECK(reader
                   .DecodeSeries(std::string_view(block).substr(entry->offset, entry->length),
                                 0x1fu, decoded)
                   .ok(),
               "DecodeSeries of an encoded block");
    FUZZ_CHECK(decoded.timestamps == points.timestamps, "timestamps round-trip");
    for (int c = 0; c < columns; ++c) {
      const auto& want = points.columns[static_cast<std::size_t>(c)];
      const auto& got = decoded.columns[static_cast<std::size_t>(c)];
      FUZZ_CHECK(got.size() == want.size() &&
                     std::memcmp(got.data(), want.data(), want.size() * sizeof(double)) == 0,
                 "values round-trip bit for bit");
    }
  }
}

}  // namespace
}  // namespace edgemond::storage

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 0x80u) {
    edgemond::storage::RoundTrip(
        data[0] & 1u ? edgemond::storage::kRollupColumns : edgemond::storage::kRawColumns, rest);
  } else {
    edgemond::storage::ReadBlock(data[0] & 0x1fu, rest);
  }
  return 0;
}
