#include "storage/codec/coding.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

namespace edgemond::storage::codec {
namespace {

TEST(CodingTest, ZigZagMapsSmallMagnitudesToSmallNumbers) {
  EXPECT_EQ(ZigZag(0), 0u);
  EXPECT_EQ(ZigZag(-1), 1u);
  EXPECT_EQ(ZigZag(1), 2u);
  EXPECT_EQ(ZigZag(-2), 3u);
  for (const std::int64_t v :
       {std::int64_t{0}, std::int64_t{-1}, std::int64_t{12345},
        std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}) {
    EXPECT_EQ(UnZigZag(ZigZag(v)), v);
  }
}

TEST(CodingTest, VarintsRoundTripAndReportTruncation) {
  std::string out;
  const std::vector<std::uint64_t> values = {
      0, 1, 127, 128, 300, 1ull << 35, std::numeric_limits<std::uint64_t>::max()};
  for (const std::uint64_t v : values) {
    const std::size_t before = out.size();
    PutVarint(out, v);
    EXPECT_EQ(out.size() - before, VarintLength(v));
  }
  PutSignedVarint(out, -5);
  ByteReader in(out);
  for (const std::uint64_t v : values) EXPECT_EQ(in.Varint(), v);
  EXPECT_EQ(in.SignedVarint(), -5);
  EXPECT_TRUE(in.ok());
  EXPECT_TRUE(in.empty());
  EXPECT_EQ(in.Varint(), 0u);
  EXPECT_FALSE(in.ok());

  ByteReader truncated(std::string_view("\xff\xff", 2));
  truncated.Varint();
  EXPECT_FALSE(truncated.ok());
}

TEST(CodingTest, BitStreamsRoundTripEveryWidth) {
  std::mt19937_64 random(7);
  std::vector<std::pair<std::uint64_t, int>> fields;
  std::string out;
  BitWriter writer(out);
  for (int i = 0; i < 2000; ++i) {
    const int bits = static_cast<int>(random() % 65);
    const std::uint64_t value =
        bits == 64 ? random() : (bits == 0 ? 0 : random() & ((std::uint64_t{1} << bits) - 1));
    writer.Write(value, bits);
    fields.emplace_back(value, bits);
  }
  writer.Finish();
  BitReader reader(out);
  for (const auto& [value, bits] : fields) ASSERT_EQ(reader.Read(bits), value) << bits;
  EXPECT_TRUE(reader.ok());
  EXPECT_EQ(reader.bytes_consumed(), out.size());
  reader.Read(16);
  EXPECT_FALSE(reader.ok());
}

}  // namespace
}  // namespace edgemond::storage::codec
