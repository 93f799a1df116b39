// A failure that may repeat at every attempt (a full disk at every flush, a journal socket that
// went away at every alert): logged when it starts, again only when it changes kind, and once when
// it ends, so the journal shows each episode rather than each attempt.

#ifndef EDGEMOND_DAEMON_RECURRING_ERROR_H_
#define EDGEMOND_DAEMON_RECURRING_ERROR_H_

#include <optional>

#include "core/status.h"

namespace edgemond::daemon {

class RecurringError {
 public:
  // Records a failed attempt; true when it is worth logging: the first failure since a success,
  // or one of another kind than the last (another code or error number). The message does not
  // count: it may carry figures that change at every attempt, such as the free space left.
  bool Failed(const Status& status);

  // Records a successful attempt; true when it ends a failure.
  bool Succeeded();

  bool failing() const { return last_.has_value(); }

 private:
  std::optional<Status> last_;
};

}  // namespace edgemond::daemon

#endif  // EDGEMOND_DAEMON_RECURRING_ERROR_H_
