#include "engine/cpu/thread_pool.h"

#include <system_error>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace edgemond::engine {
namespace {

// Iterations a worker polls for new work before it blocks. Each iteration is a pause
// instruction (tens of nanoseconds), so this is tens of microseconds: longer than the gap
// between two kernels of a network, far shorter than a scheduler tick.
constexpr int kSpinIterations = 4000;

constexpr int kFrontShift = 20;
constexpr int kSectionShift = 40;
constexpr std::uint64_t kChunkMask = (std::uint64_t{1} << kFrontShift) - 1;
// Section numbers wrap around within their 24 bits of a range word.
constexpr std::uint64_t kSectionMask = (std::uint64_t{1} << (64 - kSectionShift)) - 1;

// ThreadPool::CurrentThread(): set once by each worker.
thread_local int current_thread = 0;

inline void CpuRelax() {
#if defined(__x86_64__)
  _mm_pause();
#elif defined(__aarch64__)
  __asm__ volatile("yield");
#endif
}

}  // namespace

ThreadPool::ThreadPool(int threads) : ranges_(new Range[static_cast<std::size_t>(threads)]) {}

Result<std::unique_ptr<ThreadPool>> ThreadPool::Create(int threads) {
  if (threads < 1) {
    return Status::InvalidArgument("a thread pool needs at least 1 thread, not " +
                                   std::to_string(threads));
  }
  std::unique_ptr<ThreadPool> pool(new ThreadPool(threads));
  pool->workers_.reserve(static_cast<std::size_t>(threads - 1));
  for (int i = 1; i < threads; ++i) {
    // std::thread reports failure with an exception; it is the only one that can reach us.
    try {
      pool->workers_.emplace_back([p = pool.get(), i] { p->WorkerLoop(i); });
    } catch (const std::system_error& e) {
      return Status::ResourceExhausted(std::string("cannot start a worker thread: ") + e.what());
    }
  }
  return pool;
}

