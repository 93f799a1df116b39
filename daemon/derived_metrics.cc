#include "daemon/derived_metrics.h"

#include <algorithm>
#include <iterator>
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

SampleDeriver::Input InputOf(const MetricDesc& desc) {
  using Input = SampleDeriver::Input;
  if (desc.name == "edgemond_memory_available_bytes") return Input::kMemoryAvailable;
  if (desc.name == "edgemond_memory_total_bytes") return Input::kMemoryTotal;
  if (desc.name == "edgemond_power_input_watts") return Input::kInputWatts;
  if (desc.name == "edgemond_thermal_zone_celsius") return Input::kZone;
  if (desc.name == "edgemond_thermal_zone_trip_celsius") return Input::kTrip;
  return Input::kNone;
}

}  // namespace

std::vector<const MetricDesc*> DerivedMetrics() {
  return {&kCollectorFailing, &kMemoryAvailableRatio, &kPowerBudgetRatio, &kTripHeadroom};
}

const SeriesLabels& SampleDeriver::HeadroomLabels(std::string_view zone, std::string_view type,
                                                  std::string_view trip_type) {
  key_.assign(zone);
  key_.push_back('\0');
  key_.append(type);
  key_.push_back('\0');
  key_.append(trip_type);
  auto [it, inserted] = headroom_labels_.try_emplace(key_);
  if (inserted) {
    it->second.labels = Labels{{"zone", std::string(zone)},
                               {"type", std::string(type)},
                               {"trip_type", std::string(trip_type)}};
  }
  if (it->second.used_at != calls_) ++headroom_used_;
  it->second.used_at = calls_;
  return it->second.labels;
}

std::vector<Sample> SampleDeriver::Derive(const std::vector<Sample>& samples,
                                          const std::vector<collectors::CollectorState>& collectors,
                                          const DerivedOptions& options, WallTime now) {
  ++calls_;
  headroom_used_ = 0;
  std::vector<Sample> out;
  out.reserve(last_count_);
  collector_labels_.resize(collectors.size());
  for (std::size_t i = 0; i < collectors.size(); ++i) {
    const collectors::CollectorState& state = collectors[i];
    SeriesLabels& labels = collector_labels_[i];
    if (labels.empty() || labels[0].value != state.collector) {
      labels = Labels{{"collector", state.collector}};
    }
    if (!state.ran) continue;
    const bool failing = !state.ok && !state.last_error.IsNotFound();
    out.push_back(Sample{&kCollectorFailing, labels, failing ? 1.0 : 0.0, "", now});
  }

  std::optional<double> available, total, input_watts;
  trips_.clear();  // The lowest trip point by (zone, trip type).
  zones_.clear();  // Zones in the order they came.
  // A collector's samples of one metric come together: look the description up once per run.
  const MetricDesc* run_desc = nullptr;
  Input input = Input::kNone;
  for (const Sample& sample : samples) {
    if (sample.desc == nullptr || !sample.value.has_value()) continue;
    if (sample.desc != run_desc) {
      auto [known, inserted] = inputs_.try_emplace(sample.desc);
      if (inserted) known->second = InputOf(*sample.desc);
      run_desc = sample.desc;
      input = known->second;
    }
    if (input == Input::kMemoryAvailable) {
      available = sample.value;
    } else if (input == Input::kMemoryTotal) {
      total = sample.value;
    } else if (input == Input::kInputWatts) {
      input_watts = sample.value;
    } else if (input == Input::kZone) {
      zones_.push_back(&sample);
    } else if (input == Input::kTrip) {
      const std::string_view zone = LabelOf(sample, "zone");
      const std::string_view type = LabelOf(sample, "trip_type");
      const auto found = std::find_if(trips_.begin(), trips_.end(), [&](const TripMin& trip) {
        return trip.zone == zone && trip.trip_type == type;
      });
      if (found == trips_.end()) {
        trips_.push_back(TripMin{zone, type, *sample.value});
      } else {
        found->celsius = std::min(found->celsius, *sample.value);
      }
    }
  }
  if (available && total && *total > 0) {
    out.push_back(Sample{&kMemoryAvailableRatio, {}, *available / *total, "", now});
  }
  if (input_watts && options.power_budget_watts > 0) {
    out.push_back(
        Sample{&kPowerBudgetRatio, {}, *input_watts / options.power_budget_watts, "", now});
  }
  for (const Sample* zone : zones_) {
    const std::string_view zone_name = LabelOf(*zone, "zone");
    zone_trips_.clear();
    for (const TripMin& trip : trips_) {
      if (trip.zone == zone_name) zone_trips_.push_back(&trip);
    }
    // By trip type, so that a zone's series always come in the same order.
    std::sort(zone_trips_.begin(), zone_trips_.end(),
              [](const TripMin* a, const TripMin* b) { return a->trip_type < b->trip_type; });
    for (const TripMin* trip : zone_trips_) {
      out.push_back(Sample{&kTripHeadroom,
                           HeadroomLabels(zone_name, LabelOf(*zone, "type"), trip->trip_type),
                           trip->celsius - *zone->value, "", now});
    }
  }
  // Forget the labels of series that were not derived this time (a zone that went away). When
  // this call used every entry, none is stale and the map need not be walked.
  if (headroom_used_ != headroom_labels_.size()) {
    for (auto it = headroom_labels_.begin(); it != headroom_labels_.end();) {
      it = it->second.used_at == calls_ ? std::next(it) : headroom_labels_.erase(it);
    }
  }
  last_count_ = out.size();
  return out;
}

std::vector<Sample> DeriveSamples(const std::vector<Sample>& samples,
                                  const std::vector<collectors::CollectorState>& collectors,
                                  const DerivedOptions& options, WallTime now) {
  return SampleDeriver().Derive(samples, collectors, options, now);
}

}  // namespace edgemond::daemon
