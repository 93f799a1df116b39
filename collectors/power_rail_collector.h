// PowerRailCollector: the power rails a Jetson module measures with its INA3221 monitors.
//
//   edgemond_power_input_watts                          the module's input rail (board total)
//   edgemond_power_input_volts, _amperes                its bus voltage and current
//   edgemond_power_rail_watts{rail}                     every other rail
//   edgemond_power_rail_volts{rail}, _amperes{rail}
//   edgemond_power_rail_current_limit_amperes{rail,level}   level "warning" (compared with the
//                                                       chip's average) or "critical"
//                                                       (instantaneous); input rail included
//
// Two driver generations:
//  - JetPack 5/6 (L4T >= 34): the upstream `ina3221` hwmon driver (Documentation/hwmon/
//    ina3221.rst). Channels 1..3: inN_label (the rail), inN_input (bus mV), currN_input (mA),
//    currN_max / currN_crit (mA). It has no power file: watts = volts x amperes. in4..in7 (shunt
//    voltages and their sum) and curr4 (summed current) are not rails and are skipped; so are
//    channels labelled "NC" (not connected, AGX Orin's second chip) and disabled ones
//    (inN_enable 0). An unlabelled channel is named "<chip id>/in<N>".
//  - JetPack 4 (L4T 32): NVIDIA's `ina3221x` IIO driver, an I2C device named "ina3221x" with an
//    iio:deviceN (or, on L4T 28, iio_device) directory: rail_name_K, in_voltageK_input (mV),
//    in_currentK_input (mA), in_powerK_input (mW, computed by the driver), and
//    warn_current_limit_K / crit_current_limit_K, which print a unit ("1000 ma").
//
// The input rail. VDD_IN (Orin, Xavier NX) and POM_5V_IN (Nano, TX1) measure what the whole
// module draws, the other rails included. It is exported only as edgemond_power_input_*, never as
// a rail, so that summing edgemond_power_rail_watts never counts a watt twice. Boards without
// such a rail (AGX Orin) have no edgemond_power_input_watts: edgemond does not make one up by
// adding sub-rails, which cover only part of the module.
//
// Rail names come from the hardware description (labels), never from hwmonN/iio:deviceN numbers;
// a name used twice gets ".1". Limits are read at scan time. Each read of an ina3221x file is an
// I2C transfer; the three reads of a rail come from different conversions, so IIO watts (the
// driver's) and volts x amperes may differ slightly.
//
// Missing values: read errors give the reason ("needs privilege" for the root-only rail files of
// some JetPack 4.6 images); watts computed from V x I are missing with the reason of whichever
// read failed.
//
// Collect() returns kNotFound when the machine has no INA3221.
//
// Thread safety: not thread-safe; Collect() is called from one thread.

#ifndef EDGEMOND_COLLECTORS_POWER_RAIL_COLLECTOR_H_
#define EDGEMOND_COLLECTORS_POWER_RAIL_COLLECTOR_H_

#include <optional>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "collectors/internal/rescan.h"

namespace edgemond::collectors {

class PowerRailCollector final : public Collector {
 public:
  // `fs` is borrowed and must outlive the collector.
  explicit PowerRailCollector(const RootedFs& fs,
                              int rescan_every_ticks = internal::RescanSchedule::kDefaultEveryTicks)
      : PowerRailCollector(fs, nullptr, rescan_every_ticks) {}
  // `shared_files`: the runner's files, which hwmon polls too (borrowed, outliving the
  // collector); null for files of its own.
  PowerRailCollector(const RootedFs& fs, internal::TickFiles* shared_files,
                     int rescan_every_ticks = internal::RescanSchedule::kDefaultEveryTicks);

  std::string_view name() const override { return "power_rail"; }
  std::vector<const MetricDesc*> Describe() const override { return Metrics(); }
  Status CollectInto(WallTime now, std::vector<Sample>& out) override;

  static std::vector<const MetricDesc*> Metrics();

  // Whether a rail name is a module's input rail (VDD_IN, POM_5V_IN). Exposed for tests.
  static bool IsInputRail(std::string_view rail);

 private:
  struct Rail {
    std::string name;
    bool input = false;
    internal::TickFile millivolts;
    internal::TickFile milliamps;
    std::optional<internal::TickFile> milliwatts;  // ina3221x only.
    std::optional<double> warning_amperes;
    std::optional<double> critical_amperes;
    // Set once name and input are final: {rail} ({} for the input), and {rail, level} for the
    // current limits.
    SeriesLabels labels;
    SeriesLabels warning_labels;
    SeriesLabels critical_labels;
  };

  Status Scan();
  void FindHwmonRails(std::vector<Rail>& rails);
  void FindIioRails(std::vector<Rail>& rails);
  // Appends a rail's samples; returns whether a file had vanished.
  bool ReadRail(Rail& rail, WallTime now, std::vector<Sample>& out);

  const RootedFs* fs_;  // Not owned.
  internal::RescanSchedule rescan_;
  internal::CollectorFiles files_;  // Outlives rails_.
  std::vector<Rail> rails_;
  Status scan_status_;
  std::string text_;  // Reused every read.
};

}  // namespace edgemond::collectors

#endif  // EDGEMOND_COLLECTORS_POWER_RAIL_COLLECTOR_H_
