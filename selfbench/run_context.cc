#include "selfbench/run_context.h"

#include <algorithm>
#include <set>

namespace edgemond::selfbench {
namespace {

bool IsReading(std::string_view metric) {
  return metric == "edgemond_thermal_zone_celsius" || metric == "edgemond_cpu_frequency_hertz" ||
         metric == "edgemond_gpu_frequency_hertz" || metric == "edgemond_emc_frequency_hertz";
}

std::optional<double> Mean(double sum, int count) {
  if (count == 0) return std::nullopt;
  return sum / count;
}

}  // namespace

RunContext::Snapshot RunContext::Take(const std::vector<Sample>& samples) {
  Snapshot snapshot;
  double cpu_sum = 0, gpu_sum = 0;
  int cpu_count = 0, gpu_count = 0, cores = 0;
  for (const Sample& sample : samples) {
    if (sample.desc == nullptr) continue;
    const std::string_view metric = sample.desc->name;
    if (IsReading(metric)) {
      snapshot.readings.push_back(
          BenchmarkReading{std::string(metric), sample.labels, sample.value, std::nullopt});
    }
    if (metric == "edgemond_power_mode_info" && sample.value) {
      snapshot.power_mode = std::string(LabelValue(sample.labels, "id")) + " " +
                            std::string(LabelValue(sample.labels, "name"));
    }
    if (metric == "edgemond_cpu_utilization_ratio") {
      const std::string_view cpu = LabelValue(sample.labels, "cpu");
      if (cpu == "all") {
        snapshot.cpu_utilization = sample.value;
      } else if (sample.value || sample.missing_reason != "offline") {
        ++cores;
      }
    }
    if (!sample.value) continue;
    const double value = *sample.value;
    if (metric == "edgemond_thermal_zone_celsius") {
      snapshot.max_temperature = std::max(snapshot.max_temperature.value_or(value), value);
    } else if (metric == "edgemond_cpu_frequency_hertz") {
      cpu_sum += value;
      ++cpu_count;
    } else if (metric == "edgemond_gpu_frequency_hertz") {
      gpu_sum += value;
      ++gpu_count;
    } else if (metric == "edgemond_throttled" && value >= 0.5) {
      snapshot.throttled.push_back(std::string(LabelValue(sample.labels, "component")) + "/" +
                                   std::string(LabelValue(sample.labels, "reason")));
    }
  }
  snapshot.cpu_frequency = Mean(cpu_sum, cpu_count);
  snapshot.gpu_frequency = Mean(gpu_sum, gpu_count);
  if (cores > 0) snapshot.cores = cores;
  return snapshot;
}

std::string RunContext::PowerMode(const std::vector<Sample>& samples) {
  return Take(samples).power_mode;
}

void RunContext::SetStart(const std::vector<Sample>& samples) { start_ = Take(samples); }

void RunContext::Observe(SteadyTime at, const std::vector<Sample>& samples) {
  observed_.emplace_back(at, Take(samples));
}

void RunContext::Fill(BenchmarkRun& run, SteadyTime child_start, SteadyTime child_end,
                      std::optional<double> child_cpu_seconds) const {
  const Snapshot* start = start_ ? &*start_ : nullptr;
  const Snapshot* end = observed_.empty() ? start : &observed_.back().second;
  if (start == nullptr) return;

  run.power_mode = start->power_mode;
  run.max_temperature_start_celsius = start->max_temperature;
  run.cpu_frequency_start_hertz = start->cpu_frequency;
  run.gpu_frequency_start_hertz = start->gpu_frequency;
  run.max_temperature_end_celsius = end->max_temperature;
  run.cpu_frequency_end_hertz = end->cpu_frequency;
  run.gpu_frequency_end_hertz = end->gpu_frequency;
  run.cpu_cores = end->cores ? end->cores : start->cores;

  // Readings: the start's, with the end's value of the same series; series seen only at the end
  // are added.
  run.readings = start->readings;
  for (const BenchmarkReading& reading : end->readings) {
    const auto same = std::find_if(run.readings.begin(), run.readings.end(), [&](const auto& r) {
      return r.metric == reading.metric && r.labels == reading.labels;
    });
    if (same != run.readings.end()) {
      same->end = reading.start;
    } else {
      run.readings.push_back(
          BenchmarkReading{reading.metric, reading.labels, std::nullopt, reading.start});
    }
  }

  std::set<std::string> throttled(start->throttled.begin(), start->throttled.end());
  for (const auto& [at, snapshot] : observed_) {
    throttled.insert(snapshot.throttled.begin(), snapshot.throttled.end());
  }
  run.throttled = !throttled.empty();
  run.throttle_reasons.assign(throttled.begin(), throttled.end());

  // Each collection's utilization covers the interval before it: those made while the child ran.
  double sum = 0;
  int count = 0;
  for (const auto& [at, snapshot] : observed_) {
    if (at > child_start && at <= child_end + std::chrono::milliseconds(1) &&
        snapshot.cpu_utilization) {
      sum += *snapshot.cpu_utilization;
      ++count;
    }
  }
  run.system_cpu_utilization = Mean(sum, count);
  const double wall = std::chrono::duration<double>(child_end - child_start).count();
  if (run.system_cpu_utilization && child_cpu_seconds && run.cpu_cores && wall > 0) {
    const double own = *child_cpu_seconds / (wall * *run.cpu_cores);
    run.other_cpu_utilization = std::max(0.0, *run.system_cpu_utilization - own);
  }
}

}  // namespace edgemond::selfbench
