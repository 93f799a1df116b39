#include "daemon/retention_clock.h"

#include <gtest/gtest.h>

#include "tests/testing/fake_clock.h"

namespace edgemond::daemon {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;
using Change = RetentionClock::Change;

class RetentionClockTest : public ::testing::Test {
 protected:
  WallTime Read() { return retention_.Now(clock_.Now(), clock_.WallNow()); }

  testing::FakeClock clock_;
  RetentionClock retention_;
};

TEST_F(RetentionClockTest, FollowsAWallClockThatKeepsTime) {
  EXPECT_EQ(Read(), clock_.WallNow());
  for (int i = 0; i < 10; ++i) {
    clock_.Advance(seconds(1));
    clock_.StepWall(std::chrono::milliseconds(30));  // NTP's small corrections.
    EXPECT_EQ(Read(), clock_.WallNow());
    EXPECT_EQ(retention_.last_change(), Change::kNone);
  }
}

TEST_F(RetentionClockTest, FollowsAStepBackAtOnce) {
  Read();
  clock_.Advance(seconds(10));
  clock_.StepWall(-hours(1));
  EXPECT_EQ(Read(), clock_.WallNow());
  EXPECT_EQ(retention_.last_change(), Change::kSteppedBack);
  EXPECT_EQ(retention_.last_step(), -hours(1));
  clock_.Advance(seconds(10));
  EXPECT_EQ(Read(), clock_.WallNow());
  EXPECT_EQ(retention_.last_change(), Change::kNone);
}

TEST_F(RetentionClockTest, AStepForwardIsFollowedOnlyOnceItHeldForADay) {
  const WallTime start = Read();
  clock_.Advance(minutes(1));
  clock_.StepWall(hours(24));
  // Retention goes on at the monotonic clock's pace from where it was.
  EXPECT_EQ(Read(), start + minutes(1));
  EXPECT_EQ(retention_.last_change(), Change::kSteppedForward);
  EXPECT_EQ(retention_.ahead(), hours(24));
  clock_.Advance(hours(23));
  EXPECT_EQ(Read(), start + minutes(1) + hours(23));
  EXPECT_EQ(retention_.last_change(), Change::kNone);
  clock_.Advance(hours(1));
  EXPECT_EQ(Read(), clock_.WallNow());
  EXPECT_EQ(retention_.last_change(), Change::kTrusted);
  EXPECT_EQ(retention_.ahead(), std::chrono::nanoseconds(0));
  clock_.Advance(seconds(1));
  EXPECT_EQ(Read(), clock_.WallNow());
}

TEST_F(RetentionClockTest, AStepForwardUndoneInTimeNeverRushesRetention) {
  const WallTime start = Read();
  clock_.Advance(minutes(1));
  clock_.StepWall(hours(24));
  EXPECT_EQ(Read(), start + minutes(1));
  clock_.Advance(hours(2));
  clock_.StepWall(-hours(24));  // Set right again.
  EXPECT_EQ(Read(), clock_.WallNow());
  EXPECT_EQ(Read(), start + minutes(1) + hours(2));
  // A later step forward starts its own day of doubt.
  clock_.Advance(hours(23));
  clock_.StepWall(hours(6));
  EXPECT_EQ(Read(), start + minutes(1) + hours(25));
  EXPECT_EQ(retention_.last_change(), Change::kSteppedForward);
}

}  // namespace
}  // namespace edgemond::daemon
