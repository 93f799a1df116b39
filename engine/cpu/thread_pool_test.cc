#include "engine/cpu/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
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

TEST(ThreadPoolTest, ARunningThreadTakesOverAStalledThreadsChunks) {
  Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::Create(2);
  ASSERT_TRUE(pool.ok());
  // 64 tasks in 32 chunks of 2, 16 per thread. The worker's first chunk stalls until every
  // other task has run (or 20 s have passed): the caller must run its own 16 chunks and then
  // the worker's other 15. Without taking them over, it would run 32 tasks and wait.
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> done{0};
  std::atomic<int> by_caller{0};
  std::atomic<bool> stalled{false};
  std::vector<std::atomic<int>> hits(64);
  ParallelFor(pool->get(), 64, 1, [&](std::int64_t begin, std::int64_t end) {
    if (std::this_thread::get_id() == caller) {
      by_caller += static_cast<int>(end - begin);
    } else if (!stalled.exchange(true)) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (done.load() < 62 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
    }
    for (std::int64_t i = begin; i < end; ++i) hits[static_cast<std::size_t>(i)]++;
    done += static_cast<int>(end - begin);
  });
  for (std::size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i].load(), 1) << "task " << i;
  // 64 where the worker never got a chunk (it was not scheduled in time).
  EXPECT_GE(by_caller.load(), 62);
}

TEST(ThreadPoolTest, RefusesZeroThreads) { EXPECT_FALSE(ThreadPool::Create(0).ok()); }

}  // namespace
}  // namespace edgemond::engine
