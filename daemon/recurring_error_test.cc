#include "daemon/recurring_error.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace edgemond::daemon {
namespace {

TEST(RecurringErrorTest, LogsTheStartOfAFailureNotItsRepeats) {
  RecurringError error;
  EXPECT_FALSE(error.failing());
  EXPECT_TRUE(error.Failed(Status::FromErrno(ENOSPC, "writing /var/lib/edgemond/edgemond.db")));
  EXPECT_TRUE(error.failing());
  EXPECT_FALSE(error.Failed(Status::FromErrno(ENOSPC, "writing /var/lib/edgemond/edgemond.db")));
}

TEST(RecurringErrorTest, AMessageThatChangesIsTheSameFailure) {
  RecurringError error;
  EXPECT_TRUE(error.Failed(Status(StatusCode::kResourceExhausted, "12 KiB free", ENOSPC)));
  EXPECT_FALSE(error.Failed(Status(StatusCode::kResourceExhausted, "8 KiB free", ENOSPC)));
}

TEST(RecurringErrorTest, AnotherCodeOrErrorNumberIsLoggedAgain) {
  RecurringError error;
  EXPECT_TRUE(error.Failed(Status::FromErrno(ENOSPC, "flush")));
  EXPECT_TRUE(error.Failed(Status::FromErrno(EIO, "flush")));
  EXPECT_TRUE(error.Failed(Status::IoError("flush")));  // Same code, no error number.
  EXPECT_TRUE(error.Failed(Status::Unavailable("flush")));
  EXPECT_FALSE(error.Failed(Status::Unavailable("flush")));
}

TEST(RecurringErrorTest, ASuccessEndsTheFailureOnce) {
  RecurringError error;
  EXPECT_FALSE(error.Succeeded());  // Nothing had failed.
  ASSERT_TRUE(error.Failed(Status::Unavailable("journal socket")));
  EXPECT_TRUE(error.Succeeded());
  EXPECT_FALSE(error.failing());
  EXPECT_FALSE(error.Succeeded());
  EXPECT_TRUE(error.Failed(Status::Unavailable("journal socket")));  // A new episode.
}

}  // namespace
}  // namespace edgemond::daemon
