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

bool SampleDeriver::PlanFits() const {
  if (plan_zones_ != zones_.size() || plan_inputs_.size() != zones_.size() + trips_.size()) {
    return false;
  }
  for (std::size_t i = 0; i < zones_.size(); ++i) {
    if (!plan_inputs_[i].SharesWith(zones_[i]->labels)) return false;
  }
  for (std::size_t i = 0; i < trips_.size(); ++i) {
    if (!plan_inputs_[zones_.size() + i].SharesWith(trips_[i]->labels)) return false;
  }
  return true;
}

void SampleDeriver::MakePlan() {
  ++plans_made_;
  headroom_used_ = 0;
  trip_mins_.clear();  // The trip samples by (zone, trip type).
  for (std::size_t i = 0; i < trips_.size(); ++i) {
    const std::string_view zone = LabelValue(trips_[i]->labels, "zone");
    const std::string_view type = LabelValue(trips_[i]->labels, "trip_type");
    auto found = std::find_if(trip_mins_.begin(), trip_mins_.end(), [&](const TripMin& trip) {
      return trip.zone == zone && trip.trip_type == type;
    });
    if (found == trip_mins_.end()) found = trip_mins_.insert(trip_mins_.end(), {zone, type, {}});
    found->trips.push_back(i);
  }
  plan_.clear();
  for (std::size_t z = 0; z < zones_.size(); ++z) {
    const std::string_view zone_name = LabelValue(zones_[z]->labels, "zone");
    zone_trips_.clear();
    for (const TripMin& trip : trip_mins_) {
      if (trip.zone == zone_name) zone_trips_.push_back(&trip);
    }
    // By trip type, so that a zone's series always come in the same order.
    std::sort(zone_trips_.begin(), zone_trips_.end(),
              [](const TripMin* a, const TripMin* b) { return a->trip_type < b->trip_type; });
    for (const TripMin* trip : zone_trips_) {
      plan_.push_back(Headroom{
          z, trip->trips,
          HeadroomLabels(zone_name, LabelValue(zones_[z]->labels, "type"), trip->trip_type)});
    }
  }
  // Forget the labels of series that were not derived this time (a zone that went away). When
  // this call used every entry, none is stale and the map need not be walked.
  if (headroom_used_ != headroom_labels_.size()) {
    for (auto it = headroom_labels_.begin(); it != headroom_labels_.end();) {
      it = it->second.used_at == calls_ ? std::next(it) : headroom_labels_.erase(it);
    }
  }
  plan_inputs_.clear();
  for (const Sample* zone : zones_) plan_inputs_.push_back(zone->labels);
  for (const Sample* trip : trips_) plan_inputs_.push_back(trip->labels);
  plan_zones_ = zones_.size();
}

std::vector<Sample> SampleDeriver::Derive(const std::vector<Sample>& samples,
                                          const std::vector<collectors::CollectorState>& collectors,
                                          const DerivedOptions& options, WallTime now) {
  ++calls_;
  std::vector<Sample> out;
  out.reserve(last_count_);
  collector_labels_.resize(collectors.size());
  for (std::size_t i = 0; i < collectors.size(); ++i) {
    const collectors::CollectorState& state = collectors[i];
    SeriesLabels& labels = collector_labels_[i];
    if (labels.empty() || labels[0].value != state.collector) {
      labels = Labels{{"collector", state.collector}};
    }
    if (!state.ran()) continue;
    out.push_back(Sample{&kCollectorFailing, labels, state.failing() ? 1.0 : 0.0, "", now});
  }

  std::optional<double> available, total, input_watts;
  zones_.clear();  // Zones in the order they came.
  trips_.clear();
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
      trips_.push_back(&sample);
    }
  }
  if (available && total && *total > 0) {
    out.push_back(Sample{&kMemoryAvailableRatio, {}, *available / *total, "", now});
  }
  if (input_watts && options.power_budget_watts > 0) {
    out.push_back(
        Sample{&kPowerBudgetRatio, {}, *input_watts / options.power_budget_watts, "", now});
  }
  if (!PlanFits()) MakePlan();
  for (const Headroom& headroom : plan_) {
    double celsius = *trips_[headroom.trips.front()]->value;
    for (const std::size_t trip : headroom.trips) celsius = std::min(celsius, *trips_[trip]->value);
    out.push_back(
        Sample{&kTripHeadroom, headroom.labels, celsius - *zones_[headroom.zone]->value, "", now});
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
