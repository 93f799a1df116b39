#include "core/alert.h"

#include <gtest/gtest.h>

namespace edgemond {
namespace {

TEST(AlertTest, SeverityNamesRoundTrip) {
  for (const AlertSeverity severity : {AlertSeverity::kWarning, AlertSeverity::kCritical}) {
    auto parsed = ParseAlertSeverity(AlertSeverityName(severity));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, severity);
  }
  EXPECT_TRUE(ParseAlertSeverity("info").status().IsInvalidArgument());
}

TEST(AlertTest, StateNamesRoundTrip) {
  for (const AlertState state :
       {AlertState::kInactive, AlertState::kPending, AlertState::kFiring, AlertState::kResolved}) {
    auto parsed = ParseAlertState(AlertStateName(state));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, state);
  }
  EXPECT_FALSE(ParseAlertState("Firing").ok());
}

}  // namespace
}  // namespace edgemond
