// AlertSink: where alert transitions go (the journal, stderr, a test's recording). The daemon
// hands every transition the Evaluator returns to its sink, once.
//
// Also the one readable form of a transition, shared by every sink that writes text:
//   FIRING warning thermal_zone_hot{type="cpu-thermal",zone="cpu-thermal"}: value 86.4 > 85
//     (clears at <= 80) since 2026-11-22T02:10:00Z: CPU at 86.4 °C
//   RESOLVED warning thermal_zone_hot{...}: value 79.5 (clear threshold 80, cleared) ...

#ifndef EDGEMOND_ALERTS_ALERT_SINK_H_
#define EDGEMOND_ALERTS_ALERT_SINK_H_

#include <string>

#include "core/alert.h"
#include "core/status.h"

namespace edgemond::alerts {

class AlertSink {
 public:
  virtual ~AlertSink() = default;
  // Delivers one transition. An error means it did not reach its destination; the caller decides
  // what to do (the daemon logs it and writes the line to stderr instead).
  virtual Status Emit(const AlertTransition& transition) = 0;
};

// The one-line text of a transition, without a timestamp or trailing newline.
std::string FormatTransition(const AlertTransition& transition);

// "2026-11-22T02:10:00Z" (UTC, whole seconds).
std::string FormatUtc(WallTime time);

}  // namespace edgemond::alerts

#endif  // EDGEMOND_ALERTS_ALERT_SINK_H_
