#include "selfbench/schedule.h"

#include <algorithm>

namespace edgemond::selfbench {

void Schedule::SetModels(const std::vector<ModelSpec>& models,
                         const std::map<std::string, WallTime>& last_started, SteadyTime now,
                         WallTime wall_now) {
  std::map<std::string, Entry> next;
  for (const ModelSpec& spec : models) {
    Entry entry;
    entry.interval = std::chrono::seconds(spec.interval_seconds);
    entry.only_when_idle = spec.only_when_idle;
    entry.enabled = spec.enabled;
    if (spec.enabled && spec.interval_seconds > 0) {
      const SteadyTime earliest = start_ + settings_.startup_delay;
      const auto old = models_.find(spec.name);
      const auto last = last_started.find(spec.name);
      if (old != models_.end() && old->second.due && old->second.interval == entry.interval) {
        entry.due = old->second.due;  // A reload keeps the schedule of an unchanged interval.
      } else if (last != last_started.end()) {
        const auto since =
            std::chrono::duration_cast<SteadyTime::duration>(wall_now - last->second);
        entry.due = std::max(now - since + entry.interval, earliest);
      } else {
        entry.due = std::max(now, earliest);
      }
    }
    next[spec.name] = entry;
  }
  models_ = std::move(next);
}

void Schedule::Observe(SteadyTime at, const std::vector<Sample>& samples) {
  Load load{at, std::nullopt, std::nullopt};
  // A collector's samples of one metric come together: compare the name once per run of them.
  enum class Kind { kOther, kCpu, kGpu };
  const MetricDesc* run_desc = nullptr;
  Kind kind = Kind::kOther;
  for (const Sample& sample : samples) {
    if (sample.desc == nullptr || !sample.value) continue;
    if (sample.desc != run_desc) {
      run_desc = sample.desc;
      kind = sample.desc->name == "edgemond_cpu_utilization_ratio"   ? Kind::kCpu
             : sample.desc->name == "edgemond_gpu_utilization_ratio" ? Kind::kGpu
                                                                     : Kind::kOther;
    }
    if (kind == Kind::kCpu) {
      for (const Label& label : sample.labels) {
        if (label.name == "cpu" && label.value == "all") load.cpu = *sample.value;
      }
    } else if (kind == Kind::kGpu) {
      load.gpu = std::max(load.gpu.value_or(*sample.value), *sample.value);
    }
  }
  load_.push_back(load);
  while (!load_.empty() && load_.front().at < at - settings_.idle_window) load_.pop_front();
}

bool Schedule::Idle(SteadyTime now) const {
  double cpu = 0, gpu = 0;
  int cpu_n = 0, gpu_n = 0;
  for (const Load& load : load_) {
    if (load.at < now - settings_.idle_window) continue;
    if (load.cpu) {
      cpu += *load.cpu;
      ++cpu_n;
    }
    if (load.gpu) {
      gpu += *load.gpu;
      ++gpu_n;
    }
  }
  if (cpu_n > 0 && cpu / cpu_n > settings_.idle_cpu_max_ratio) return false;
  if (gpu_n > 0 && gpu / gpu_n > settings_.idle_gpu_max_ratio) return false;
  return true;
}

std::optional<Schedule::Due> Schedule::NextDue(SteadyTime now) const {
  const std::string* best = nullptr;
  SteadyTime best_due;
  for (const auto& [name, entry] : models_) {
    if (!entry.due || *entry.due > now) continue;
    if (best == nullptr || *entry.due < best_due) {
      best = &name;
      best_due = *entry.due;
    }
  }
  if (best == nullptr) return std::nullopt;
  return Due{*best, models_.at(*best).only_when_idle && !Idle(now)};
}

void Schedule::Started(const std::string& model, SteadyTime now) {
  const auto it = models_.find(model);
  if (it == models_.end() || !it->second.due) return;
  it->second.due = now + it->second.interval;
}

std::optional<SteadyTime> Schedule::DueAt(const std::string& model) const {
  const auto it = models_.find(model);
  if (it == models_.end()) return std::nullopt;
  return it->second.due;
}

}  // namespace edgemond::selfbench
