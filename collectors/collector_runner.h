// CollectorRunner: runs every collector once per tick, times each one, and reports how they fare.
//
// What a collector's run comes to (CollectorHealth), after node_exporter: a collector that finds
// no hardware of its kind (CollectInto() returns kNotFound: no thermal zones in a VM) ran fine
// and is not failing; any other error is a failure.
//
// What a tick produces (RunOnce):
//  - every sample of every collector that succeeded, in collector order;
//  - three self-metrics per collector, whatever happened:
//      edgemond_collector_success{collector}            1 unless the collector failed
//      edgemond_collector_hardware_present{collector}   1 if it read hardware, 0 if it found none;
//                                                       missing, with the error, when it failed
//      edgemond_collector_duration_seconds{collector}   how long CollectInto() took (steady clock)
//  - events for changes of health only, so the daemon can log every event as it comes: a
//    collector failing every tick produces one event, not one per tick. A collector's first run
//    yields an event only when it fails; the daemon sums up the others in one line.
//
// One collector failing never stops the others, nor one that blocks: the collectors run on a
// worker thread (internal/collector_threads.h), and a collection that has not returned after the
// runner's timeout is a failure with a kDeadlineExceeded error ("timed out"); the collector is
// skipped, and reported as still blocked, until that collection returns. No logging; time comes
// from the injected Clock, except the timeout, which is on the steady clock.
//
// Thread safety: RunOnce() and the accessors are called from one thread.

#ifndef EDGEMOND_COLLECTORS_COLLECTOR_RUNNER_H_
#define EDGEMOND_COLLECTORS_COLLECTOR_RUNNER_H_

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/collector.h"
#include "core/clock.h"
#include "core/status.h"

namespace edgemond::collectors {

namespace internal {
class CollectorThreads;
class TickFiles;
}  // namespace internal

enum class CollectorHealth {
  kPending,     // Not run yet.
  kOk,          // Read its hardware.
  kNoHardware,  // Found nothing of its kind on this machine (CollectInto() returned kNotFound).
  kFailing,     // Could not work (any other error).
};

// "pending", "ok", "no_hardware", "failing": for logs and the API.
std::string_view CollectorHealthName(CollectorHealth health);

struct CollectorEvent {
  std::string collector;  // Collector::name().
  CollectorHealth from;
  CollectorHealth to;
  Status error;  // Why, when `to` is kNoHardware or kFailing; OK otherwise.
};

// The state of one collector after the last tick, for health endpoints.
struct CollectorState {
  std::string collector;
  CollectorHealth health = CollectorHealth::kPending;
  Status last_error;  // Why, for kNoHardware and kFailing; OK otherwise.
  std::chrono::nanoseconds last_duration{0};

  bool ran() const { return health != CollectorHealth::kPending; }
  bool failing() const { return health == CollectorHealth::kFailing; }
};

struct TickReport {
  std::vector<Sample> samples;
  std::vector<CollectorEvent> events;
};

class CollectorRunner {
 public:
  // How long a collection may take before the runner gives up on it, unless told otherwise.
  static constexpr std::chrono::milliseconds kDefaultTimeout{500};

  // Owns the collectors; `clock` is borrowed and must outlive the runner and any collection it
  // gave up on. `timeout` > 0.
  CollectorRunner(std::vector<std::unique_ptr<Collector>> collectors, const Clock& clock,
                  std::chrono::nanoseconds timeout = kDefaultTimeout);
  // Also owns `files`, which the collectors were built to share (internal/tick_files.h): every
  // RunOnce() starts a tick of them, so a file the collectors share is read once per tick.
  CollectorRunner(std::unique_ptr<internal::TickFiles> files,
                  std::vector<std::unique_ptr<Collector>> collectors, const Clock& clock,
                  std::chrono::nanoseconds timeout = kDefaultTimeout);
  ~CollectorRunner();

  // Runs every collector once. `now` stamps every sample (the self-metrics included).
  // `capacity`: how many samples the caller expects the tick's vector to hold once it has added
  // its own (last tick's total), so that adding them does not move every sample to a new buffer.
  TickReport RunOnce(WallTime now, std::size_t capacity = 0);

  // The self-metrics' descriptions.
  static std::vector<const MetricDesc*> Metrics();
  // Every metric the runner can produce: its own and those of its collectors.
  std::vector<const MetricDesc*> Describe() const;

  const std::vector<CollectorState>& states() const { return states_; }

 private:
  std::unique_ptr<internal::CollectorThreads> threads_;  // Owns the collectors and the files.
  std::vector<CollectorState> states_;                   // Parallel to the collectors.
  std::vector<SeriesLabels> labels_;                     // {collector}, parallel to the collectors.
  std::size_t last_sample_count_ = 0;
};

}  // namespace edgemond::collectors

#endif  // EDGEMOND_COLLECTORS_COLLECTOR_RUNNER_H_
