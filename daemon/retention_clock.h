// RetentionClock: the wall time retention deletes by, which a clock step forward cannot rush.
//
// Retention deletes whatever is older than its time minus the retention. Samples are stamped
// with the wall clock as it is, but a wall clock stepped forward by mistake (a wrong NTP server, a
// board without an RTC battery that boots at a bad time and is set twice) would make retention
// delete days that are not due, and nothing brings them back. So the retention time:
//  - is the wall time while the wall clock moves as the monotonic clock does, give or take
//    `tolerance` (slewing, small NTP steps);
//  - follows a step back at once: it then deletes less, never more, and the size cap still
//    bounds the database;
//  - after a step forward by more than `tolerance`, goes on from where it was at the monotonic
//    clock's pace, and takes the wall time only once it has stayed ahead for `trust_after`.
//    A step that is undone within that time never deletes anything early.
// Time spent suspended moves the wall clock and not the monotonic one: it counts as a step
// forward, so retention runs up to that much late for `trust_after`.
//
// Pure logic: the caller passes both clocks' readings. Not thread-safe.

#ifndef EDGEMOND_DAEMON_RETENTION_CLOCK_H_
#define EDGEMOND_DAEMON_RETENTION_CLOCK_H_

#include <chrono>
#include <optional>

#include "core/clock.h"

namespace edgemond::daemon {

class RetentionClock {
 public:
  static constexpr std::chrono::minutes kDefaultTolerance{5};
  static constexpr std::chrono::hours kDefaultTrustAfter{24};

  RetentionClock(std::chrono::nanoseconds tolerance = kDefaultTolerance,
                 std::chrono::nanoseconds trust_after = kDefaultTrustAfter)
      : tolerance_(tolerance), trust_after_(trust_after) {}

  // What happened to the wall clock at the last Now(), for the log.
  enum class Change {
    kNone,            // It moved with the monotonic clock, or this was the first reading.
    kSteppedBack,     // It went back by more than the tolerance: followed at once.
    kSteppedForward,  // It went ahead by more than the tolerance: not followed yet.
    kTrusted,         // A step forward held for trust_after: followed now.
  };

  // The time retention may delete by, given the monotonic and wall clocks' readings now.
  // `steady` never goes back between calls.
  WallTime Now(SteadyTime steady, WallTime wall);

  Change last_change() const { return last_change_; }
  // The wall clock minus what it would read had it kept time since the reading before, at the
  // last Now(): negative after a step back.
  std::chrono::nanoseconds last_step() const { return last_step_; }
  // How far the wall clock is ahead of the retention time (zero unless a step is not trusted).
  std::chrono::nanoseconds ahead() const { return ahead_; }

 private:
  std::chrono::nanoseconds tolerance_;
  std::chrono::nanoseconds trust_after_;
  std::optional<WallTime> time_;           // The retention time at the last reading.
  SteadyTime at_{};                        // The monotonic reading then.
  std::optional<SteadyTime> ahead_since_;  // When the wall clock went ahead, if it still is.
  std::chrono::nanoseconds ahead_{0};
  std::chrono::nanoseconds last_step_{0};
  Change last_change_ = Change::kNone;
};

}  // namespace edgemond::daemon

#endif  // EDGEMOND_DAEMON_RETENTION_CLOCK_H_
