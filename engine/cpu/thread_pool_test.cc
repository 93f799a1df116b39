#include "engine/cpu/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

namespace edgemond::engine {
namespace {

TEST(ThreadPoolTest, CoversEveryTaskExactlyOnce) {
  for (const int threads : {1, 2, 3, 8}) {
    Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::Create(threads);
    ASSERT_TRUE(pool.ok());
    EXPECT_EQ((*pool)->threads(), threads);
    for (const std::int64_t tasks : {1, 2, 7, 64, 1000}) {
      for (int repeat = 0; repeat < 20; ++repeat) {
        std::vector<std::atomic<int>> hits(static_cast<std::size_t>(tasks));
        ParallelFor(pool->get(), tasks, 1, [&](std::int64_t begin, std::int64_t end) {
          for (std::int64_t i = begin; i < end; ++i) hits[static_cast<std::size_t>(i)]++;
        });
        for (std::int64_t i = 0; i < tasks; ++i) {
          ASSERT_EQ(hits[static_cast<std::size_t>(i)].load(), 1)
              << threads << " threads, " << tasks << " tasks, task " << i;
        }
      }
    }
  }
}

TEST(ThreadPoolTest, RespectsMinimumChunk) {
  Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::Create(4);
  ASSERT_TRUE(pool.ok());
  std::atomic<int> calls{0};
  ParallelFor(pool->get(), 100, 50, [&](std::int64_t begin, std::int64_t end) {
    EXPECT_TRUE(end - begin == 50);
    calls++;
  });
  EXPECT_EQ(calls.load(), 2);
}

TEST(ThreadPoolTest, UsesWorkerThreads) {
  Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::Create(2);
  ASSERT_TRUE(pool.ok());
  // With a task that waits for a second thread, completion proves a worker ran one.
  std::atomic<int> arrived{0};
  ParallelFor(pool->get(), 2, 1, [&](std::int64_t, std::int64_t) {
    arrived++;
    for (int i = 0; i < 100000000 && arrived.load() < 2; ++i) {
    }
  });
  EXPECT_EQ(arrived.load(), 2);
}

TEST(ThreadPoolTest, RefusesZeroThreads) { EXPECT_FALSE(ThreadPool::Create(0).ok()); }

}  // namespace
}  // namespace edgemond::engine
