// The alert vocabulary shared by alerts (which evaluates rules), storage (which keeps the history)
// and http (which serves both): severities, states, the state of one alert right now, and one
// transition of it.
//
// An alert is one rule applied to one series: the rule `thermal_zone_hot` on
// `edgemond_thermal_zone_celsius{zone="cpu-thermal"}` is one alert, on another zone another. Its
// identity is the rule name plus the series' labels.

#ifndef EDGEMOND_CORE_ALERT_H_
#define EDGEMOND_CORE_ALERT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "core/sample.h"

namespace edgemond {

enum class AlertSeverity { kWarning, kCritical };

// "warning" / "critical".
std::string_view AlertSeverityName(AlertSeverity severity);
Result<AlertSeverity> ParseAlertSeverity(std::string_view name);

// inactive -> pending (condition met, waiting for `for`) -> firing -> resolved -> inactive.
// kResolved only ever appears in a transition: a resolved alert is inactive again.
enum class AlertState { kInactive, kPending, kFiring, kResolved };

// "inactive" / "pending" / "firing" / "resolved".
std::string_view AlertStateName(AlertState state);
Result<AlertState> ParseAlertState(std::string_view name);

// An alert that is pending or firing, as GET /api/v1/alerts lists it.
struct ActiveAlert {
  std::string rule;
  AlertState state = AlertState::kPending;  // kPending or kFiring.
  AlertSeverity severity = AlertSeverity::kWarning;
  Labels labels;                // The series' labels: with `rule`, the alert's identity.
  Labels rule_labels;           // The rule's own labels (free-form, e.g. team="ops").
  std::optional<double> value;  // The last value the rule saw; empty while data is missing.
  std::string op;               // The rule's comparison: ">", ">=", "<", "<=".
  double threshold = 0;         // The rule's trigger threshold.
  double clear_threshold = 0;   // The rule's clear threshold.
  WallTime active_since;        // When the condition was first met (pending began).
  std::optional<WallTime> firing_since;
  std::optional<WallTime> missing_since;  // Data missing since then (kept by the rule's policy).
  Labels annotations;                     // Rendered with the current value.
};

// One transition of an alert: what goes to the journal, to the history and to
// GET /api/v1/alerts/history.
struct AlertTransition {
  std::string rule;
  AlertState state = AlertState::kFiring;  // kFiring or kResolved.
  AlertSeverity severity = AlertSeverity::kWarning;
  Labels labels;                // The series' labels.
  Labels rule_labels;           // The rule's own labels.
  std::optional<double> value;  // The value that caused it; empty when missing data did.
  std::string op;               // The rule's comparison: ">", ">=", "<", "<=".
  double threshold = 0;         // The rule's trigger threshold.
  double clear_threshold = 0;   // The rule's clear threshold.
  WallTime at;                  // When the transition happened.
  WallTime active_since;        // When the alert's condition was first met.
  // Why: "threshold" or "no_data" for kFiring; "cleared", "no_data", "rule_removed" or
  // "rule_changed" for kResolved.
  std::string reason;
  Labels annotations;  // Rendered with `value`.
};

struct AlertHistoryQuery {
  std::int64_t from_ms = 0;  // Inclusive, Unix milliseconds.
  std::int64_t to_ms = 0;    // Inclusive.
  std::optional<std::string> rule;
  std::size_t limit = 1000;  // Newest first; at most this many.
};

}  // namespace edgemond

#endif  // EDGEMOND_CORE_ALERT_H_
