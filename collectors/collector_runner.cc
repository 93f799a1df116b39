#include "collectors/collector_runner.h"

#include <iterator>
#include <utility>

#include "collectors/internal/samples.h"

namespace edgemond::collectors {
namespace {

constexpr MetricDesc kSuccess{"edgemond_collector_success",
                              "Whether the collector's last run succeeded (1) or failed (0)",
                              MetricType::kGauge, ""};
constexpr MetricDesc kDuration{"edgemond_collector_duration_seconds",
                               "How long the collector's last run took", MetricType::kGauge,
                               "seconds"};

}  // namespace

CollectorRunner::CollectorRunner(std::vector<std::unique_ptr<Collector>> collectors,
                                 const Clock& clock)
    : collectors_(std::move(collectors)), clock_(&clock) {
  states_.reserve(collectors_.size());
  for (const auto& collector : collectors_) {
    CollectorState state;
    state.collector = std::string(collector->name());
    labels_.push_back(Labels{{"collector", state.collector}});
    states_.push_back(std::move(state));
  }
}

std::vector<const MetricDesc*> CollectorRunner::Metrics() { return {&kSuccess, &kDuration}; }

std::vector<const MetricDesc*> CollectorRunner::Describe() const {
  std::vector<const MetricDesc*> descs = Metrics();
  for (const auto& collector : collectors_) {
    const std::vector<const MetricDesc*> own = collector->Describe();
    descs.insert(descs.end(), own.begin(), own.end());
  }
  return descs;
}

TickReport CollectorRunner::RunOnce(WallTime now) {
  TickReport report;
  report.samples.reserve(last_sample_count_);
  for (std::size_t i = 0; i < collectors_.size(); ++i) {
    CollectorState& state = states_[i];
    const SteadyTime start = clock_->Now();
    Result<std::vector<Sample>> result = collectors_[i]->Collect(now);
    state.last_duration = clock_->Now() - start;

    const bool was_ok = state.ok;
    const bool first = !state.ran;
    state.ran = true;
    state.ok = result.ok();
    if (result.ok()) {
      state.last_error = Status::Ok();
      std::vector<Sample>& samples = *result;
      report.samples.insert(report.samples.end(), std::make_move_iterator(samples.begin()),
                            std::make_move_iterator(samples.end()));
      if (!first && !was_ok) {
        report.events.push_back({CollectorEvent::Kind::kRecovered, state.collector, Status::Ok()});
      }
    } else {
      state.last_error = result.status();
      if (first || was_ok) {
        report.events.push_back({CollectorEvent::Kind::kFailed, state.collector, result.status()});
      }
    }
    const SeriesLabels& labels = labels_[i];
    report.samples.push_back(internal::ValueSample(kSuccess, labels, state.ok ? 1.0 : 0.0, now));
    report.samples.push_back(internal::ValueSample(
        kDuration, labels, std::chrono::duration<double>(state.last_duration).count(), now));
  }
  last_sample_count_ = report.samples.size();
  return report;
}

}  // namespace edgemond::collectors
