#include "alerts/alert_sink.h"

#include <ctime>

#include "alerts/rule.h"

namespace edgemond::alerts {

std::string FormatUtc(WallTime time) {
  const std::time_t seconds =
      std::chrono::duration_cast<std::chrono::seconds>(time.time_since_epoch()).count();
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

std::string FormatTransition(const AlertTransition& transition) {
  std::string out = "alert " + SeriesKey(transition.rule, transition.labels) + " ";
  const std::string value = transition.value ? FormatNumber(*transition.value) : "missing";
  if (transition.state == AlertState::kFiring) {
    out += "FIRING (" + std::string(AlertSeverityName(transition.severity)) + "): ";
    if (transition.reason == "no_data") {
      out += "no data (the rule fires on missing data)";
    } else {
      out += "value " + value + " " + transition.op + " " + FormatNumber(transition.threshold);
    }
    out += " since " + FormatUtc(transition.active_since);
  } else {
    out += "RESOLVED (" + std::string(AlertSeverityName(transition.severity)) + "): ";
    if (transition.reason == "cleared") {
      out += "value " + value + " no longer " + transition.op + " " +
             FormatNumber(transition.clear_threshold);
    } else if (transition.reason == "no_data") {
      out += "no data";
    } else if (transition.reason == "rule_removed") {
      out += "the rule was removed or disabled";
    } else if (transition.reason == "rule_changed") {
      out += "the rule no longer selects this series";
    } else {
      out += transition.reason;
    }
    const auto lasted = std::chrono::duration_cast<std::chrono::milliseconds>(
        transition.at - transition.active_since);
    out += ", active for " + FormatDuration(std::chrono::duration_cast<std::chrono::seconds>(
                                 std::max(lasted, std::chrono::milliseconds(0))));
  }
  for (const Label& annotation : transition.annotations) {
    if (annotation.name == "summary") out += ": " + annotation.value;
  }
  return out;
}

}  // namespace edgemond::alerts