ThreadPool::~ThreadPool() {
  stop_.store(true, std::memory_order_relaxed);
  wake_.fetch_add(1, std::memory_order_release);
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

bool ThreadPool::Claim(int range, bool front, std::uint64_t section, std::int64_t& chunk) noexcept {
  std::atomic<std::uint64_t>& word = ranges_[static_cast<std::size_t>(range)].word;
  std::uint64_t value = word.load(std::memory_order_acquire);
  while (true) {
    const std::uint64_t first = (value >> kFrontShift) & kChunkMask;
    const std::uint64_t end = value & kChunkMask;
    if ((value >> kSectionShift) != section || first >= end) return false;
    const std::uint64_t claimed = front ? value + (std::uint64_t{1} << kFrontShift) : value - 1;
    if (word.compare_exchange_weak(value, claimed, std::memory_order_acquire,
                                   std::memory_order_acquire)) {
      chunk = static_cast<std::int64_t>(front ? first : end - 1);
      return true;
    }
    // `value` now holds the current word.
  }
}

void ThreadPool::RunChunks(int self, std::uint64_t section) noexcept {
  const int threads = this->threads();
  std::int64_t chunk = 0;
  // Its own range first, front to back; then the others' from their backs, the next thread's
  // first, until none has a chunk left.
  for (int i = 0; i < threads; ++i) {
    const int range = (self + i) % threads;
    while (Claim(range, i == 0, section, chunk)) {
      const std::int64_t begin = chunk * chunk_;
      const std::int64_t end = begin + chunk_ < tasks_ ? begin + chunk_ : tasks_;
      (*fn_)(begin, end);
      done_chunks_.fetch_add(1, std::memory_order_release);
    }
  }
}

int ThreadPool::CurrentThread() { return current_thread; }

void ThreadPool::WorkerLoop(int self) noexcept {
  current_thread = self;
  std::uint32_t seen = 0;
  while (true) {
    std::uint32_t current = wake_.load(std::memory_order_acquire);
    for (int i = 0; current == seen && i < kSpinIterations; ++i) {
      CpuRelax();
      current = wake_.load(std::memory_order_acquire);
    }
    while (current == seen) {
      wake_.wait(seen, std::memory_order_acquire);
      current = wake_.load(std::memory_order_acquire);
    }
    seen = current;
    if (stop_.load(std::memory_order_relaxed)) return;
    // The caller wrote every range before the wake-up: this thread's word holds the section.
    RunChunks(self, ranges_[static_cast<std::size_t>(self)].word.load(std::memory_order_acquire) >>
                        kSectionShift);
  }
}

ThreadPool::Chunks ThreadPool::ChunksFor(std::int64_t tasks, std::int64_t min_chunk) const {
  // Many chunks per thread: the running threads take over a descheduled one's share, and a
  // thread descheduled in the middle of a chunk holds back only that small chunk (on a shared
  // machine that wait is what a second thread costs); claiming one is an atomic operation,
  // nothing next to a chunk's work.
  const std::int64_t target_chunks = 16 * static_cast<std::int64_t>(threads());
  Chunks chunks;
  chunks.size = (tasks + target_chunks - 1) / target_chunks;
  if (chunks.size < min_chunk) chunks.size = min_chunk < 1 ? 1 : min_chunk;
  chunks.count = (tasks + chunks.size - 1) / chunks.size;
  return chunks;
}

bool ThreadPool::StartsThreadRange(std::int64_t tasks, std::int64_t min_chunk,
                                   std::int64_t task) const {
  return task >= 0 && task < tasks && ThreadRange(tasks, min_chunk, task).begin == task;
}

ThreadPool::TaskRange ThreadPool::ThreadRange(std::int64_t tasks, std::int64_t min_chunk,
                                              std::int64_t task) const {
  const Chunks chunks = ChunksFor(tasks, min_chunk);
  const std::int64_t chunk = task / chunks.size;
  const std::int64_t threads = this->threads();
  // Thread t's range: chunks [t * count / threads, (t + 1) * count / threads) (ParallelFor).
  std::int64_t t = chunk * threads / chunks.count;
  while (t > 0 && t * chunks.count / threads > chunk) --t;
  while ((t + 1) * chunks.count / threads <= chunk) ++t;
  const std::int64_t end = (t + 1) * chunks.count / threads * chunks.size;
  return {t * chunks.count / threads * chunks.size, end < tasks ? end : tasks};
}

void ThreadPool::ParallelFor(std::int64_t tasks, std::int64_t min_chunk, RangeFn fn) {
  const std::int64_t threads = this->threads();
  const Chunks split = ChunksFor(tasks, min_chunk);
  const std::int64_t chunk = split.size;
  const std::int64_t chunks = split.count;
  fn_ = &fn;
  tasks_ = tasks;
  chunk_ = chunk;
  done_chunks_.store(0, std::memory_order_relaxed);
  const std::uint64_t section =
      ((ranges_[0].word.load(std::memory_order_relaxed) >> kSectionShift) + 1) & kSectionMask;
  // Thread t's range: chunks [t * chunks / threads, (t + 1) * chunks / threads).
  for (std::int64_t t = 0; t < threads; ++t) {
    const auto first = static_cast<std::uint64_t>(t * chunks / threads);
    const auto end = static_cast<std::uint64_t>((t + 1) * chunks / threads);
    ranges_[static_cast<std::size_t>(t)].word.store(
        (section << kSectionShift) | (first << kFrontShift) | end, std::memory_order_release);
  }
  wake_.fetch_add(1, std::memory_order_release);
  wake_.notify_all();
  RunChunks(0, section);
  // Wait for chunks that workers claimed and are still running.
  for (int i = 0; done_chunks_.load(std::memory_order_acquire) < chunks; ++i) {
    if (i < kSpinIterations) {
      CpuRelax();
    } else {
      std::this_thread::yield();
    }
  }
}

}  // namespace edgemond::engine
