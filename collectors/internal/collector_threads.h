// CollectorThreads: runs a tick's collectors, in order, on a thread of their own, and gives up on
// one whose collection blocks.
//
// A sensor read can block in the kernel: an I2C device that holds the bus, a hung FUSE file, a
// driver's show() that waits for a conversion that never ends. Such a read cannot be cancelled, so
// the collectors run on a worker thread and the caller waits for each at most `timeout` (on the
// steady clock, whatever clock the runner is given). A collector that takes longer is reported as
// timed out, and the rest of the tick runs on a new worker; the blocked one stays blocked in its
// collection, which is never interrupted. Until that collection returns, every tick reports the
// collector as still blocked and does not run it. When it returns, its samples are dropped (they
// belong to a tick long gone), its thread ends, and the next tick runs the collector again.
//
// A tick costs one hand-over to the worker and one back, not one per collector: a collector that
// returns in time lets the worker go straight on to the next.
//
// Ownership: everything a collection touches (the collectors and their shared files) is owned by
// a state that each thread holds too, so a thread left blocked in a read keeps it alive after this
// object is gone, and frees it when its read returns. What the collectors borrow (the RootedFs, the
// Clock) must outlive every collection: in the daemon they live as long as the process.
//
// Thread safety: RunTick() and the accessors are called from one thread (the daemon's loop). The
// collectors run on the worker threads, one collection at a time per collector; the files they
// share (TickFiles) are thread-safe.

#ifndef EDGEMOND_COLLECTORS_INTERNAL_COLLECTOR_THREADS_H_
#define EDGEMOND_COLLECTORS_INTERNAL_COLLECTOR_THREADS_H_

#include <chrono>
#include <cstddef>
#include <memory>
#include <vector>

#include "collectors/collector.h"
#include "core/clock.h"
#include "core/sample.h"
#include "core/status.h"

namespace edgemond::collectors::internal {

class TickFiles;

// What became of one collector in a tick.
enum class CollectionOutcome {
  kRan,       // Its collection returned within the timeout.
  kTimedOut,  // Its collection started this tick and had not returned at the timeout.
  kBlocked,   // Its collection from an earlier tick has still not returned: it did not run.
};

struct CollectionResult {
  CollectionOutcome outcome = CollectionOutcome::kRan;
  // kRan: what CollectInto() returned. Otherwise kDeadlineExceeded, saying for how long.
  Status status;
  // kRan: how long CollectInto() took, on the runner's clock. Otherwise: for how long the
  // collection has been running, on the steady clock.
  std::chrono::nanoseconds duration{0};
};

class CollectorThreads {
 public:
  // `files` (may be null) are the files the collectors share; `clock` is borrowed and must
  // outlive every collection. `timeout` > 0.
  CollectorThreads(std::unique_ptr<TickFiles> files,
                   std::vector<std::unique_ptr<Collector>> collectors, const Clock& clock,
                   std::chrono::nanoseconds timeout);
  // Ends the worker; a thread still blocked in a collection is left to end on its own.
  ~CollectorThreads();

  CollectorThreads(const CollectorThreads&) = delete;
  CollectorThreads& operator=(const CollectorThreads&) = delete;

  std::size_t size() const;
  const Collector& collector(std::size_t i) const;

  // Runs every collector that is not still blocked, in order, stamping their samples with `now`,
  // and returns one result per collector. The samples of collector i, when it ran, are in
  // samples(i) until the next RunTick(); on an error, whatever it appended is there too.
  const std::vector<CollectionResult>& RunTick(WallTime now);
  std::vector<Sample>& samples(std::size_t i);

 private:
  struct Crew;
  struct Worker;

  // Starts a worker on `queue` (collector indices, in order). Called with the crew's mutex held.
  std::shared_ptr<Worker> StartWorker(std::vector<std::size_t> queue, WallTime now);

  std::shared_ptr<Crew> crew_;
  std::shared_ptr<Worker> worker_;  // The worker that runs the next tick; null before the first.
  std::chrono::nanoseconds timeout_;
  std::uint64_t tick_ = 0;
  std::vector<CollectionResult> results_;  // Parallel to the collectors.
};

}  // namespace edgemond::collectors::internal

#endif  // EDGEMOND_COLLECTORS_INTERNAL_COLLECTOR_THREADS_H_
