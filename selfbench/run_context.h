// RunContext: what the daemon's regular collections say about the device around one benchmark:
// temperatures and clocks at its start and end, throttling, the power mode, and how busy the rest
// of the device was. It reads the series the collectors produce (docs/metrics.md):
//
//   edgemond_thermal_zone_celsius{zone,type}     temperatures; the hottest zone is the summary
//   edgemond_cpu_frequency_hertz{cpu}            CPU clocks; the mean over online cores
//   edgemond_gpu_frequency_hertz{gpu}            GPU clocks; the mean over GPUs
//   edgemond_emc_frequency_hertz                 the memory controller's clock
//   edgemond_throttled{component,reason}         any 1 from start to end: the run was throttled
//   edgemond_power_mode_info{id,name}            the power mode at the start
//   edgemond_cpu_utilization_ratio{cpu}          "all": how busy the device was during the run
//
// On a busy device a benchmark measures contention as much as the model. The run records the
// whole device's CPU utilization during the run and, subtracting the benchmark's own CPU time,
// what the rest of the device used ("other_cpu_utilization"), so the two can be told apart.
//
// Pure: no I/O, time passed in. Thread safety: not thread-safe.

#ifndef EDGEMOND_SELFBENCH_RUN_CONTEXT_H_
#define EDGEMOND_SELFBENCH_RUN_CONTEXT_H_

#include <optional>
#include <string>
#include <vector>

#include "core/benchmark.h"
#include "core/clock.h"
#include "core/sample.h"

namespace edgemond::selfbench {

class RunContext {
 public:
  // The collection just before the benchmark started.
  void SetStart(const std::vector<Sample>& samples);

  // A collection made while the benchmark ran, or the first one after it ended. The last one
  // observed is the run's "end".
  void Observe(SteadyTime at, const std::vector<Sample>& samples);

  // Fills the run's device fields. `child_start`/`child_end` bound the benchmark process, whose
  // user + system CPU time was `child_cpu_seconds`.
  void Fill(BenchmarkRun& run, SteadyTime child_start, SteadyTime child_end,
            std::optional<double> child_cpu_seconds) const;

  // The power mode of a collection: "<id> <name>", or "" without one.
  static std::string PowerMode(const std::vector<Sample>& samples);

 private:
  struct Snapshot {
    std::vector<BenchmarkReading> readings;  // Value in `start`; `end` unused.
    std::optional<double> max_temperature;
    std::optional<double> cpu_frequency;
    std::optional<double> gpu_frequency;
    std::optional<double> cpu_utilization;  // cpu="all"
    std::optional<int> cores;
    std::vector<std::string> throttled;  // "component/reason" of every edgemond_throttled 1.
    std::string power_mode;
  };
  static Snapshot Take(const std::vector<Sample>& samples);

  std::optional<Snapshot> start_;
  std::vector<std::pair<SteadyTime, Snapshot>> observed_;
};

}  // namespace edgemond::selfbench

#endif  // EDGEMOND_SELFBENCH_RUN_CONTEXT_H_
