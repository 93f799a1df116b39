#include "collectors/internal/proc_stat_parse.h"

#include <gtest/gtest.h>

namespace edgemond::collectors::internal {
namespace {

TEST(ParseProcStatTest, ParsesAggregateAndPerCpuLines) {
  const std::string_view text =
      "cpu  4705 356 584 3699 23 23 0 0 0 0\n"
      "cpu0 1393 280 290 1211 6 15 0 0 7 1\n"
      "cpu3 1000 20 100 900 3 2 1 5 0 0\n"
      "intr 114930548 113199788 3 0 5 263 0 4 [... 204 more ...]\n"
      "ctxt 1990473\n";
  std::vector<CpuTimes> cpus;
  ASSERT_TRUE(ParseProcStat(text, cpus).ok());
  ASSERT_EQ(cpus.size(), 3u);
  EXPECT_EQ(cpus[0], (CpuTimes{CpuTimes::kAggregate, 4705, 356, 584, 3699, 23, 23, 0, 0, 0, 0}));
  EXPECT_EQ(cpus[1], (CpuTimes{0, 1393, 280, 290, 1211, 6, 15, 0, 0, 7, 1}));
  EXPECT_EQ(cpus[2], (CpuTimes{3, 1000, 20, 100, 900, 3, 2, 1, 5, 0, 0}));
}

// The kernel prints the aggregate once and the online CPUs in ascending order; a garbled file
// that repeats one would give its series two values in one tick.
TEST(ParseProcStatTest, CpuLinesOutOfOrderAreCorruption) {
  std::vector<CpuTimes> times;
  for (const char* text :
       {"cpu  1 2 3 4\ncpu0 1 2 3 4\ncpu  1 2 3 4\n", "cpu  1 2 3 4\ncpu1 1 2 3 4\ncpu0 1 2 3 4\n",
        "cpu  1 2 3 4\ncpu0 1 2 3 4\ncpu0 1 2 3 4\n"}) {
    const Status status = ParseProcStat(text, times);
    EXPECT_EQ(status.code(), StatusCode::kCorruption) << text;
    EXPECT_NE(status.message().find("out of order"), std::string_view::npos) << status;
  }
  EXPECT_TRUE(ParseProcStat("cpu  1 2 3 4\ncpu0 1 2 3 4\ncpu3 1 2 3 4\n", times).ok());
}

TEST(ParseProcStatTest, OldKernelsPrintFewerColumns) {
  std::vector<CpuTimes> cpus;
  ASSERT_TRUE(ParseProcStat("cpu  10 20 30 40\ncpu0 10 20 30 40 5\n", cpus).ok());
  ASSERT_EQ(cpus.size(), 2u);
  EXPECT_EQ(cpus[0].idle_ticks, 40u);
  EXPECT_EQ(cpus[1].iowait_ticks, 5u);
  EXPECT_EQ(cpus[1].steal_ticks, 0u);
}

TEST(ParseProcStatTest, ReusesTheOutputVector) {
  std::vector<CpuTimes> cpus(8);
  ASSERT_TRUE(ParseProcStat("cpu 1 2 3 4\n", cpus).ok());
  EXPECT_EQ(cpus.size(), 1u);
}

TEST(ParseProcStatTest, RejectsMalformedInput) {
  std::vector<CpuTimes> cpus;
  EXPECT_EQ(ParseProcStat("", cpus).code(), StatusCode::kCorruption);
  EXPECT_EQ(ParseProcStat("intr 1 2\n", cpus).code(), StatusCode::kCorruption);
  EXPECT_EQ(ParseProcStat("cpu  1 2 3\n", cpus).code(), StatusCode::kCorruption);
  EXPECT_EQ(ParseProcStat("cpu  1 2 x 4\n", cpus).code(), StatusCode::kCorruption);
  EXPECT_EQ(ParseProcStat("cpu  1 2 3 4\ncpuX 1 2 3 4\n", cpus).code(), StatusCode::kCorruption);
  EXPECT_EQ(ParseProcStat("cpu0 1 2 3 4\n", cpus).code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace edgemond::collectors::internal
