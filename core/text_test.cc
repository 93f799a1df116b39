#include "core/text.h"

#include <gtest/gtest.h>

namespace edgemond {
namespace {

TEST(TextTest, ParsesSysfsIntegers) {
  EXPECT_EQ(ParseInt64("45000\n").value(), 45000);
  EXPECT_EQ(ParseInt64("-256000\n").value(), -256000);
  EXPECT_EQ(ParseInt64(std::string("42\0", 3)).value(), 42);
  EXPECT_EQ(ParseUint64("18446744073709551615\n").value(), 18446744073709551615ull);
  EXPECT_EQ(ParseInt64("").status().code(), StatusCode::kCorruption);
  EXPECT_EQ(ParseInt64("850 ma\n").status().code(), StatusCode::kCorruption);
  EXPECT_EQ(ParseInt64(FirstField("850 ma\n")).value(), 850);
  EXPECT_EQ(ParseUint64("-1").status().code(), StatusCode::kCorruption);
}

// The text of a number that does not parse becomes a missing value's reason, in JSON and in
// labels: one line of printable ASCII, whatever bytes the file held.
TEST(TextTest, AnUnparsableNumberIsQuotedAsOnePrintableLine) {
  EXPECT_EQ(ParseInt64("48\n1").status().message(), "not a number: \"48\\n1\"");
  EXPECT_EQ(ParseInt64("\x01\"\\\xff").status().message(), "not a number: \"\\x01\\\"\\\\\\xff\"");
}

TEST(TextTest, ParsesDoubles) {
  EXPECT_DOUBLE_EQ(ParseDouble(" 1.5\n").value(), 1.5);
  EXPECT_FALSE(ParseDouble("1.5x").ok());
  EXPECT_FALSE(ParseDouble("").ok());
}

TEST(TextTest, ParsesCpuLists) {
  EXPECT_EQ(ParseCpuList("0-3,5\n").value(), (std::vector<int>{0, 1, 2, 3, 5}));
  EXPECT_EQ(ParseCpuList("\n").value(), std::vector<int>{});
  EXPECT_EQ(ParseCpuList("0").value(), std::vector<int>{0});
  EXPECT_FALSE(ParseCpuList("3-1").ok());
  EXPECT_FALSE(ParseCpuList("a").ok());
}

TEST(TextTest, SplitsFieldsAndLines) {
  EXPECT_EQ(SplitFields("cpu  1 2\t3 "), (std::vector<std::string_view>{"cpu", "1", "2", "3"}));
  EXPECT_EQ(SplitLines("a\nb\n"), (std::vector<std::string_view>{"a", "b"}));
  EXPECT_EQ(SplitLines("a\n\nb"), (std::vector<std::string_view>{"a", "", "b"}));
}

}  // namespace
}  // namespace edgemond
