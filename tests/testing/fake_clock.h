// FakeClock: a Clock that only moves when a test says so. Tests Advance() instead of sleeping.

#ifndef EDGEMOND_TESTS_TESTING_FAKE_CLOCK_H_
#define EDGEMOND_TESTS_TESTING_FAKE_CLOCK_H_

#include <chrono>

#include "core/clock.h"

namespace edgemond::testing {

class FakeClock final : public Clock {
 public:
  // Starts at a fixed wall time (2026-01-01T00:00:00Z) so golden files are reproducible.
  FakeClock() : steady_(std::chrono::seconds(1000)), wall_(std::chrono::seconds(1767225600)) {}

  SteadyTime Now() const override { return steady_; }
  WallTime WallNow() const override { return wall_; }

  void Advance(std::chrono::nanoseconds delta) {
    steady_ += delta;
    wall_ += std::chrono::duration_cast<WallTime::duration>(delta);
  }
  // Moves the wall clock only, as a settimeofday() or NTP step would.
  void StepWall(std::chrono::nanoseconds delta) {
    wall_ += std::chrono::duration_cast<WallTime::duration>(delta);
  }

 private:
  SteadyTime steady_;
  WallTime wall_;
};

}  // namespace edgemond::testing

#endif  // EDGEMOND_TESTS_TESTING_FAKE_CLOCK_H_
