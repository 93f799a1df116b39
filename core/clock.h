// Clock: the one seam for time. Everything that schedules, measures or expires takes a Clock&
// so that tests can drive time with FakeClock (tests/testing/fake_clock.h) instead of sleeping.
//
// SteadyTime is monotonic (CLOCK_MONOTONIC) and is used for scheduling and rates; WallTime is
// the real-time clock and is used only for timestamps that leave the process.

#ifndef EDGEMOND_CORE_CLOCK_H_
#define EDGEMOND_CORE_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace edgemond {

using SteadyTime = std::chrono::steady_clock::time_point;

// A steady-clock duration in seconds.
inline double Seconds(SteadyTime::duration d) { return std::chrono::duration<double>(d).count(); }
using WallTime = std::chrono::system_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual SteadyTime Now() const = 0;
  virtual WallTime WallNow() const = 0;
};

// The real clocks. Stateless; create one where it is needed and pass it down by reference.
class SystemClock final : public Clock {
 public:
  SteadyTime Now() const override { return std::chrono::steady_clock::now(); }
  WallTime WallNow() const override { return std::chrono::system_clock::now(); }
};

// Milliseconds since the Unix epoch: the unit timestamps are stored and served in.
inline std::int64_t ToUnixMillis(WallTime t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}
inline WallTime FromUnixMillis(std::int64_t ms) {
  return WallTime(std::chrono::duration_cast<WallTime::duration>(std::chrono::milliseconds(ms)));
}

}  // namespace edgemond

#endif  // EDGEMOND_CORE_CLOCK_H_
