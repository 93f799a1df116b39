// ThrottleCollector: whether the CPU's clocks are held down, and why, plus the board-level signals
// that hold them down (Raspberry Pi under-voltage). GPUs report their own throttling from the
// collectors that read them (jetson_gpu, nvidia_gpu); internal/throttle.h has the vocabulary.
//
//   edgemond_throttled{component="cpu",reason="frequency_cap"}
//       1 when some online cluster's scaling_max_freq is below its cpuinfo_max_freq: a power mode
//       (nvpmodel), the thermal framework or a user has lowered the ceiling
//   edgemond_throttled{component="cpu",reason="thermal"}
//       1 when a cpufreq cooling device (type "cpufreq-cpuN", or "thermal-cpufreq-N" before
//       Linux 5.x) is in a state above 0, i.e. a thermal zone is cooling the CPU by capping it.
//       Only where such cooling devices exist.
//   edgemond_throttled{component="board",reason="under_voltage"}
//       the Raspberry Pi firmware's under-voltage flag, from the `rpi_volt` hwmon chip's
//       in0_lcrit_alarm (Documentation/hwmon/raspberrypi-hwmon.rst; the firmware throttles the ARM
//       cores while it is set). Only on boards with that chip.
//
// Each series exists whenever its source does, with 0 or 1 every tick; see ThrottleEventTracker
// (throttle_events.h) for turning transitions into events. cpuinfo_max_freq is read at scan time;
// a tick costs a pread of affected_cpus and scaling_max_freq per cluster, cur_state per cpufreq
// cooling device, and the alarm file.
//
// Collect() returns kNotFound when the machine has none of these sources (no cpufreq: a VM).
//
// Thread safety: not thread-safe; Collect() is called from one thread.

#ifndef EDGEMOND_COLLECTORS_THROTTLE_COLLECTOR_H_
#define EDGEMOND_COLLECTORS_THROTTLE_COLLECTOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "collectors/internal/rescan.h"

namespace edgemond::collectors {

class ThrottleCollector final : public Collector {
 public:
  // `fs` is borrowed and must outlive the collector.
  explicit ThrottleCollector(const RootedFs& fs,
                             int rescan_every_ticks = internal::RescanSchedule::kDefaultEveryTicks)
      : ThrottleCollector(fs, nullptr, rescan_every_ticks) {}
  // `shared_files`: the runner's files, of which cpu and power_mode poll the cpufreq limits too
  // (borrowed, outliving the collector); null for files of its own.
  ThrottleCollector(const RootedFs& fs, internal::TickFiles* shared_files,
                    int rescan_every_ticks = internal::RescanSchedule::kDefaultEveryTicks);

  std::string_view name() const override { return "throttle"; }
  std::vector<const MetricDesc*> Describe() const override { return Metrics(); }
  Status CollectInto(WallTime now, std::vector<Sample>& out) override;

  static std::vector<const MetricDesc*> Metrics();

 private:
  struct Policy {
    internal::TickFile affected_cpus;
    internal::TickFile scaling_max;
    std::int64_t hardware_max_khz = 0;
  };

  Status Scan();
  void CollectCpuCap(WallTime now, std::vector<Sample>& out);
  void CollectCpuThermal(WallTime now, std::vector<Sample>& out);
  void CollectUnderVoltage(WallTime now, std::vector<Sample>& out);

  const RootedFs* fs_;  // Not owned.
  internal::RescanSchedule rescan_;
  internal::CollectorFiles files_;  // Outlives policies_.
  std::vector<Policy> policies_;
  std::vector<PolledFile> cooling_states_;
  std::optional<PolledFile> under_voltage_alarm_;
  Status scan_status_;
  // Constant after construction.
  const SeriesLabels cpu_cap_labels_;
  const SeriesLabels cpu_thermal_labels_;
  const SeriesLabels under_voltage_labels_;
  bool rescan_next_tick_ = false;
  std::string text_;
};

}  // namespace edgemond::collectors

#endif  // EDGEMOND_COLLECTORS_THROTTLE_COLLECTOR_H_
