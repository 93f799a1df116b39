// ThreadPool: the engine's own workers for splitting one kernel's work across cores.
//
// A session with N threads owns a pool of N - 1 workers; the thread that calls Session::Run is
// the N-th. ParallelFor splits [0, tasks) into a fixed set of contiguous chunks (the same split
// for the same arguments, so results never depend on timing), about 16 per thread, and gives
// each thread a contiguous range of them, which it runs front to back: neighbouring tasks share
// their inputs or weights (a convolution's tasks of one weight slice lie side by side), so each
// thread keeps to its own part of the data, as a static split would. A thread that has run its
// range takes chunks from the back of another's, one at a time (each range is one atomic word
// that its owner and thieves claim from with a compare-and-swap). Stealing, rather than a
// static split, is what keeps a busy machine from stalling a run: when another process holds a
// core and a worker is not scheduled, the threads that are running take its chunks. What a
// second thread can still cost is the chunk a worker had claimed when it lost its core: the
// caller waits for it until the worker runs again (docs/adr/0108; fork-join pools collapse far
// worse, as measured for ENGINE-KERNELS.md section 3.4).
//
// Workers spin for a short while after each parallel section (a network runs the next kernel
// within microseconds) and then block on a futex, so an idle pool costs no CPU.
// ParallelFor allocates nothing.
//
// Thread safety: ParallelFor may be called by one thread at a time (the session's); `fn` runs
// concurrently on several threads and must only write disjoint data per task.

#ifndef EDGEMOND_ENGINE_CPU_THREAD_POOL_H_
#define EDGEMOND_ENGINE_CPU_THREAD_POOL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/result.h"

namespace edgemond::engine {

// A non-owning reference to a callable void(int64_t begin, int64_t end); the callable must
// outlive the call it is passed to. No allocation, unlike std::function.
class RangeFn {
 public:
  template <typename F>
  RangeFn(const F& f)  // NOLINT(google-explicit-constructor)
      : object_(&f), call_([](const void* object, std::int64_t begin, std::int64_t end) {
          (*static_cast<const F*>(object))(begin, end);
        }) {}
  void operator()(std::int64_t begin, std::int64_t end) const { call_(object_, begin, end); }

 private:
  const void* object_;
  void (*call_)(const void*, std::int64_t, std::int64_t);
};

class ThreadPool {
 public:
  // A pool for `threads` threads in all (the caller included), so threads - 1 workers.
  // kInvalidArgument for threads < 1; kResourceExhausted when a thread cannot be started.
  static Result<std::unique_ptr<ThreadPool>> Create(int threads);

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  ~ThreadPool();

  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(begin, end) on disjoint chunks covering [0, tasks), on up to threads() threads,
  // and returns when all have finished. Chunks hold at least `min_chunk` tasks.
  void ParallelFor(std::int64_t tasks, std::int64_t min_chunk, RangeFn fn);

  // The calling thread's number: 1 to threads() - 1 in a pool's worker, 0 in any other thread
  // (ParallelFor's caller runs chunks as thread 0). Chunks that run at the same time have
  // different numbers, so a kernel may give each thread its own part of its scratch memory.
  static int CurrentThread();

  // Whether ParallelFor(tasks, min_chunk, ...) on this pool starts a thread's range at `task`:
  // the first task that thread runs, unless the others took over its whole range. Kernels
  // whose first task on a thread finds nothing in the cache run it another way.
  bool StartsThreadRange(std::int64_t tasks, std::int64_t min_chunk, std::int64_t task) const;

  // The tasks [begin, end) of the thread range that holds `task` (0 <= task < tasks) in
  // ParallelFor(tasks, min_chunk, ...) on this pool. A kernel that maps the tasks it is given
  // onto its work mirrored within this range runs its own range's work back to front.
  struct TaskRange {
    std::int64_t begin = 0;
    std::int64_t end = 0;
  };
  TaskRange ThreadRange(std::int64_t tasks, std::int64_t min_chunk, std::int64_t task) const;

 private:
  // ParallelFor's split of [0, tasks): `count` chunks of `size` tasks (the last may be short).
  struct Chunks {
    std::int64_t size = 1;
    std::int64_t count = 0;
  };
  Chunks ChunksFor(std::int64_t tasks, std::int64_t min_chunk) const;

  // One thread's chunks: section number (bits 40-63), the next chunk it runs from the front
  // (bits 20-39), and one past the last, where thieves take from (bits 0-19).
  struct alignas(64) Range {
    std::atomic<std::uint64_t> word{0};
  };

  explicit ThreadPool(int threads);
  void WorkerLoop(int self) noexcept;
  // Runs chunks of section `section`, its own range's first, then others'; returns when no
  // range of that section has a chunk left.
  void RunChunks(int self, std::uint64_t section) noexcept;
  bool Claim(int range, bool front, std::uint64_t section, std::int64_t& chunk) noexcept;

  std::vector<std::thread> workers_;

  // The current parallel section. The caller writes these, then publishes the section in the
  // ranges; a thread reads them only after it has claimed a chunk of that section (an acquire
  // CAS on a range), and the caller rewrites them only after every claimed chunk is done. A
  // worker that wakes late finds no chunk to claim and never reads them.
  const RangeFn* fn_ = nullptr;
  std::int64_t tasks_ = 0;
  std::int64_t chunk_ = 1;

  // One range per thread, the caller's first. The current section is the one in their words.
  std::unique_ptr<Range[]> ranges_;
  alignas(64) std::atomic<std::int64_t> done_chunks_{0};
  // Bumped to wake the workers (a futex word).
  alignas(64) std::atomic<std::uint32_t> wake_{0};
  std::atomic<bool> stop_{false};
};

// Runs fn over [0, tasks) on `pool`, or inline when pool is null or there is one chunk only.
inline void ParallelFor(ThreadPool* pool, std::int64_t tasks, std::int64_t min_chunk, RangeFn fn) {
  if (tasks <= 0) return;
  if (pool == nullptr || pool->threads() == 1 || tasks <= min_chunk) {
    fn(0, tasks);
    return;
  }
  pool->ParallelFor(tasks, min_chunk, fn);
}

// Whether ParallelFor(pool, tasks, min_chunk, ...) starts a thread's range at `task` (inline:
// task 0 only).
inline bool StartsThreadRange(const ThreadPool* pool, std::int64_t tasks, std::int64_t min_chunk,
                              std::int64_t task) {
  if (pool == nullptr || pool->threads() == 1 || tasks <= min_chunk) return task == 0;
  return pool->StartsThreadRange(tasks, min_chunk, task);
}

// The thread range of ParallelFor(pool, tasks, min_chunk, ...) that holds `task` (inline: all of
// [0, tasks)).
inline ThreadPool::TaskRange ThreadRange(const ThreadPool* pool, std::int64_t tasks,
                                         std::int64_t min_chunk, std::int64_t task) {
  if (pool == nullptr || pool->threads() == 1 || tasks <= min_chunk) return {0, tasks};
  return pool->ThreadRange(tasks, min_chunk, task);
}

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_CPU_THREAD_POOL_H_
