// Schedule: which model's scheduled benchmark is due, and whether the device is idle enough to run
// it. Pure: time passed in; no I/O.
//
// A model runs every interval_seconds, counted from the start of its previous run (which may be
// from before a restart: the daemon passes the stored start times). A model that never ran is due
// startup_delay after the daemon started, so that booting is not measured. When several are due,
// the one due longest goes first; one benchmark runs at a time.
//
// Idle: a model with only_when_idle waits until, over the last idle_window, the device's CPU
// utilization (edgemond_cpu_utilization_ratio{cpu="all"}) averaged at most idle_cpu_max_ratio and
// no GPU (edgemond_gpu_utilization_ratio) averaged more than idle_gpu_max_ratio. A device whose
// utilization cannot be read at all counts as idle (there is nothing to wait for).
//
// Thread safety: not thread-safe.

#ifndef EDGEMOND_SELFBENCH_SCHEDULE_H_
#define EDGEMOND_SELFBENCH_SCHEDULE_H_

#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/sample.h"
#include "selfbench/model_spec.h"

namespace edgemond::selfbench {

struct ScheduleSettings {
  std::chrono::seconds startup_delay{120};
  std::chrono::seconds idle_window{60};
  double idle_cpu_max_ratio = 0.2;
  double idle_gpu_max_ratio = 0.2;
};

class Schedule {
 public:
  Schedule(ScheduleSettings settings, SteadyTime start) : settings_(settings), start_(start) {}

  // Replaces the models and settings. `last_started`: the wall time each model's latest stored
  // run started; `now`/`wall_now` convert it to the monotonic clock.
  void SetModels(const std::vector<ModelSpec>& models,
                 const std::map<std::string, WallTime>& last_started, SteadyTime now,
                 WallTime wall_now);
  void SetSettings(ScheduleSettings settings) { settings_ = settings; }

  // Feeds one regular collection (for idleness).
  void Observe(SteadyTime at, const std::vector<Sample>& samples);

  // Whether the device is idle by the settings.
  bool Idle(SteadyTime now) const;

  struct Due {
    std::string model;
    bool waiting_for_idle = false;  // Due, but the device is busy.
  };
  // The model that is due longest, if any; `waiting_for_idle` set when it must wait.
  std::optional<Due> NextDue(SteadyTime now) const;

  // A run of `model` started (scheduled or asked for): its next run is one interval later.
  void Started(const std::string& model, SteadyTime now);

  // When `model`'s next scheduled run is due; empty for models that only run when asked.
  std::optional<SteadyTime> DueAt(const std::string& model) const;

 private:
  struct Entry {
    std::chrono::seconds interval{0};
    bool only_when_idle = true;
    bool enabled = true;
    std::optional<SteadyTime> due;
  };
  struct Load {
    SteadyTime at;
    std::optional<double> cpu;
    std::optional<double> gpu;  // The busiest GPU.
  };

  ScheduleSettings settings_;
  SteadyTime start_;
  std::map<std::string, Entry> models_;
  std::deque<Load> load_;
};

}  // namespace edgemond::selfbench

#endif  // EDGEMOND_SELFBENCH_SCHEDULE_H_
