#include "daemon/recurring_error.h"

namespace edgemond::daemon {

bool RecurringError::Failed(const Status& status) {
  const bool same_kind =
      last_ && last_->code() == status.code() && last_->error_number() == status.error_number();
  last_ = status;
  return !same_kind;
}

bool RecurringError::Succeeded() {
  const bool ended = last_.has_value();
  last_.reset();
  return ended;
}

}  // namespace edgemond::daemon
