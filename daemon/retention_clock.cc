#include "daemon/retention_clock.h"

namespace edgemond::daemon {

WallTime RetentionClock::Now(SteadyTime steady, WallTime wall) {
  last_change_ = Change::kNone;
  last_step_ = std::chrono::nanoseconds(0);
  if (!time_) {
    time_ = wall;
    at_ = steady;
    return wall;
  }
  const WallTime expected = *time_ + std::chrono::duration_cast<WallTime::duration>(steady - at_);
  at_ = steady;
  last_step_ = wall - expected;
  if (wall <= expected + tolerance_) {
    if (wall < expected - tolerance_) last_change_ = Change::kSteppedBack;
    time_ = wall;
    ahead_since_.reset();
    ahead_ = std::chrono::nanoseconds(0);
    return wall;
  }
  if (!ahead_since_) {
    ahead_since_ = steady;
    last_change_ = Change::kSteppedForward;
  }
  if (steady - *ahead_since_ >= trust_after_) {
    last_change_ = Change::kTrusted;
    time_ = wall;
    ahead_since_.reset();
    ahead_ = std::chrono::nanoseconds(0);
    return wall;
  }
  time_ = expected;
  ahead_ = wall - expected;
  return expected;
}

}  // namespace edgemond::daemon
