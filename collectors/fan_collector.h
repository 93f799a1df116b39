// FanCollector: the fans of boards whose fan drivers the hwmon ABI does not describe fully
// (Jetson, Raspberry Pi 5), as one series per fan rather than per hwmon chip.
//
//   edgemond_fan_pwm_ratio{fan}   duty cycle the fan is driven at, 0 to 1 (raw 0..255)
//   edgemond_fan_rpm{fan}         measured speed, where a tachometer is wired
//
// Three layouts:
//  - upstream `pwm-fan` (JetPack 5/6, Raspberry Pi 5): an hwmon chip named "pwmfan" with pwm1 and,
//    when the driver reads the tachometer itself, fan1_input.
//  - Jetson JetPack 5/6 tachometer: a separate hwmon chip named "pwm_tach"
//    (generic-pwm-tachometer) whose speed is in a non-standard `rpm` file (or fan1_input). It is
//    joined to the pwm-fan of the same device, or, as on every Jetson devkit, to the only fan
//    without a tachometer when there is exactly one of each; otherwise it is a fan of its own.
//  - NVIDIA's L4T 32 `pwm-fan` driver (JetPack 4): a platform device (pwm-fan) with non-standard
//    files target_pwm (0..255) and rpm_measured.
// `fan` is the name of the fan's device ("pwm-fan"), unique (".1") when several share one; never
// an hwmonN number.
//
// A tachometer that reads 0 while the fan is driven may just be unconnected (common on the Nano):
// edgemond reports what the hardware says.
//
// Fans found the standard way on other chips (amdgpu, dell_smm, nct6775) are the hwmon
// collector's edgemond_hwmon_fan_rpm and edgemond_hwmon_pwm_ratio.
//
// Collect() returns kNotFound when none of these fans is present.
//
// Thread safety: not thread-safe; Collect() is called from one thread.

#ifndef EDGEMOND_COLLECTORS_FAN_COLLECTOR_H_
#define EDGEMOND_COLLECTORS_FAN_COLLECTOR_H_

#include <optional>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "collectors/internal/rescan.h"

namespace edgemond::collectors {

class FanCollector final : public Collector {
 public:
  // `fs` is borrowed and must outlive the collector.
  explicit FanCollector(const RootedFs& fs,
                        int rescan_every_ticks = internal::RescanSchedule::kDefaultEveryTicks)
      : FanCollector(fs, nullptr, rescan_every_ticks) {}
  // `shared_files`: the runner's files, which hwmon polls too (borrowed, outliving the
  // collector); null for files of its own.
  FanCollector(const RootedFs& fs, internal::TickFiles* shared_files,
               int rescan_every_ticks = internal::RescanSchedule::kDefaultEveryTicks);

  std::string_view name() const override { return "fan"; }
  std::vector<const MetricDesc*> Describe() const override { return Metrics(); }
  Status CollectInto(WallTime now, std::vector<Sample>& out) override;

  static std::vector<const MetricDesc*> Metrics();

 private:
  struct Fan {
    std::string name;
    std::string device_path;  // For joining a tachometer; "" when unknown.
    std::optional<internal::TickFile> pwm;
    std::optional<internal::TickFile> rpm;
    SeriesLabels labels;  // {fan}, set once the name is final.
  };

  Status Scan();
  bool ReadFan(Fan& fan, WallTime now, std::vector<Sample>& out);

  const RootedFs* fs_;  // Not owned.
  internal::RescanSchedule rescan_;
  internal::CollectorFiles files_;  // Outlives fans_.
  std::vector<Fan> fans_;
  Status scan_status_;
  std::string text_;
};

}  // namespace edgemond::collectors

#endif  // EDGEMOND_COLLECTORS_FAN_COLLECTOR_H_
