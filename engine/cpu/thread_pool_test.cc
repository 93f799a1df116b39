#include "engine/cpu/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <utility>
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

TEST(ThreadPoolTest, NumbersEachThreadThatRunsChunks) {
  Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::Create(3);
  ASSERT_TRUE(pool.ok());
  EXPECT_EQ(ThreadPool::CurrentThread(), 0);
  // Each thread's number, by the thread that ran a chunk; the caller is 0, each worker one
  // of 1 and 2, and no two threads share one.
  std::mutex mutex;
  std::vector<std::pair<std::thread::id, int>> seen;
  std::atomic<int> arrived{0};
  for (int repeat = 0; repeat < 20; ++repeat) {
    ParallelFor(pool->get(), 48, 1, [&](std::int64_t, std::int64_t) {
      const int number = ThreadPool::CurrentThread();
      {
        const std::lock_guard<std::mutex> lock(mutex);
        seen.emplace_back(std::this_thread::get_id(), number);
      }
      // The first chunks wait for each other, so that all three threads run one.
      if (repeat == 0 && arrived.fetch_add(1) < 3) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (arrived.load() < 3 && std::chrono::steady_clock::now() < deadline) {
          std::this_thread::yield();
        }
      }
    });
  }
  std::vector<std::thread::id> by_number(3);
  for (const auto& [id, number] : seen) {
    ASSERT_GE(number, 0);
    ASSERT_LT(number, 3);
    if (number == 0) {
      EXPECT_EQ(id, std::this_thread::get_id());
    }
    if (by_number[static_cast<std::size_t>(number)] == std::thread::id()) {
      by_number[static_cast<std::size_t>(number)] = id;
    }
    EXPECT_EQ(by_number[static_cast<std::size_t>(number)], id) << "number " << number;
  }
  EXPECT_NE(by_number[1], std::thread::id());
  EXPECT_NE(by_number[2], std::thread::id());
  EXPECT_NE(by_number[1], by_number[2]);
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

TEST(ThreadPoolTest, TellsWhichThreadRangeHoldsATask) {
  using Range = std::pair<std::int64_t, std::int64_t>;
  const auto range_of = [](const ThreadPool* pool, std::int64_t tasks, std::int64_t min_chunk,
                           std::int64_t task) {
    const ThreadPool::TaskRange r = ThreadRange(pool, tasks, min_chunk, task);
    return Range{r.begin, r.end};
  };
  // 100 tasks on 3 threads: 34 chunks of 3 (the last of 1); ranges of chunks [0, 11), [11, 22)
  // and [22, 34), so of tasks [0, 33), [33, 66) and [66, 100).
  Result<std::unique_ptr<ThreadPool>> three = ThreadPool::Create(3);
  ASSERT_TRUE(three.ok());
  for (std::int64_t task = 0; task < 100; ++task) {
    const Range expected = task < 33 ? Range{0, 33} : task < 66 ? Range{33, 66} : Range{66, 100};
    EXPECT_EQ(range_of(three->get(), 100, 1, task), expected) << "task " << task;
  }
  // Fewer chunks than threads (two of 50 on four): the non-empty ranges are the chunks.
  Result<std::unique_ptr<ThreadPool>> four = ThreadPool::Create(4);
  ASSERT_TRUE(four.ok());
  EXPECT_EQ(range_of(four->get(), 100, 50, 0), (Range{0, 50}));
  EXPECT_EQ(range_of(four->get(), 100, 50, 49), (Range{0, 50}));
  EXPECT_EQ(range_of(four->get(), 100, 50, 50), (Range{50, 100}));
  EXPECT_EQ(range_of(four->get(), 100, 50, 99), (Range{50, 100}));
  // Inline (no pool, or one chunk): all tasks.
  EXPECT_EQ(range_of(nullptr, 10, 1, 7), (Range{0, 10}));
  EXPECT_EQ(range_of(four->get(), 10, 10, 3), (Range{0, 10}));

  // The ranges are the ones ParallelFor hands out: every chunk lies inside the range of its
  // first task, and each range starts where StartsThreadRange says.
  for (const std::int64_t tasks : {7, 64, 100, 1000}) {
    std::vector<std::atomic<int>> inside(static_cast<std::size_t>(tasks));
    ParallelFor(three->get(), tasks, 1, [&](std::int64_t begin, std::int64_t end) {
      const ThreadPool::TaskRange r = ThreadRange(three->get(), tasks, 1, begin);
      for (std::int64_t task = begin; task < end; ++task) {
        inside[static_cast<std::size_t>(task)] += r.begin <= task && task < r.end ? 1 : 100;
      }
    });
    for (std::int64_t task = 0; task < tasks; ++task) {
      ASSERT_EQ(inside[static_cast<std::size_t>(task)].load(), 1) << tasks << " tasks, " << task;
      EXPECT_EQ(StartsThreadRange(three->get(), tasks, 1, task),
                ThreadRange(three->get(), tasks, 1, task).begin == task)
          << tasks << " tasks, " << task;
    }
  }
}

