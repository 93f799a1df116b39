#include "selfbench/schedule.h"

#include <gtest/gtest.h>

namespace edgemond::selfbench {
namespace {

using namespace std::chrono_literals;

constexpr MetricDesc kUtil{"edgemond_cpu_utilization_ratio", "", MetricType::kGauge, "ratio"};
constexpr MetricDesc kGpu{"edgemond_gpu_utilization_ratio", "", MetricType::kGauge, "ratio"};

ModelSpec Model(std::string name, std::uint32_t interval, bool idle_only = true) {
  ModelSpec spec;
  spec.name = std::move(name);
  spec.path = "/m/" + spec.name + ".onnx";
  spec.interval_seconds = interval;
  spec.only_when_idle = idle_only;
  return spec;
}

std::vector<Sample> Load(double cpu, std::optional<double> gpu = std::nullopt) {
  std::vector<Sample> samples = {Sample{&kUtil, {{"cpu", "all"}}, cpu, "", {}},
                                 Sample{&kUtil, {{"cpu", "0"}}, 1.0, "", {}}};
  if (gpu) samples.push_back(Sample{&kGpu, {{"gpu", "0"}, {"name", "x"}}, *gpu, "", {}});
  return samples;
}

class ScheduleTest : public ::testing::Test {
 protected:
  ScheduleTest() : schedule_(Settings(), kStart) {}
  static ScheduleSettings Settings() {
    ScheduleSettings settings;
    settings.startup_delay = 120s;
    settings.idle_window = 30s;
    settings.idle_cpu_max_ratio = 0.2;
    settings.idle_gpu_max_ratio = 0.3;
    return settings;
  }
  const SteadyTime kStart = SteadyTime(1000s);
  const WallTime kWallStart = WallTime(1767225600s);
  Schedule schedule_;
};

TEST_F(ScheduleTest, AModelThatNeverRanIsDueAfterTheStartupDelay) {
  schedule_.SetModels({Model("a", 3600), Model("manual", 0)}, {}, kStart, kWallStart);
  EXPECT_FALSE(schedule_.NextDue(kStart + 119s));
  const auto due = schedule_.NextDue(kStart + 120s);
  ASSERT_TRUE(due);
  EXPECT_EQ(due->model, "a");
  EXPECT_FALSE(due->waiting_for_idle);  // No load seen: nothing says it is busy.
  EXPECT_FALSE(schedule_.DueAt("manual"));
  schedule_.Started("a", kStart + 125s);
  EXPECT_EQ(schedule_.DueAt("a"), kStart + 125s + 3600s);
  EXPECT_FALSE(schedule_.NextDue(kStart + 3000s));
}

TEST_F(ScheduleTest, TheLastStoredRunCountsAcrossARestart) {
  // Ran 50 minutes before this start: due 10 minutes after it (the startup delay is shorter).
  // Ran 2 hours ago: overdue, so due once the startup delay is over.
  schedule_.SetModels({Model("recent", 3600), Model("old", 3600)},
                      {{"recent", kWallStart - 50min}, {"old", kWallStart - 2h}}, kStart,
                      kWallStart);
  EXPECT_EQ(schedule_.DueAt("recent"), kStart + 10min);
  EXPECT_EQ(schedule_.DueAt("old"), kStart + 120s);
  EXPECT_EQ(schedule_.NextDue(kStart + 11min)->model, "old");  // Due longest goes first.
}

TEST_F(ScheduleTest, IdleOnlyModelsWaitForAQuietDevice) {
  schedule_.SetModels({Model("a", 600), Model("b", 600, /*idle_only=*/false)}, {}, kStart,
                      kWallStart);
  for (int s = 0; s <= 130; ++s) schedule_.Observe(kStart + std::chrono::seconds(s), Load(0.9));
  EXPECT_FALSE(schedule_.Idle(kStart + 130s));
  const auto due = schedule_.NextDue(kStart + 130s);
  ASSERT_TRUE(due);
  EXPECT_EQ(due->model, "a");
  EXPECT_TRUE(due->waiting_for_idle);
  // "b" does not wait; once "a" has waited, quiet 30 s let it run.
  schedule_.Started("b", kStart + 130s);
  for (int s = 131; s <= 160; ++s) schedule_.Observe(kStart + std::chrono::seconds(s), Load(0.05));
  EXPECT_TRUE(schedule_.Idle(kStart + 160s));
  EXPECT_FALSE(schedule_.NextDue(kStart + 160s)->waiting_for_idle);
}

TEST_F(ScheduleTest, ABusyGpuIsNotIdle) {
  for (int s = 0; s < 40; ++s) schedule_.Observe(kStart + std::chrono::seconds(s), Load(0.0, 0.9));
  EXPECT_FALSE(schedule_.Idle(kStart + 39s));
  for (int s = 40; s < 80; ++s) schedule_.Observe(kStart + std::chrono::seconds(s), Load(0.0, 0.1));
  EXPECT_TRUE(schedule_.Idle(kStart + 79s));
}

TEST_F(ScheduleTest, AReloadKeepsTheScheduleOfAnUnchangedInterval) {
  schedule_.SetModels({Model("a", 600), Model("b", 600)}, {}, kStart, kWallStart);
  schedule_.Started("a", kStart + 200s);
  schedule_.SetModels({Model("a", 600), Model("b", 900), Model("c", 600)}, {}, kStart + 300s,
                      kWallStart + 300s);
  EXPECT_EQ(schedule_.DueAt("a"), kStart + 800s);
  EXPECT_EQ(schedule_.DueAt("b"), kStart + 300s);  // Changed: due now (past the startup delay).
  EXPECT_EQ(schedule_.DueAt("c"), kStart + 300s);
  ModelSpec off = Model("a", 600);
  off.enabled = false;
  schedule_.SetModels({off}, {}, kStart + 400s, kWallStart + 400s);
  EXPECT_FALSE(schedule_.DueAt("a"));
  EXPECT_FALSE(schedule_.NextDue(kStart + 10000s));
}

}  // namespace
}  // namespace edgemond::selfbench
