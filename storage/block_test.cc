#include "storage/block.h"

#include <gtest/gtest.h>

#include <bit>
#include <random>

namespace edgemond::storage {
namespace {

constexpr std::int64_t kT0 = 1767225600123;

SeriesPoints Points(std::vector<std::int64_t> ts, int columns, double base) {
  SeriesPoints p;
  p.timestamps = std::move(ts);
  for (int c = 0; c < columns; ++c) {
    for (std::size_t i = 0; i < p.timestamps.size(); ++i) {
      p.columns[static_cast<std::size_t>(c)].push_back(base + c + static_cast<double>(i % 7) / 8);
    }
  }
  return p;
}

// Parses a whole block the way the store does: header first, then parts.
void Decode(const std::string& block, BlockReader& reader) {
  auto header_size = BlockReader::HeaderSize(std::string_view(block).substr(0, 10));
  ASSERT_TRUE(header_size.ok()) << header_size.status();
  ASSERT_LE(*header_size, block.size());
  const Status status = reader.Parse(std::string_view(block).substr(0, *header_size));
  ASSERT_TRUE(status.ok()) << status;
}

void ExpectSame(const SeriesPoints& a, const SeriesPoints& b, int columns) {
  EXPECT_EQ(a.timestamps, b.timestamps);
  for (int c = 0; c < columns; ++c) {
    const auto& x = a.columns[static_cast<std::size_t>(c)];
    const auto& y = b.columns[static_cast<std::size_t>(c)];
    ASSERT_EQ(x.size(), y.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      EXPECT_EQ(std::bit_cast<std::uint64_t>(x[i]), std::bit_cast<std::uint64_t>(y[i]));
    }
  }
}

TEST(BlockTest, SeriesSharingTheirTicksRoundTrip) {
  std::vector<std::int64_t> ticks;
  for (int i = 0; i < 60; ++i) ticks.push_back(kT0 + i * 1000 + (i * 7919) % 3);
  std::vector<SeriesPoints> series;
  for (int s = 0; s < 150; ++s) series.push_back(Points(ticks, kRawColumns, s));
  BlockEncoder encoder(kRawColumns);
  for (int s = 0; s < 150; ++s) encoder.Add(s * 3 + 1, series[static_cast<std::size_t>(s)]);
  EXPECT_EQ(encoder.points(), 9000u);
  EXPECT_EQ(encoder.first_ms(), ticks.front());
  EXPECT_EQ(encoder.last_ms(), ticks.back());
  const std::string block = encoder.Finish();

  BlockReader reader;
  Decode(block, reader);
  EXPECT_EQ(reader.columns(), kRawColumns);
  EXPECT_EQ(reader.ticks(), ticks);
  ASSERT_EQ(reader.entries().size(), 150u);
  EXPECT_EQ(reader.Find(2), nullptr);
  SeriesPoints decoded;
  for (int s = 0; s < 150; ++s) {
    const auto* entry = reader.Find(s * 3 + 1);
    ASSERT_NE(entry, nullptr);
    ASSERT_LE(entry->offset + entry->length, block.size());
    ASSERT_TRUE(
        reader
            .DecodeSeries(std::string_view(block).substr(entry->offset, entry->length), 1, decoded)
            .ok());
    ExpectSame(decoded, series[static_cast<std::size_t>(s)], kRawColumns);
  }
}

TEST(BlockTest, SeriesWithGapsAndTheirOwnTimestamps) {
  std::vector<std::int64_t> all;
  for (int i = 0; i < 100; ++i) all.push_back(kT0 + i * 1000);
  std::vector<std::int64_t> gappy;
  for (int i = 0; i < 100; ++i) {
    if (i % 9 != 3 && i < 95 && i > 2) gappy.push_back(all[static_cast<std::size_t>(i)]);
  }
  std::vector<std::int64_t> offset;  // Stamped between the ticks of the others.
  for (int i = 0; i < 20; ++i) offset.push_back(kT0 + 500 + i * 5000);
  std::vector<SeriesPoints> series = {
      Points(all, kRollupColumns, 1), Points(gappy, kRollupColumns, 2),
      Points(offset, kRollupColumns, 3), Points({kT0 + 99'000}, kRollupColumns, 4)};
  BlockEncoder encoder(kRollupColumns);
  for (std::size_t s = 0; s < series.size(); ++s) {
    encoder.Add(static_cast<std::int64_t>(s) + 10, series[s]);
  }
  const std::string block = encoder.Finish();
  BlockReader reader;
  Decode(block, reader);
  EXPECT_EQ(reader.tick_count(), 120u);
  SeriesPoints decoded;
  for (std::size_t s = 0; s < series.size(); ++s) {
    const auto* entry = reader.Find(static_cast<std::int64_t>(s) + 10);
    ASSERT_NE(entry, nullptr);
    const std::string_view part = std::string_view(block).substr(entry->offset, entry->length);
    ASSERT_TRUE(reader.DecodeSeries(part, 0x1f, decoded).ok());
    ExpectSame(decoded, series[s], kRollupColumns);
    // Only the columns asked for.
    ASSERT_TRUE(reader.DecodeSeries(part, 1u << kSumColumn, decoded).ok());
    EXPECT_EQ(decoded.timestamps, series[s].timestamps);
    EXPECT_TRUE(decoded.columns[kMinColumn].empty());
    EXPECT_EQ(decoded.columns[kSumColumn], series[s].columns[kSumColumn]);
    EXPECT_TRUE(decoded.columns[kLastColumn].empty());
  }
}

TEST(BlockTest, DamagedBlocksAreCorruptionNeverACrash) {
  std::vector<std::int64_t> ticks;
  for (int i = 0; i < 30; ++i) ticks.push_back(kT0 + i * 1000);
  std::vector<SeriesPoints> series;
  for (int s = 0; s < 5; ++s) series.push_back(Points(ticks, kRawColumns, s));
  BlockEncoder encoder(kRawColumns);
  for (int s = 0; s < 5; ++s) encoder.Add(s + 1, series[static_cast<std::size_t>(s)]);
  const std::string block = encoder.Finish();
  std::mt19937 random(9);
  SeriesPoints decoded;
  for (int trial = 0; trial < 2000; ++trial) {
    std::string damaged = block;
    const int flips = 1 + static_cast<int>(random() % 4);
    for (int f = 0; f < flips; ++f) {
      damaged[random() % damaged.size()] ^= static_cast<char>(1 << (random() % 8));
    }
    damaged.resize(damaged.size() - random() % 8);
    BlockReader reader;
    auto size = BlockReader::HeaderSize(damaged);
    if (!size.ok() || *size > damaged.size()) continue;
    if (!reader.Parse(std::string_view(damaged).substr(0, *size)).ok()) continue;
    for (const auto& entry : reader.entries()) {
      if (entry.offset + entry.length > damaged.size()) continue;
      (void)reader.DecodeSeries(std::string_view(damaged).substr(entry.offset, entry.length), 1,
                                decoded);
    }
  }
}

}  // namespace
}  // namespace edgemond::storage
