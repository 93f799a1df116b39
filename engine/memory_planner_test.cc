#include "engine/memory_planner.h"

#include <gtest/gtest.h>

#include <random>

namespace edgemond::engine {
namespace {

// Checks the invariant: buffers alive at the same step never share bytes.
void ExpectNoOverlap(const std::vector<BufferRequest>& requests, const MemoryPlan& plan) {
  for (std::size_t i = 0; i < requests.size(); ++i) {
    EXPECT_EQ(plan.offsets[i] % 64, 0);
    EXPECT_LE(plan.offsets[i] + requests[i].bytes, plan.arena_bytes);
    for (std::size_t j = i + 1; j < requests.size(); ++j) {
      const bool live_together = requests[i].first_step <= requests[j].last_step &&
                                 requests[j].first_step <= requests[i].last_step;
      const bool share = plan.offsets[i] < plan.offsets[j] + requests[j].bytes &&
                         plan.offsets[j] < plan.offsets[i] + requests[i].bytes;
      if (requests[i].bytes > 0 && requests[j].bytes > 0) {
        EXPECT_FALSE(live_together && share) << "buffers " << i << " and " << j;
      }
    }
  }
}

TEST(MemoryPlannerTest, ReusesMemoryAlongAChain) {
  // A chain a -> b -> c -> d: each buffer dies when the next one is made.
  const std::vector<BufferRequest> requests = {
      {1000, 0, 1}, {1000, 1, 2}, {1000, 2, 3}, {1000, 3, 4}};
  const MemoryPlan plan = PlanMemory(requests, 64);
  ExpectNoOverlap(requests, plan);
  EXPECT_EQ(plan.arena_bytes, 2 * 1024);  // Two live at a time, each rounded to 1024.
}

TEST(MemoryPlannerTest, KeepsLongLivedBuffersApart) {
  const std::vector<BufferRequest> requests = {{512, 0, 10}, {256, 2, 3}, {256, 4, 5}};
  const MemoryPlan plan = PlanMemory(requests, 64);
  ExpectNoOverlap(requests, plan);
  EXPECT_EQ(plan.arena_bytes, 768);
}

TEST(MemoryPlannerTest, RandomPlansNeverOverlap) {
  std::mt19937 random(42);  // Integer engine only: reproducible everywhere.
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<BufferRequest> requests;
    std::int64_t total = 0;
    for (int i = 0; i < 40; ++i) {
      const int first = static_cast<int>(random() % 30);
      const int last = first + static_cast<int>(random() % 6);
      const std::int64_t bytes = static_cast<std::int64_t>(random() % 5000);
      requests.push_back({bytes, first, last});
      total += (bytes + 63) / 64 * 64;
    }
    const MemoryPlan plan = PlanMemory(requests, 64);
    ExpectNoOverlap(requests, plan);
    EXPECT_LE(plan.arena_bytes, total);
  }
}

TEST(MemoryPlannerTest, EmptyPlan) {
  const MemoryPlan plan = PlanMemory({}, 64);
  EXPECT_EQ(plan.arena_bytes, 0);
}

}  // namespace
}  // namespace edgemond::engine
