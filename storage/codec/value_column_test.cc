#include "storage/codec/value_column.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace edgemond::storage::codec {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<std::uint64_t> Bits(const std::vector<double>& values) {
  std::vector<std::uint64_t> bits;
  for (const double v : values) bits.push_back(std::bit_cast<std::uint64_t>(v));
  return bits;
}

void ExpectDecodes(const std::string& encoded, const std::vector<double>& values) {
  std::string framed = encoded + "end";
  ByteReader in(framed);
  std::vector<double> decoded;
  const Status status = DecodeValueColumn(in, values.size(), decoded);
  ASSERT_TRUE(status.ok()) << status;
  // Bit for bit: NaN payloads and the sign of zero survive.
  EXPECT_EQ(Bits(decoded), Bits(values));
  EXPECT_EQ(in.Rest(), "end");
}

// Round-trips through the automatic choice and through every codec that accepts the values;
// returns the automatic encoding's size and codec.
std::pair<std::size_t, ValueCodec> RoundTrip(const std::vector<double>& values) {
  std::string out;
  const ValueCodec chosen = EncodeValueColumn(values, out);
  ExpectDecodes(out, values);
  for (const ValueCodec codec : {ValueCodec::kXor, ValueCodec::kScaled, ValueCodec::kRatio}) {
    std::string forced;
    if (EncodeValueColumnWith(codec, values, forced)) {
      ExpectDecodes(forced, values);
      EXPECT_LE(out.size(), forced.size()) << "the choice is not the smallest";
    } else {
      EXPECT_NE(codec, ValueCodec::kXor) << "XOR must accept anything";
    }
  }
  return {out.size(), chosen};
}

TEST(ValueColumnTest, EmptyAndSingleValues) {
  RoundTrip({});
  RoundTrip({1.5});
  RoundTrip({-0.0});
  RoundTrip({kNaN});
}

TEST(ValueColumnTest, SpecialValuesRoundTripBitForBit) {
  const double signalling = std::bit_cast<double>(std::uint64_t{0x7ff0000000000123});
  const double negative_nan = std::bit_cast<double>(std::uint64_t{0xfff8000000000001});
  RoundTrip({kNaN, kInf, -kInf, 0.0, -0.0, signalling, negative_nan, 1e308, -1e-308,
             std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(),
             std::numeric_limits<double>::lowest()});
  // A reading that is one infinity among scaled integers stays scaled, with an exception.
  std::vector<double> mostly_scaled;
  for (int i = 0; i < 64; ++i) mostly_scaled.push_back((45000 + 500 * (i % 3)) / 1000.0);
  mostly_scaled[10] = kInf;
  mostly_scaled[20] = -0.0;
  EXPECT_EQ(RoundTrip(mostly_scaled).second, ValueCodec::kScaled);
}

TEST(ValueColumnTest, ConstantColumnsAreTiny) {
  EXPECT_LE(RoundTrip(std::vector<double>(600, 31998768.0 * 1024)).first, 12u);
  EXPECT_LE(RoundTrip(std::vector<double>(600, 0.1)).first, 12u);
}

TEST(ValueColumnTest, CollectorArithmeticIsRecoveredExactly) {
  std::mt19937 random(5);
  std::vector<double> divided;     // thermal: millicelsius / 1000.0
  std::vector<double> multiplied;  // hwmon: millivolts * 1e-3
  std::vector<double> pwm;         // hwmon: raw * (1.0 / 255.0)
  std::vector<double> hertz;       // cpufreq: kHz * 1000.0
  std::vector<double> joules;      // hwmon energy: microjoules * 1e-6
  std::int64_t energy = 3'000'000'000'000;
  for (int i = 0; i < 600; ++i) {
    divided.push_back(static_cast<double>(45000 + 500 * static_cast<int>(random() % 3)) / 1000.0);
    multiplied.push_back(static_cast<double>(19096 + 8 * static_cast<int>(random() % 3)) * 1e-3);
    pwm.push_back(static_cast<double>(120 + static_cast<int>(random() % 4)) * (1.0 / 255.0));
    hertz.push_back(static_cast<double>(1190400 + 76800 * static_cast<int>(random() % 4)) * 1000.0);
    energy += 2'000'000 + static_cast<std::int64_t>(random() % 1000);
    joules.push_back(static_cast<double>(energy) * 1e-6);
  }
  for (const auto* column : {&divided, &multiplied, &pwm, &hertz, &joules}) {
    const auto [size, codec] = RoundTrip(*column);
    EXPECT_EQ(codec, ValueCodec::kScaled);
    EXPECT_LT(size, column->size() * 2) << "should be a couple of bits per reading";
  }
}

TEST(ValueColumnTest, UtilizationRatiosUseTheRatioCodec) {
  std::mt19937 random(6);
  std::vector<double> ratios;
  for (int i = 0; i < 600; ++i) {
    const int total = 99 + static_cast<int>(random() % 3);
    const int busy = static_cast<int>(random() % static_cast<unsigned>(total + 1));
    ratios.push_back(static_cast<double>(busy) / static_cast<double>(total));
  }
  const auto [size, codec] = RoundTrip(ratios);
  EXPECT_EQ(codec, ValueCodec::kRatio);
  EXPECT_LT(size, ratios.size() * 2);
}

TEST(ValueColumnTest, RandomAndMonotonicValues) {
  std::mt19937_64 random(7);
  std::vector<double> noise;
  std::vector<double> bits;
  std::vector<double> monotonic;
  std::normal_distribution<double> normal(20.0, 5.0);
  double x = 0;
  for (int i = 0; i < 2000; ++i) {
    noise.push_back(normal(random));
    bits.push_back(std::bit_cast<double>(random()));  // Any pattern at all, NaNs included.
    x += std::fabs(normal(random));
    monotonic.push_back(x);
  }
  EXPECT_EQ(RoundTrip(noise).second, ValueCodec::kXor);
  RoundTrip(bits);
  RoundTrip(monotonic);
  RoundTrip({1e300, -1e300, 1e-300, 5e15, 9.007199254740993e15, -4.5e15, 3.0, 0.1});
}

TEST(ValueColumnTest, MalformedInputIsCorruption) {
  std::vector<double> values;
  for (int i = 0; i < 100; ++i) values.push_back(i / 1000.0);
  for (const ValueCodec codec : {ValueCodec::kXor, ValueCodec::kScaled}) {
    std::string out;
    ASSERT_TRUE(EncodeValueColumnWith(codec, values, out));
    std::vector<double> decoded;
    for (std::size_t cut = 0; cut < out.size(); ++cut) {
      ByteReader in(std::string_view(out).substr(0, cut));
      EXPECT_FALSE(DecodeValueColumn(in, values.size(), decoded).ok()) << cut;
    }
  }
  std::string unknown = "\x07";
  ByteReader in(unknown);
  std::vector<double> decoded;
  EXPECT_EQ(DecodeValueColumn(in, 3, decoded).code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace edgemond::storage::codec
