// TickScheduler: decides when the next collection is due. Pure; time is passed in.
//
// Ticks sit on a fixed grid (start + k * interval) of the monotonic clock, so they do not drift
// however long each tick takes. A tick that runs so late that it passes one or more grid points
// skips them (they are counted, not run in a burst).

#ifndef EDGEMOND_DAEMON_SCHEDULER_H_
#define EDGEMOND_DAEMON_SCHEDULER_H_

#include <chrono>
#include <cstdint>

#include "core/clock.h"

namespace edgemond::daemon {

class TickScheduler {
 public:
  // REQUIRES: interval > 0. The first tick is due at `start`.
  TickScheduler(SteadyTime start, std::chrono::nanoseconds interval)
      : next_(start), interval_(interval) {}

  SteadyTime next() const { return next_; }
  std::chrono::nanoseconds interval() const { return interval_; }
  std::uint64_t missed() const { return missed_; }

  // Called after the tick due at next() ran; `now` is when it finished. Moves next() to the first
  // grid point after `now` and returns how many grid points were skipped.
  std::uint64_t Advance(SteadyTime now) {
    next_ += interval_;
    std::uint64_t skipped = 0;
    if (next_ <= now) {
      skipped = static_cast<std::uint64_t>((now - next_) / interval_) + 1;
      next_ += interval_ * static_cast<std::int64_t>(skipped);
    }
    missed_ += skipped;
    return skipped;
  }

  // Restarts the grid at `start` with a new interval (configuration reload).
  void Reset(SteadyTime start, std::chrono::nanoseconds interval) {
    next_ = start;
    interval_ = interval;
  }

 private:
  SteadyTime next_;
  std::chrono::nanoseconds interval_;
  std::uint64_t missed_ = 0;
};

}  // namespace edgemond::daemon

#endif  // EDGEMOND_DAEMON_SCHEDULER_H_
