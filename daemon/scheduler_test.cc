#include "daemon/scheduler.h"

#include <gtest/gtest.h>

#include "tests/testing/fake_clock.h"

namespace edgemond::daemon {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(TickSchedulerTest, StaysOnTheGridWhateverEachTickCosts) {
  testing::FakeClock clock;
  const SteadyTime start = clock.Now();
  TickScheduler scheduler(start, seconds(1));
  for (int tick = 1; tick <= 1000; ++tick) {
    clock.Advance(milliseconds(tick % 7 == 0 ? 900 : 3));  // The tick's own cost.
    EXPECT_EQ(scheduler.Advance(clock.Now()), 0u);
    EXPECT_EQ(scheduler.next(), start + seconds(tick));
    clock.Advance(scheduler.next() - clock.Now());  // Sleep until due.
  }
  EXPECT_EQ(scheduler.missed(), 0u);
}

TEST(TickSchedulerTest, SkipsGridPointsPassedByALateTick) {
  testing::FakeClock clock;
  const SteadyTime start = clock.Now();
  TickScheduler scheduler(start, seconds(1));
  clock.Advance(milliseconds(3500));  // The first tick took 3.5 s (a stalled sensor).
  EXPECT_EQ(scheduler.Advance(clock.Now()), 3u);
  EXPECT_EQ(scheduler.next(), start + seconds(4));
  EXPECT_EQ(scheduler.missed(), 3u);
}

TEST(TickSchedulerTest, ExactlyOnTheNextPointCountsAsMissed) {
  testing::FakeClock clock;
  const SteadyTime start = clock.Now();
  TickScheduler scheduler(start, milliseconds(500));
  clock.Advance(milliseconds(500));
  EXPECT_EQ(scheduler.Advance(clock.Now()), 1u);
  EXPECT_EQ(scheduler.next(), start + milliseconds(1000));
}

}  // namespace
}  // namespace edgemond::daemon
