#include "collectors/throttle_events.h"

#include <gtest/gtest.h>

#include "collectors/internal/samples.h"
#include "collectors/internal/throttle.h"

namespace edgemond::collectors {
namespace {

using Kind = ThrottleEvent::Kind;

WallTime At(int second) { return WallTime(std::chrono::seconds(1767225600 + second)); }

Sample Throttled(std::string_view component, std::string_view reason, double value, int second) {
  return internal::ValueSample(internal::kThrottled, internal::ThrottleLabels(component, reason),
                               value, At(second));
}

TEST(ThrottleEventTrackerTest, TransitionsBecomeEventsAndSteadyStatesDoNot) {
  ThrottleEventTracker tracker;
  EXPECT_EQ(tracker.Update({Throttled("cpu", "frequency_cap", 0, 0)}),
            std::vector<ThrottleEvent>{});
  EXPECT_EQ(tracker.Update({Throttled("cpu", "frequency_cap", 1, 1)}),
            (std::vector<ThrottleEvent>{{Kind::kStarted, "cpu", "frequency_cap", At(1)}}));
  EXPECT_EQ(tracker.Update({Throttled("cpu", "frequency_cap", 1, 2)}),
            std::vector<ThrottleEvent>{});
  EXPECT_EQ(tracker.Update({Throttled("cpu", "frequency_cap", 0, 3)}),
            (std::vector<ThrottleEvent>{{Kind::kEnded, "cpu", "frequency_cap", At(3)}}));
  EXPECT_EQ(tracker.History().size(), 2u);
}

TEST(ThrottleEventTrackerTest, AThrottleActiveWhenFirstSeenIsReportedOnce) {
  ThrottleEventTracker tracker;
  EXPECT_EQ(tracker.Update({Throttled("board", "under_voltage", 1, 0)}),
            (std::vector<ThrottleEvent>{{Kind::kStarted, "board", "under_voltage", At(0)}}));
  EXPECT_TRUE(tracker.Update({Throttled("board", "under_voltage", 1, 1)}).empty());
}

TEST(ThrottleEventTrackerTest, NotKnowingIsNotATransition) {
  ThrottleEventTracker tracker;
  tracker.Update({Throttled("gpu:pci/0000:01:00.0", "hw_slowdown", 1, 0)});
  Sample missing = internal::MissingSample(
      internal::kThrottled, internal::ThrottleLabels("gpu:pci/0000:01:00.0", "hw_slowdown"),
      "NVML_ERROR_GPU_IS_LOST", At(1));
  EXPECT_TRUE(tracker.Update({missing}).empty());
  EXPECT_TRUE(tracker.Update({}).empty());  // Its collector failed this tick.
  EXPECT_TRUE(tracker.Update({Throttled("gpu:pci/0000:01:00.0", "hw_slowdown", 1, 3)}).empty());
}

TEST(ThrottleEventTrackerTest, ReasonsAndComponentsAreTrackedApartAndOtherMetricsIgnored) {
  ThrottleEventTracker tracker;
  static constexpr MetricDesc kOther{"edgemond_other", "Other", MetricType::kGauge, ""};
  const auto events = tracker.Update({
      Throttled("cpu", "frequency_cap", 1, 0),
      Throttled("cpu", "thermal", 0, 0),
      Throttled("gpu:platform/17000000.gpu", "frequency_cap", 1, 0),
      internal::ValueSample(kOther, internal::ThrottleLabels("cpu", "thermal"), 1, At(0)),
  });
  EXPECT_EQ(events, (std::vector<ThrottleEvent>{
                        {Kind::kStarted, "cpu", "frequency_cap", At(0)},
                        {Kind::kStarted, "gpu:platform/17000000.gpu", "frequency_cap", At(0)},
                    }));
  EXPECT_EQ(ThrottleEventTracker::MetricName(), "edgemond_throttled");
  EXPECT_EQ(ThrottleEventKindName(Kind::kStarted), "started");
  EXPECT_EQ(ThrottleEventKindName(Kind::kEnded), "ended");
}

TEST(ThrottleEventTrackerTest, HistoryKeepsTheMostRecentEvents) {
  ThrottleEventTracker tracker(/*history_capacity=*/3);
  for (int second = 0; second < 5; ++second) {
    tracker.Update({Throttled("cpu", "thermal", second % 2, second)});
  }
  // 1 started at 1, ended at 2, started at 3, ended at 4: the last three are kept.
  ASSERT_EQ(tracker.History().size(), 3u);
  EXPECT_EQ(tracker.History().front(), (ThrottleEvent{Kind::kEnded, "cpu", "thermal", At(2)}));
  EXPECT_EQ(tracker.History().back(), (ThrottleEvent{Kind::kEnded, "cpu", "thermal", At(4)}));
}

}  // namespace
}  // namespace edgemond::collectors
