#include "collectors/collector_runner.h"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>

#include "collectors/internal/collector_threads.h"
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
                                 const Clock& clock, std::chrono::nanoseconds timeout)
    : CollectorRunner(nullptr, std::move(collectors), clock, timeout) {}

CollectorRunner::CollectorRunner(std::unique_ptr<internal::TickFiles> files,
                                 std::vector<std::unique_ptr<Collector>> collectors,
                                 const Clock& clock, std::chrono::nanoseconds timeout)
    : threads_(std::make_unique<internal::CollectorThreads>(std::move(files), std::move(collectors),
                                                            clock, timeout)) {
  states_.reserve(threads_->size());
  for (std::size_t i = 0; i < threads_->size(); ++i) {
    CollectorState state;
    state.collector = std::string(threads_->collector(i).name());
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
  for (std::size_t i = 0; i < threads_->size(); ++i) {
    const std::vector<const MetricDesc*> own = threads_->collector(i).Describe();
    descs.insert(descs.end(), own.begin(), own.end());
  }
  return descs;
}

TickReport CollectorRunner::RunOnce(WallTime now, std::size_t capacity) {
  TickReport report;
  report.samples.reserve(std::max(last_sample_count_, capacity));
  const std::vector<internal::CollectionResult>& results = threads_->RunTick(now);
  for (std::size_t i = 0; i < results.size(); ++i) {
    CollectorState& state = states_[i];
    const internal::CollectionResult& result = results[i];
    Status status = result.status;
    state.last_duration = result.duration;

    const CollectorHealth before = state.health;
    state.health = HealthOf(status);
    // A failed collection's samples are not part of the tick.
    if (!state.failing()) {
      std::vector<Sample>& own = threads_->samples(i);
      report.samples.insert(report.samples.end(), std::make_move_iterator(own.begin()),
                            std::make_move_iterator(own.end()));
    }
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
