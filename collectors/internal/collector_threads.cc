#include "collectors/internal/collector_threads.h"

#include <pthread.h>

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "collectors/internal/tick_files.h"

namespace edgemond::collectors::internal {
namespace {

using SteadyClock = std::chrono::steady_clock;

// "0.5", "12.3", "4210": three significant digits, never an exponent.
std::string Seconds(std::chrono::nanoseconds duration) {
  const double seconds = std::chrono::duration<double>(duration).count();
  char text[32];
  std::snprintf(text, sizeof text, seconds < 1000 ? "%.3g" : "%.0f", seconds);
  return text;
}

}  // namespace

// What the loop and every worker share; guarded by `mu` unless said otherwise.
struct CollectorThreads::Crew {
  // One collector's collection.
  struct Slot {
    bool busy = false;                // A worker is in its CollectInto().
    SteadyClock::time_point started;  // When that collection began.
    std::uint64_t done_tick = 0;      // The tick of its last collection that returned.
    Status status;                    // What that collection returned.
    std::chrono::nanoseconds duration{0};
    // What the collection appended. Only the worker running the collector touches it while busy,
    // and only the loop between ticks.
    std::vector<Sample> samples;
  };

  // Declared before the collectors, which hold its files, so that it is destroyed after them.
  std::unique_ptr<TickFiles> files;
  std::vector<std::unique_ptr<Collector>> collectors;
  const Clock* clock = nullptr;

  std::mutex mu;
  std::condition_variable progress;  // A worker's whole queue returned.
  std::vector<Slot> slots;           // Parallel to collectors.
};

// One worker thread and its queue; guarded by the crew's mutex.
struct CollectorThreads::Worker {
  std::condition_variable work;  // The queue grew, or the worker must end.
  std::vector<std::size_t> queue;
  std::size_t next = 0;      // The queue's next collector to run.
  std::size_t returned = 0;  // How many of the queue's collections returned.
  WallTime now{};
  std::uint64_t tick = 0;
  bool abandoned = false;  // Left in a blocked collection: end once it returns.
  bool quit = false;
  std::thread thread;
};

namespace {

template <typename Crew, typename Worker>
void WorkerMain(const std::shared_ptr<Crew>& crew, const std::shared_ptr<Worker>& worker) {
  // Visible in top -H and /proc/PID/task/*/comm (15 characters at most).
  pthread_setname_np(pthread_self(), "edgemond-collec");
  std::unique_lock lock(crew->mu);
  for (;;) {
    worker->work.wait(lock, [&] {
      return worker->quit || worker->abandoned || worker->next < worker->queue.size();
    });
    if (worker->quit || worker->abandoned) return;
    const std::size_t i = worker->queue[worker->next++];
    auto& slot = crew->slots[i];
    slot.busy = true;
    slot.started = SteadyClock::now();
    const WallTime now = worker->now;
    const std::uint64_t tick = worker->tick;
    lock.unlock();

    slot.samples.clear();
    const SteadyTime start = crew->clock->Now();
    Status status = crew->collectors[i]->CollectInto(now, slot.samples);
    const std::chrono::nanoseconds duration = crew->clock->Now() - start;

    lock.lock();
    slot.busy = false;
    slot.done_tick = tick;
    slot.status = std::move(status);
    slot.duration = duration;
    // The loop wakes once a tick, when the whole queue is done, not at every collector.
    if (++worker->returned == worker->queue.size()) crew->progress.notify_all();
  }
}

}  // namespace

CollectorThreads::CollectorThreads(std::unique_ptr<TickFiles> files,
                                   std::vector<std::unique_ptr<Collector>> collectors,
                                   const Clock& clock, std::chrono::nanoseconds timeout)
    : crew_(std::make_shared<Crew>()), timeout_(timeout) {
  crew_->files = std::move(files);
  crew_->collectors = std::move(collectors);
  crew_->clock = &clock;
  crew_->slots.resize(crew_->collectors.size());
  results_.resize(crew_->collectors.size());
}

CollectorThreads::~CollectorThreads() {
  if (!worker_) return;
  {
    std::lock_guard lock(crew_->mu);
    worker_->quit = true;
  }
  worker_->work.notify_one();
  // Between ticks the current worker waits for work: it ends at once.
  worker_->thread.join();
}

std::size_t CollectorThreads::size() const { return crew_->collectors.size(); }

const Collector& CollectorThreads::collector(std::size_t i) const { return *crew_->collectors[i]; }

std::vector<Sample>& CollectorThreads::samples(std::size_t i) { return crew_->slots[i].samples; }

std::shared_ptr<CollectorThreads::Worker> CollectorThreads::StartWorker(
    std::vector<std::size_t> queue, WallTime now) {
  auto worker = std::make_shared<Worker>();
  worker->queue = std::move(queue);
  worker->now = now;
  worker->tick = tick_;
  // The thread holds the crew and its worker, which outlive this object if it blocks.
  worker->thread = std::thread(WorkerMain<Crew, Worker>, crew_, worker);
  return worker;
}

const std::vector<CollectionResult>& CollectorThreads::RunTick(WallTime now) {
  ++tick_;
  if (crew_->files) crew_->files->StartTick();
  std::unique_lock lock(crew_->mu);

  std::vector<std::size_t> queue;
  queue.reserve(crew_->slots.size());
  for (std::size_t i = 0; i < crew_->slots.size(); ++i) {
    const Crew::Slot& slot = crew_->slots[i];
    if (!slot.busy) {
      queue.push_back(i);
      continue;
    }
    const std::chrono::nanoseconds blocked = SteadyClock::now() - slot.started;
    results_[i] = {CollectionOutcome::kBlocked,
                   Status::DeadlineExceeded("still blocked in its collection after " +
                                            Seconds(blocked) + " s; skipped until it returns"),
                   blocked};
  }
  if (queue.empty()) return results_;

  if (worker_) {
    worker_->queue = queue;
    worker_->next = 0;
    worker_->returned = 0;
    worker_->now = now;
    worker_->tick = tick_;
    worker_->work.notify_one();
  } else {
    worker_ = StartWorker(queue, now);
  }

  for (;;) {
    Worker& worker = *worker_;
    if (worker.returned == worker.queue.size()) break;
    // The worker is in this collection, or about to begin it.
    const std::size_t i = worker.queue[worker.returned];
    const Crew::Slot& slot = crew_->slots[i];
    const SteadyClock::time_point now_steady = SteadyClock::now();
    if (!slot.busy || now_steady < slot.started + timeout_) {
      crew_->progress.wait_until(lock, (slot.busy ? slot.started : now_steady) + timeout_);
      continue;
    }
    results_[i] = {
        CollectionOutcome::kTimedOut,
        Status::DeadlineExceeded("timed out: still collecting after " + Seconds(timeout_) +
                                 " s (a read that hangs?); skipped until it returns"),
        now_steady - slot.started};
    // The worker stays in that collection; the rest of the tick goes to a new one.
    worker.abandoned = true;
    worker.thread.detach();
    worker_ =
        StartWorker(std::vector<std::size_t>(
                        worker.queue.begin() + static_cast<std::ptrdiff_t>(worker.returned + 1),
                        worker.queue.end()),
                    now);
  }
  for (const std::size_t i : queue) {
    const Crew::Slot& slot = crew_->slots[i];
    if (slot.done_tick == tick_)
      results_[i] = {CollectionOutcome::kRan, slot.status, slot.duration};
  }
  return results_;
}

}  // namespace edgemond::collectors::internal
