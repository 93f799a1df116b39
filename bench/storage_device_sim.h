// A simulated edge device for the storage benchmark: ~150 series shaped like a Jetson-class
// board under a workload that changes every few minutes.
//
// Values are what the collectors would produce, computed the way they compute them: base units
// converted from the raw integer units the kernel reports (thermal m°C / 1000.0, hwmon raw *
// 1e-3 or 1e-6, PWM raw * (1/255.0), kHz * 1000.0, kB * 1024.0, busy / total jiffies), so they
// carry the kernel's quantization (m°C in steps of 250 or 500, mV/mA integers, kHz frequency
// tables, 100 Hz jiffies, kB of meminfo, µJ counters).
// One flaky sensor fails 2 % of the time (a gap with a reason). Deterministic for a given seed.

#ifndef EDGEMOND_BENCH_STORAGE_DEVICE_SIM_H_
#define EDGEMOND_BENCH_STORAGE_DEVICE_SIM_H_

#include <cstdint>
#include <deque>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/sample.h"

namespace edgemond::bench {

// When the simulation starts: 2026-01-01T00:00:00Z plus 123 ms, since a daemon's ticks are not
// aligned to the second.
inline constexpr std::int64_t kSimulationStartMs = 1767225600123;

struct Reading {
  int series = 0;  // Index into DeviceSimulator::series().
  std::int64_t at_ms = 0;
  std::optional<double> value;  // Empty: the sensor failed this tick.
};

struct SimulatedSeries {
  const MetricDesc* desc = nullptr;
  Labels labels;
};

class DeviceSimulator {
 public:
  DeviceSimulator(int series_count, std::uint64_t seed);

  const std::vector<SimulatedSeries>& series() const { return series_; }

  // One collection tick stamped `tick_ms` (ticks are about 1 s apart; the daemon stamps every
  // sample of a tick with the same wall time). Appends one Reading per series to `out`.
  void Tick(std::int64_t tick_ms, std::vector<Reading>& out);

  // The same readings as Samples for Store::Append.
  std::vector<Sample> ToSamples(const std::vector<Reading>& readings) const;
  // The same, reusing `samples` from the previous tick (labels are not copied again): what a
  // collector hands over costs nothing to build, so a benchmark times the store alone.
  void FillSamples(const std::vector<Reading>& readings, std::vector<Sample>& samples) const;

 private:
  enum class Kind {
    kCpuUtilization,
    kCpuFrequency,
    kMemoryTotal,
    kMemoryAvailable,
    kMemoryUsed,
    kSwapTotal,
    kSwapUsed,
    kThermalZone,
    kRailVoltage,
    kRailCurrent,
    kRailPower,
    kEnergy,
    kFanRpm,
    kPwm,
    kGpuLoad,
    kGpuFrequency,
    kCollectorSuccess,
    kCollectorDuration,
    kBoardTemperature,
    kBoardVoltage,
  };
  struct State {
    Kind kind;
    int index = 0;       // Core, zone, rail, ... number within its kind.
    double level = 0;    // Smoothed physical state (temperature, voltage, ...).
    double counter = 0;  // Energy counters, in µJ.
    double base = 0;     // Nominal value (rail voltage, idle current, ...).
  };

  const MetricDesc* Desc(std::string name, std::string help, MetricType type, std::string unit);
  void Add(Kind kind, int index, const MetricDesc* desc, Labels labels);
  double Value(State& state, double dt_s);

  std::mt19937_64 rng_;
  std::normal_distribution<double> noise_{0.0, 1.0};
  std::uniform_real_distribution<double> uniform_{0.0, 1.0};

  // Workload: a load level held for a random phase length, then a new one.
  double load_ = 0.2;
  double gpu_load_ = 0.0;
  std::int64_t phase_end_ms_ = 0;
  std::int64_t last_tick_ms_ = 0;
  double memory_used_kib_ = 3.1e6;
  int cluster_frequency_index_[3] = {0, 0, 0};
  std::int64_t busy_jiffies_ = 0;  // Summed over the cores in the current tick.
  std::int64_t total_jiffies_ = 0;

  std::deque<std::string> strings_;  // Backing store for MetricDesc string_views.
  std::deque<MetricDesc> descs_;
  std::vector<SimulatedSeries> series_;
  std::vector<State> states_;
};

}  // namespace edgemond::bench

#endif  // EDGEMOND_BENCH_STORAGE_DEVICE_SIM_H_
