#include "storage/codec/int_column.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

namespace edgemond::storage::codec {
namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

void ExpectDecodes(std::string encoded, const std::vector<std::int64_t>& values,
                   const std::string& what) {
  encoded += "end";
  ByteReader in(encoded);
  std::vector<std::int64_t> decoded;
  const Status status = DecodeIntColumn(in, values.size(), decoded);
  EXPECT_TRUE(status.ok()) << what << ": " << status;
  EXPECT_EQ(decoded, values) << what;
  EXPECT_EQ(in.Rest(), "end") << what;
}

// Encodes with the encoder's choice (checking the size estimate and that it is the smallest) and
// with every order and frame size forced; each must decode exactly, followed by a marker.
// Returns the chosen encoding's size.
std::size_t RoundTrip(const std::vector<std::int64_t>& values) {
  std::string out;
  EncodeIntColumn(values, out);
  EXPECT_EQ(out.size(), EncodedIntColumnSize(values));
  const std::size_t size = out.size();
  ExpectDecodes(out, values, "chosen");
  for (const IntOrder order :
       {IntOrder::kDeltas, IntOrder::kDeltasOfDeltas, IntOrder::kBiasedDeltas}) {
    for (int frame = 0; frame < kIntFrameSizeCodes; ++frame) {
      std::string forced;
      EncodeIntColumnWith(order, frame, values, forced);
      ExpectDecodes(forced, values,
                    "order " + std::to_string(static_cast<int>(order)) + ", frame code " +
                        std::to_string(frame));
      if (values.size() >= 3) {
        EXPECT_LE(size, forced.size()) << "the choice is not the smallest";
      }
    }
  }
  return size;
}

TEST(IntColumnTest, EmptyAndSingleValues) {
  EXPECT_EQ(RoundTrip({}), 0u);
  RoundTrip({42});
  RoundTrip({kMin});
  RoundTrip({kMax});
  RoundTrip({5, -5});
}

TEST(IntColumnTest, ConstantColumnsCostAFewBytes) {
  EXPECT_LE(RoundTrip(std::vector<std::int64_t>(1000, 45500)), 6u);
  EXPECT_LE(RoundTrip(std::vector<std::int64_t>(1000, kMin)), 14u);
}

TEST(IntColumnTest, SteadyTimestampsWithJitterAndGaps) {
  std::mt19937 random(1);
  std::vector<std::int64_t> ts;
  std::int64_t t = 1767225600123;
  for (int i = 0; i < 3600; ++i) {
    // A 1 Hz schedule whose wall stamps wander by up to 2 ms.
    ts.push_back(t + i * 1000 + static_cast<std::int64_t>(random() % 3));
    if (i % 700 == 699) t += 3'600'000;  // A gap of an hour.
  }
  const std::size_t size = RoundTrip(ts);
  EXPECT_LT(size, ts.size() / 2) << "a jittery 1 Hz clock should cost about 3 bits a tick";
  std::vector<std::int64_t> exact(600);
  for (int i = 0; i < 600; ++i) exact[static_cast<std::size_t>(i)] = 1767225600000 + i * 1000;
  EXPECT_LE(RoundTrip(exact), 16u);
}

TEST(IntColumnTest, MonotonicCountersAndQuantizedReadings) {
  std::mt19937 random(2);
  std::vector<std::int64_t> counter;
  std::vector<std::int64_t> millidegrees;
  std::int64_t energy = 4'000'000'000;
  std::int64_t temperature = 45500;
  for (int i = 0; i < 1000; ++i) {
    energy += 1'500'000 + static_cast<std::int64_t>(random() % 800);
    counter.push_back(energy);
    temperature += 500 * (static_cast<std::int64_t>(random() % 3) - 1);
    millidegrees.push_back(temperature);
  }
  RoundTrip(counter);
  // Steps of 500 are divided out: about two bits a reading.
  EXPECT_LT(RoundTrip(millidegrees), 400u);
}

TEST(IntColumnTest, RandomValuesAndHugeJumps) {
  std::mt19937_64 random(3);
  std::vector<std::int64_t> values;
  for (int i = 0; i < 5000; ++i) values.push_back(static_cast<std::int64_t>(random()));
  RoundTrip(values);
  RoundTrip({kMin, kMax, kMin, 0, kMax, kMax, kMin, -1, 1});
  RoundTrip({0, kMax, 0, kMax, 0});
  RoundTrip({kMin, kMin, kMin + 1, kMax, kMax - 1});
  std::vector<std::int64_t> steps;
  for (int i = 0; i < 300; ++i) steps.push_back(i % 100 == 0 ? kMax - i : i);
  RoundTrip(steps);
}

TEST(IntColumnTest, EveryLengthAroundFrameBoundaries) {
  std::mt19937 random(4);
  for (std::size_t n = 1; n < 140; ++n) {
    std::vector<std::int64_t> values;
    for (std::size_t i = 0; i < n; ++i) values.push_back(static_cast<std::int64_t>(random() % 9));
    RoundTrip(values);
  }
}

TEST(IntColumnTest, MalformedInputIsCorruption) {
  std::vector<std::int64_t> values;
  for (int i = 0; i < 100; ++i) values.push_back(i * i * 7919);
  std::string out;
  EncodeIntColumn(values, out);
  std::vector<std::int64_t> decoded;
  for (std::size_t cut = 0; cut < out.size(); ++cut) {
    ByteReader in(std::string_view(out).substr(0, cut));
    EXPECT_FALSE(DecodeIntColumn(in, values.size(), decoded).ok()) << cut;
  }
  std::string bad = out;
  bad[0] = static_cast<char>(0xf0);
  ByteReader in(bad);
  EXPECT_EQ(DecodeIntColumn(in, values.size(), decoded).code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace edgemond::storage::codec
