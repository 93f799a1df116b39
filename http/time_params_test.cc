#include "http/time_params.h"

#include <gtest/gtest.h>

namespace edgemond::http {
namespace {

constexpr std::int64_t kNow = 1767225600000;  // 2026-01-01T00:00:00Z

TEST(TimeParamsTest, ParsesEveryTimeForm) {
  EXPECT_EQ(ParseTimeMillis("now", kNow).value(), kNow);
  EXPECT_EQ(ParseTimeMillis("-3600", kNow).value(), kNow - 3600000);
  EXPECT_EQ(ParseTimeMillis("1767225600", kNow).value(), kNow);
  EXPECT_EQ(ParseTimeMillis("1767225600.25", kNow).value(), kNow + 250);
  EXPECT_EQ(ParseTimeMillis("2026-01-01T00:00:00Z", kNow).value(), kNow);
  EXPECT_EQ(ParseTimeMillis("2026-01-01T01:00:00.5+01:00", kNow).value(), kNow + 500);
  EXPECT_EQ(ParseTimeMillis("2025-12-31T19:00:00-05:00", kNow).value(), kNow);
  EXPECT_EQ(ParseTimeMillis("1970-01-01T00:00:00Z", kNow).value(), 0);
  EXPECT_EQ(ParseTimeMillis("2024-02-29T00:00:00Z", kNow).value(), 1709164800000);
}

TEST(TimeParamsTest, RejectsBadTimesWithAHint) {
  for (const char* bad : {"", "yesterday", "2026-13-01T00:00:00Z", "2026-01-01", "1767225600000",
                          "2026-01-01T00:00:00", "nan"}) {
    const auto parsed = ParseTimeMillis(bad, kNow);
    EXPECT_FALSE(parsed.ok()) << bad;
    EXPECT_TRUE(parsed.status().IsInvalidArgument()) << bad;
  }
}

TEST(TimeParamsTest, ParsesDurations) {
  EXPECT_EQ(ParseDurationMillis("60s").value(), 60000);
  // A step that rounds to 0 ms is refused, not answered with a zero step.
  EXPECT_FALSE(ParseDurationMillis("0.0000017").ok());
  EXPECT_EQ(ParseDurationMillis("0.0005").value(), 1);
  EXPECT_EQ(ParseDurationMillis("5m").value(), 300000);
  EXPECT_EQ(ParseDurationMillis("1h30m").value(), 5400000);
  EXPECT_EQ(ParseDurationMillis("250ms").value(), 250);
  EXPECT_EQ(ParseDurationMillis("7d").value(), 604800000);
  EXPECT_EQ(ParseDurationMillis("60").value(), 60000);
  EXPECT_EQ(ParseDurationMillis("0.5").value(), 500);
  for (const char* bad : {"", "0", "-5", "5x", "m", "0s", "1.5m"}) {
    EXPECT_FALSE(ParseDurationMillis(bad).ok()) << bad;
  }
}

// At most 10^10 s (about 317 years) in either form, and never a product or sum past 64 bits
// (found by the time_params fuzzer: "700177542y").
TEST(TimeParamsTest, RefusesDurationsTooLongToRepresent) {
  EXPECT_EQ(ParseDurationMillis("317y").value(), 317 * 31'536'000'000LL);
  EXPECT_EQ(ParseDurationMillis("10000000000").value(), 10'000'000'000'000LL);
  for (const char* bad :
       {"318y", "700177542y", "1000000000w1000000000w", "10000000001", "200y200y"}) {
    const auto parsed = ParseDurationMillis(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_NE(parsed.status().message().find("is not a duration"), std::string::npos);
  }
}

}  // namespace
}  // namespace edgemond::http
