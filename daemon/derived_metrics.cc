#include "daemon/derived_metrics.h"

#include <map>
#include <optional>
#include <string>

namespace edgemond::daemon {
namespace {

constexpr MetricDesc kMemoryAvailableRatio{
    "edgemond_memory_available_ratio",
    "Share of memory available for new allocations without swapping (available / total)",
    MetricType::kGauge, "ratio"};
constexpr MetricDesc kTripHeadroom{
    "edgemond_thermal_zone_trip_headroom_celsius",
    "Lowest trip point of a type minus the zone's temperature (negative: past the trip point)",
    MetricType::kGauge, "celsius"};
constexpr MetricDesc kCollectorFailing{
    "edgemond_collector_failing",
    "Whether a collector fails for a reason other than absent hardware (1) or not (0)",
    MetricType::kGauge, ""};
constexpr MetricDesc kPowerBudgetRatio{
    "edgemond_power_input_budget_ratio",
    "Input power as a share of the configured power budget (alerts.power_budget_watts)",
    MetricType::kGauge, "ratio"};

std::string_view LabelOf(const Sample& sample, std::string_view name) {
  for (const Label& label : sample.labels) {
    if (label.name == name) return label.value;
  }
  return {};
}

bool Is(const Sample& sample, std::string_view name) {
  return sample.desc != nullptr && sample.desc->name == name && sample.value.has_value();
}

}  // namespace

std::vector<const MetricDesc*> DerivedMetrics() {
  return {&kCollectorFailing, &kMemoryAvailableRatio, &kPowerBudgetRatio, &kTripHeadroom};
}

std::vector<Sample> DeriveSamples(const std::vector<Sample>& samples,
                                  const std::vector<collectors::CollectorState>& collectors,
                                  const DerivedOptions& options, WallTime now) {
  std::vector<Sample> out;
  for (const collectors::CollectorState& state : collectors) {
    if (!state.ran) continue;
    const bool failing = !state.ok && !state.last_error.IsNotFound();
    out.push_back(
        Sample{&kCollectorFailing, {{"collector", state.collector}}, failing ? 1.0 : 0.0, "", now});
  }

  std::optional<double> available, total, input_watts;
  // Lowest trip point by (zone, trip type); zones in the order they came.
  std::map<std::string, std::map<std::string, double>, std::less<>> trips;
  std::vector<const Sample*> zones;
  for (const Sample& sample : samples) {
    if (Is(sample, "edgemond_memory_available_bytes")) {
      available = sample.value;
    } else if (Is(sample, "edgemond_memory_total_bytes")) {
      total = sample.value;
    } else if (Is(sample, "edgemond_power_input_watts")) {
      input_watts = sample.value;
    } else if (Is(sample, "edgemond_thermal_zone_celsius")) {
      zones.push_back(&sample);
    } else if (Is(sample, "edgemond_thermal_zone_trip_celsius")) {
      auto& by_type = trips[std::string(LabelOf(sample, "zone"))];
      const std::string type(LabelOf(sample, "trip_type"));
      const auto found = by_type.find(type);
      if (found == by_type.end() || *sample.value < found->second) by_type[type] = *sample.value;
    }
  }
  if (available && total && *total > 0) {
    out.push_back(Sample{&kMemoryAvailableRatio, {}, *available / *total, "", now});
  }
  if (input_watts && options.power_budget_watts > 0) {
    out.push_back(
        Sample{&kPowerBudgetRatio, {}, *input_watts / options.power_budget_watts, "", now});
  }
  for (const Sample* zone : zones) {
    const auto found = trips.find(LabelOf(*zone, "zone"));
    if (found == trips.end()) continue;
    for (const auto& [trip_type, celsius] : found->second) {
      out.push_back(Sample{&kTripHeadroom,
                           {{"zone", std::string(LabelOf(*zone, "zone"))},
                            {"type", std::string(LabelOf(*zone, "type"))},
                            {"trip_type", trip_type}},
                           celsius - *zone->value,
                           "",
                           now});
    }
  }
  return out;
}

}  // namespace edgemond::daemon