TEST(ThreadPoolTest, TellsWhereEachThreadsRangeStarts) {
  // 64 tasks on 2 threads: 32 chunks of 2, thread 1's from chunk 16.
  Result<std::unique_ptr<ThreadPool>> two = ThreadPool::Create(2);
  ASSERT_TRUE(two.ok());
  std::vector<std::int64_t> starts;
  for (std::int64_t task = 0; task < 64; ++task) {
    if (StartsThreadRange(two->get(), 64, 1, task)) starts.push_back(task);
  }
  EXPECT_EQ(starts, (std::vector<std::int64_t>{0, 32}));
  // 100 tasks on 3 threads: 34 chunks of 3 (the last of 1), from chunks 0, 11 and 22.
  Result<std::unique_ptr<ThreadPool>> three = ThreadPool::Create(3);
  ASSERT_TRUE(three.ok());
  starts.clear();
  for (std::int64_t task = -1; task <= 100; ++task) {
    if (StartsThreadRange(three->get(), 100, 1, task)) starts.push_back(task);
  }
  EXPECT_EQ(starts, (std::vector<std::int64_t>{0, 33, 66}));
  // Fewer chunks than threads (two of 50 on four): two threads share each start.
  Result<std::unique_ptr<ThreadPool>> four = ThreadPool::Create(4);
  ASSERT_TRUE(four.ok());
  starts.clear();
  for (std::int64_t task = 0; task < 100; ++task) {
    if (StartsThreadRange(four->get(), 100, 50, task)) starts.push_back(task);
  }
  EXPECT_EQ(starts, (std::vector<std::int64_t>{0, 50}));
  // Inline (no pool, one thread, or one chunk): task 0 only.
  for (const std::int64_t task : {0, 1, 5}) {
    EXPECT_EQ(StartsThreadRange(nullptr, 10, 1, task), task == 0);
    EXPECT_EQ(StartsThreadRange(four->get(), 10, 10, task), task == 0);
  }
  Result<std::unique_ptr<ThreadPool>> one = ThreadPool::Create(1);
  ASSERT_TRUE(one.ok());
  EXPECT_TRUE(StartsThreadRange(one->get(), 10, 1, 0));
  EXPECT_FALSE(StartsThreadRange(one->get(), 10, 1, 4));

  // The starts are where ParallelFor's chunks begin: each runs exactly once, as a chunk's first
  // task.
  for (const int threads : {2, 3, 8}) {
    Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::Create(threads);
    ASSERT_TRUE(pool.ok());
    for (const std::int64_t tasks : {2, 7, 64, 1000}) {
      std::int64_t expected = 0;
      for (std::int64_t task = 0; task < tasks; ++task) {
        expected += StartsThreadRange(pool->get(), tasks, 1, task) ? 1 : 0;
      }
      EXPECT_GE(expected, 2);
      EXPECT_LE(expected, threads);
      std::atomic<std::int64_t> seen{0};
      ParallelFor(pool->get(), tasks, 1, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
          if (StartsThreadRange(pool->get(), tasks, 1, i)) seen += i == begin ? 1 : 1000;
        }
      });
      EXPECT_EQ(seen.load(), expected) << threads << " threads, " << tasks << " tasks";
    }
  }
}

TEST(ThreadPoolTest, RefusesZeroThreads) { EXPECT_FALSE(ThreadPool::Create(0).ok()); }

}  // namespace
}  // namespace edgemond::engine
