#include "core/alert.h"

namespace edgemond {

std::string_view AlertSeverityName(AlertSeverity severity) {
  switch (severity) {
    case AlertSeverity::kWarning:
      return "warning";
    case AlertSeverity::kCritical:
      return "critical";
  }
  return "warning";
}

Result<AlertSeverity> ParseAlertSeverity(std::string_view name) {
  if (name == "warning") return AlertSeverity::kWarning;
  if (name == "critical") return AlertSeverity::kCritical;
  return Status::InvalidArgument("severity \"" + std::string(name) +
                                 "\": expected \"warning\" or \"critical\"");
}

std::string_view AlertStateName(AlertState state) {
  switch (state) {
    case AlertState::kInactive:
      return "inactive";
    case AlertState::kPending:
      return "pending";
    case AlertState::kFiring:
      return "firing";
    case AlertState::kResolved:
      return "resolved";
  }
  return "inactive";
}

Result<AlertState> ParseAlertState(std::string_view name) {
  for (const AlertState state :
       {AlertState::kInactive, AlertState::kPending, AlertState::kFiring, AlertState::kResolved}) {
    if (AlertStateName(state) == name) return state;
  }
  return Status::InvalidArgument("alert state \"" + std::string(name) +
                                 "\": expected inactive, pending, firing or resolved");
}

}  // namespace edgemond
