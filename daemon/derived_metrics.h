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
// A series is derived only when every input has a value (never from a gap). The result depends
// only on the arguments; a SampleDeriver also keeps, between collections, the labels of the series
// it derived (built once per series, as a collector keeps its own) and its scratch buffers, and
// which zone goes with which trip points: it matches them by label values when the zone and trip
// samples are not the series it saw last time (recognized by their labels' identity), so a
// collection like the last one compares no label strings.

#ifndef EDGEMOND_DAEMON_DERIVED_METRICS_H_
#define EDGEMOND_DAEMON_DERIVED_METRICS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collectors/collector_runner.h"
#include "core/clock.h"
#include "core/sample.h"

namespace edgemond::daemon {

struct DerivedOptions {
  double power_budget_watts = 0;  // 0: no budget, no edgemond_power_input_budget_ratio.
};

// Thread safety: not thread-safe; the daemon's loop owns one.
class SampleDeriver {
 public:
  // What a metric is to the derivations.
  enum class Input { kNone, kMemoryAvailable, kMemoryTotal, kInputWatts, kZone, kTrip };

  std::vector<Sample> Derive(const std::vector<Sample>& samples,
                             const std::vector<collectors::CollectorState>& collectors,
                             const DerivedOptions& options, WallTime now);

  // How many times the zones were matched with their trip points (for tests).
  std::uint64_t TEST_plans_made() const { return plans_made_; }

 private:
  struct TripMin {
    std::string_view zone;           // Points into the samples being derived from.
    std::string_view trip_type;      // Likewise.
    std::vector<std::size_t> trips;  // Its trip samples: indices into trips_.
  };
  struct CachedLabels {
    SeriesLabels labels;
    std::uint64_t used_at = 0;  // The call that last used them (calls_).
  };
  // One headroom series: its zone sample, the trip samples whose lowest value it compares with,
  // and its labels.
  struct Headroom {
    std::size_t zone;                // Index into zones_.
    std::vector<std::size_t> trips;  // Indices into trips_.
    SeriesLabels labels;
  };

  const SeriesLabels& HeadroomLabels(std::string_view zone, std::string_view type,
                                     std::string_view trip_type);
  // Whether this call's zone and trip samples are the series the plan was made for, recognized
  // by their labels' identity (a collector keeps a series' labels while the series exists).
  bool PlanFits() const;
  // Matches zones with their trip points by label values, and keeps the result in plan_.
  void MakePlan();

  std::uint64_t calls_ = 0;
  // By metric description (static storage, so the keys are bounded), looked up by name once.
  std::unordered_map<const MetricDesc*, Input> inputs_;
  std::vector<SeriesLabels> collector_labels_;  // {collector}, as the last call's collectors.
  // {zone, type, trip_type} by "zone\0type\0trip_type"; entries a call does not use are dropped.
  std::map<std::string, CachedLabels> headroom_labels_;
  std::size_t headroom_used_ = 0;  // Entries of headroom_labels_ this call has used.
  // The headroom series, in output order, and the labels of the zone and trip samples they were
  // planned for (zones first), kept so that no other series can take their addresses.
  std::vector<Headroom> plan_;
  std::vector<SeriesLabels> plan_inputs_;
  std::size_t plan_zones_ = 0;
  std::uint64_t plans_made_ = 0;
  // Scratch, kept for its capacity.
  std::vector<TripMin> trip_mins_;
  std::vector<const Sample*> trips_;
  std::vector<const Sample*> zones_;
  std::vector<const TripMin*> zone_trips_;
  std::string key_;
  std::size_t last_count_ = 0;
};

// One collection with a fresh SampleDeriver.
std::vector<Sample> DeriveSamples(const std::vector<Sample>& samples,
                                  const std::vector<collectors::CollectorState>& collectors,
                                  const DerivedOptions& options, WallTime now);

std::vector<const MetricDesc*> DerivedMetrics();

}  // namespace edgemond::daemon

#endif  // EDGEMOND_DAEMON_DERIVED_METRICS_H_
