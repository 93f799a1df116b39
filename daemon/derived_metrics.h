// Derived metrics: series the daemon computes from one collection's samples, so that an alert
// rule stays a threshold on one series, and a dashboard can graph exactly what the rule sees.
//
//   edgemond_memory_available_ratio
//       edgemond_memory_available_bytes / edgemond_memory_total_bytes.
//   edgemond_thermal_zone_trip_headroom_celsius{zone,type,trip_type}
//       For each zone with a reading and each trip type it has (passive, hot, critical): the
//       lowest trip point of that type minus the zone's temperature. "Within 5 °C of the passive
//       trip" is `headroom < 5`; a zone past its trip point has a negative headroom.
//   edgemond_collector_failing{collector}
//       1 while a collector fails for a reason other than its hardware being absent, else 0.
//       edgemond_collector_success is 0 for both, so it cannot tell a broken sensor from a
//       machine without that hardware (a VM without thermal zones).
//   edgemond_power_input_budget_ratio
//       edgemond_power_input_watts / alerts.power_budget_watts, when a budget is configured.
//
// Pure functions; a series is derived only when every input has a value (never from a gap).

#ifndef EDGEMOND_DAEMON_DERIVED_METRICS_H_
#define EDGEMOND_DAEMON_DERIVED_METRICS_H_

#include <vector>

#include "collectors/collector_runner.h"
#include "core/clock.h"
#include "core/sample.h"

namespace edgemond::daemon {

struct DerivedOptions {
  double power_budget_watts = 0;  // 0: no budget, no edgemond_power_input_budget_ratio.
};

std::vector<Sample> DeriveSamples(const std::vector<Sample>& samples,
                                  const std::vector<collectors::CollectorState>& collectors,
                                  const DerivedOptions& options, WallTime now);

std::vector<const MetricDesc*> DerivedMetrics();

}  // namespace edgemond::daemon

#endif  // EDGEMOND_DAEMON_DERIVED_METRICS_H_
