#include "collectors/collector_runner.h"

#include <algorithm>
#include <cstddef>
#include <utility>

#include "collectors/internal/samples.h"
#include "collectors/internal/tick_files.h"

namespace edgemond::collectors {
namespace {

constexpr MetricDesc kSuccess{"edgemond_collector_success",
                              "Whether the collector's last run succeeded (1) or failed (0); "
                              "finding no hardware of its kind is a success",
                              MetricType::kGauge, ""};
constexpr MetricDesc kHardwarePresent{
    "edgemond_collector_hardware_present",
    "Whether the collector's last run read hardware (1) or found none of its kind here (0)",
    MetricType::kGauge, ""};
constexpr MetricDesc kDuration{"edgemond_collector_duration_seconds",
                               "How long the collector's last run took", MetricType::kGauge,
                               "seconds"};

CollectorHealth HealthOf(const Status& status) {
  if (status.ok()) return CollectorHealth::kOk;
  return status.IsNotFound() ? CollectorHealth::kNoHardware : CollectorHealth::kFailing;
}

}  // namespace

CollectorRunner::CollectorRunner(std::vector<std::unique_ptr<Collector>> collectors,
                                 const Clock& clock)
    : CollectorRunner(nullptr, std::move(collectors), clock) {}

CollectorRunner::CollectorRunner(std::unique_ptr<internal::TickFiles> files,
                                 std::vector<std::unique_ptr<Collector>> collectors,
                                 const Clock& clock)
    : files_(std::move(files)), collectors_(std::move(collectors)), clock_(&clock) {
  states_.reserve(collectors_.size());
  for (const auto& collector : collectors_) {
    CollectorState state;
    state.collector = std::string(collector->name());
    labels_.push_back(Labels{{"collector", state.collector}});
    states_.push_back(std::move(state));
  }
}

CollectorRunner::~CollectorRunner() = default;

std::string_view CollectorHealthName(CollectorHealth health) {
  switch (health) {
    case CollectorHealth::kPending:
      return "pending";
    case CollectorHealth::kOk:
      return "ok";
    case CollectorHealth::kNoHardware:
      return "no_hardware";
    case CollectorHealth::kFailing:
      return "failing";
  }
  return "pending";
}

std::vector<const MetricDesc*> CollectorRunner::Metrics() {
  return {&kSuccess, &kHardwarePresent, &kDuration};
}

std::vector<const MetricDesc*> CollectorRunner::Describe() const {
  std::vector<const MetricDesc*> descs = Metrics();
  for (const auto& collector : collectors_) {
    const std::vector<const MetricDesc*> own = collector->Describe();
    descs.insert(descs.end(), own.begin(), own.end());
  }
  return descs;
}

TickReport CollectorRunner::RunOnce(WallTime now, std::size_t capacity) {
  TickReport report;
  report.samples.reserve(std::max(last_sample_count_, capacity));
  if (files_) files_->StartTick();
  for (std::size_t i = 0; i < collectors_.size(); ++i) {
    CollectorState& state = states_[i];
    const std::size_t first_sample = report.samples.size();
    const SteadyTime start = clock_->Now();
    Status status = collectors_[i]->CollectInto(now, report.samples);
    state.last_duration = clock_->Now() - start;

    const CollectorHealth before = state.health;
    state.health = HealthOf(status);
    // A failed collection's samples are not part of the tick.
    if (state.failing()) report.samples.resize(first_sample);
    if (state.health != before &&
        (before != CollectorHealth::kPending || state.health == CollectorHealth::kFailing)) {
      report.events.push_back({state.collector, before, state.health, status});
    }
    state.last_error = std::move(status);
    const SeriesLabels& labels = labels_[i];
    report.samples.push_back(
        internal::ValueSample(kSuccess, labels, state.failing() ? 0.0 : 1.0, now));
    if (state.failing()) {
      report.samples.push_back(
          internal::MissingSample(kHardwarePresent, labels, state.last_error.ToString(), now));
    } else {
      report.samples.push_back(internal::ValueSample(
          kHardwarePresent, labels, state.health == CollectorHealth::kOk ? 1.0 : 0.0, now));
    }
    report.samples.push_back(internal::ValueSample(
        kDuration, labels, std::chrono::duration<double>(state.last_duration).count(), now));
  }
  last_sample_count_ = report.samples.size();
  return report;
}

}  // namespace edgemond::collectors
