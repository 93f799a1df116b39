// HwmonCollector: every sensor of every chip under /sys/class/hwmon.
//
//   edgemond_hwmon_temperature_celsius        tempN_input
//   edgemond_hwmon_temperature_crit_celsius   tempN_crit, when set to a plausible value
//   edgemond_hwmon_voltage_volts              inN_input
//   edgemond_hwmon_current_amperes            currN_input
//   edgemond_hwmon_power_watts                powerN_input (instantaneous)
//   edgemond_hwmon_power_average_watts        powerN_average (averaged by the chip or driver)
//   edgemond_hwmon_energy_joules_total        energyN_input (counter)
//   edgemond_hwmon_fan_rpm                    fanN_input
//   edgemond_hwmon_pwm_ratio                  pwmN / 255
// all with the labels {chip, chip_name, sensor, label}:
//   sensor     the attribute stem: "temp1", "in0", "curr2", "power1"
//   label      the trimmed, UTF-8-sanitized content of <stem>_label; "" when there is none
//   chip_name  the chip's `name` file ("coretemp", "nvme", "ina3221")
//   chip       a stable, unique id of the chip (below)
// powerN_input and powerN_average are distinct metrics because they measure different things and
// summing them would be meaningless; a chip may offer either or both. Thresholds (_min, _max,
// _crit_hyst, alarms) are not exported, except tempN_crit, which the thermal alerts compare with.
//
// Chip ids. hwmonN numbers change between boots, and two chips may share a name (two NVMe drives),
// so chips are named after the device they belong to. From the hwmon directory's `device` link we
// walk up the device tree to the first device on a bus (its `subsystem` link points into
// /sys/bus/...) and use "<bus>/<device name>":
//   /sys/devices/platform/coretemp.0                                  -> "platform/coretemp.0"
//   /sys/devices/pci0000:00/0000:00:1d.0/0000:04:00.0/nvme/nvme0       -> "pci/0000:04:00.0"
//   /sys/devices/platform/bus@0/c240000.i2c/i2c-1/1-0040              -> "i2c/1-0040"
// Bus addresses are fixed by the hardware, so the id survives reboots and renumbering. A chip
// without a `device` link, or whose device sits on no bus (a thermal zone's hwmon mirror under
// /sys/devices/virtual), is "virtual/<name>". A device outside /sys/devices/virtual without any
// `subsystem` link keeps its path below /sys/devices. Ids that still collide get ".1", ".2" in
// hwmonN order. Discovery and naming live in internal/discovery.h (ListHwmonChips), shared with the
// collectors that read particular chips (power_rail, fan, amd_gpu, throttle), so one chip has
// one id in every series.
//
// Layouts. Attributes normally live in hwmonN/; drivers from before the hwmon class put them
// (and `name`) in hwmonN/device/ instead, so when hwmonN/ has no `name`, hwmonN/device/ is read.
//
// Missing values: a read or parse error becomes the reason ("EIO: Input/output error",
// "empty file"), an impossible value "implausible value N". Never 0, never a retry.
//
// Units: raw values are converted once with HwmonScale() (internal/hwmon_parse.h), which also
// knows that the INA3221 reports in4..in7 in microvolts.
//
// Discovery. Chips and their attributes are listed at the first tick, every `rescan_every_ticks`
// ticks, and right after a read fails with ENOENT/ENODEV (a chip went away; the tick is then read
// again once on the new list). Between scans each tick costs one pread per sensor through an fd
// kept open; fds of sensors that survive a rescan stay open.
//
// Collect() returns kNotFound when the machine has no hwmon chips at all.
//
// Thread safety: not thread-safe; Collect() is called from one thread.

#ifndef EDGEMOND_COLLECTORS_HWMON_COLLECTOR_H_
#define EDGEMOND_COLLECTORS_HWMON_COLLECTOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "collectors/internal/hwmon_parse.h"
#include "collectors/internal/rescan.h"
#include "collectors/internal/tick_files.h"

namespace edgemond::collectors {

class HwmonCollector final : public Collector {
 public:
  static constexpr int kDefaultRescanEveryTicks = 60;

  // `fs` is borrowed and must outlive the collector.
  explicit HwmonCollector(const RootedFs& fs, int rescan_every_ticks = kDefaultRescanEveryTicks)
      : HwmonCollector(fs, nullptr, rescan_every_ticks) {}
  // `shared_files`: the runner's files, which power_rail and fan poll too (borrowed, outliving
  // the collector); null for files of its own.
  HwmonCollector(const RootedFs& fs, internal::TickFiles* shared_files,
                 int rescan_every_ticks = kDefaultRescanEveryTicks);

  std::string_view name() const override { return "hwmon"; }
  std::vector<const MetricDesc*> Describe() const override { return Metrics(); }
  Status CollectInto(WallTime now, std::vector<Sample>& out) override;

  static std::vector<const MetricDesc*> Metrics();

  // The chip id for a device path (links resolved, as RealPath returns it), following the rules
  // above. `chip_name` is used for virtual devices. Exposed for tests.
  static std::string ChipIdForDevice(const RootedFs& fs, const std::string& device_path,
                                     const std::string& chip_name);

 private:
  struct Sensor {
    const MetricDesc* desc;
    SeriesLabels labels;  // {chip, chip_name, sensor, label}
    internal::TickFile file;
    internal::HwmonKind kind;
    double scale;  // Raw value times scale is the exported value.
  };
  struct Threshold {
    const MetricDesc* desc;
    SeriesLabels labels;
    double value;
  };

  Status Scan();
  // Appends one sample per sensor and threshold; returns whether some file had vanished.
  bool ReadSensors(WallTime now, std::vector<Sample>& out);

  const RootedFs* fs_;  // Not owned.
  internal::RescanSchedule rescan_;
  internal::CollectorFiles files_;  // Outlives sensors_.
  std::vector<Sensor> sensors_;
  std::vector<Threshold> thresholds_;  // Read at scan time; they change only when set by hand.
  Status scan_status_;
  std::string text_;  // Reused every tick.
};

}  // namespace edgemond::collectors

#endif  // EDGEMOND_COLLECTORS_HWMON_COLLECTOR_H_
