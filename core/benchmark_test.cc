#include "core/benchmark.h"

#include <gtest/gtest.h>

namespace edgemond {
namespace {

TEST(BenchmarkTest, StatusNamesRoundTrip) {
  for (const BenchmarkStatus status :
       {BenchmarkStatus::kRunning, BenchmarkStatus::kSucceeded, BenchmarkStatus::kFailed}) {
    auto parsed = ParseBenchmarkStatus(BenchmarkStatusName(status));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, status);
  }
  EXPECT_TRUE(ParseBenchmarkStatus("done").status().IsInvalidArgument());
}

TEST(BenchmarkTest, ARunStartsWithNothingMeasured) {
  const BenchmarkRun run;
  EXPECT_EQ(run.status, BenchmarkStatus::kRunning);
  EXPECT_FALSE(run.latency_p50_ms.has_value());
  EXPECT_FALSE(run.energy_per_inference_joules.has_value());
  EXPECT_FALSE(run.outputs_match.has_value());
  EXPECT_EQ(run.baseline_runs, 0);
}

}  // namespace
}  // namespace edgemond
