// PowerRecorder: the power and energy readings taken at a high rate (10-20 Hz) around one
// benchmark, and their integral over a window: the idle window just before the benchmark and the
// benchmark's timed window.
//
// Sources, by the series the collectors produce (docs/metrics.md):
//   edgemond_power_input_watts                  kind "input": the board's input rail
//   edgemond_power_rail_watts{rail}             kind "rail"
//   edgemond_energy_joules_total{domain}        kind "rapl"  (counter)
//   edgemond_gpu_energy_joules_total{gpu}       kind "gpu"   (counter)
//   edgemond_gpu_power_watts{gpu}               kind "gpu"   (only for a GPU without a counter)
//   edgemond_hwmon_energy_joules_total{...}     kind "hwmon" (counter)
// An energy counter's energy is its increase over the window (linearly interpolated between the
// readings around each end); a power reading's is its integral (trapezoids, the same
// interpolation at the ends). A source has a value only when readings bracket the window.
//
// The input power of the device, in this order of preference:
//   1. the board's input rail: it contains everything else;
//   2. otherwise the sum of the CPU's top-level RAPL domains (psys when the platform has it, else
//      every package-N) and of every GPU;
//   3. otherwise none (the reason says so). hwmon energy counters are reported, never summed:
//      drivers such as amd_energy count the same joules per core and per socket.
//
// Pure: no I/O, time passed in. Thread safety: not thread-safe.

#ifndef EDGEMOND_SELFBENCH_POWER_RECORDER_H_
#define EDGEMOND_SELFBENCH_POWER_RECORDER_H_

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/benchmark.h"
#include "core/clock.h"
#include "core/sample.h"

namespace edgemond::selfbench {

struct PowerSummary {
  std::vector<BenchmarkPowerSource> sources;  // Every source seen, in a stable order.
  std::optional<double> energy_joules;        // Input energy over the window.
  std::optional<double> average_watts;        // Input energy / window.
  std::optional<double> peak_watts;           // Highest input power between two readings.
  std::string method;          // "counter", "integrated" or "counter+integrated"; "" if none.
  std::string missing_reason;  // Why there is no input energy.
};

class PowerRecorder {
 public:
  // Adds the readings of one sampling pass made at `at`; samples of other series are ignored.
  // REQUIRES: `at` does not go backwards between calls.
  void Add(SteadyTime at, const std::vector<Sample>& samples);

  // The sources and the input over [from, to]. REQUIRES: from < to.
  PowerSummary Summarize(SteadyTime from, SteadyTime to) const;

  // Whether any reading of a power or energy source was seen.
  bool empty() const { return series_.empty(); }

  // The first and the last reading time, over every source; empty before any reading.
  std::optional<std::pair<SteadyTime, SteadyTime>> span() const;

  // Most readings kept per series; beyond, every other reading is dropped (the window keeps its
  // span at half the resolution), so a run of hours stays bounded.
  static constexpr std::size_t kMaxPointsPerSeries = 1 << 17;

 private:
  struct Series {
    std::string kind;
    std::string name;
    bool counter = false;
    std::vector<std::pair<SteadyTime, double>> points;
  };

  std::map<std::string, Series> series_;  // By SeriesKey.
};

}  // namespace edgemond::selfbench

#endif  // EDGEMOND_SELFBENCH_POWER_RECORDER_H_
