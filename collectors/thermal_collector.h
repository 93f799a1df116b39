// ThermalCollector: every thermal zone under /sys/class/thermal.
//
//   edgemond_thermal_zone_celsius{zone,type}                       the zone's temperature
//   edgemond_thermal_zone_trip_celsius{zone,type,trip,trip_type}   its passive/hot/critical trips
//
// Identity. Zone numbers (thermal_zoneN) follow probe order and change between boots and kernel
// versions, so they name no series. `type` is the kernel's name for the zone ("cpu-thermal",
// "acpitz", "x86_pkg_temp"); `zone` is the type made unique: the first zone of a type is named
// after it, later zones of the same type (in zone-number order) get ".1", ".2" ("acpitz",
// "acpitz.1"). `zone` is therefore stable as long as the zones of one type keep their relative
// order, which they do because one driver registers them.
//
// Trips. trip is the trip point's index in the zone, trip_type its kind. Only passive, hot and
// critical trips with a plausible temperature are exported (see IsExportedTrip() in
// internal/thermal_parse.h); they are read at each rescan and re-emitted every tick, so that the
// alert "zone near its trip point" can compare two series of the same tick.
//
// Missing values, never zeros and never a retry loop:
//   "disabled"                           `mode` reads "disabled" (the temperature is not read)
//   "placeholder (reports a constant)"   NVIDIA's PMIC-Die zone (Nano, TX1, TX2, Xavier), which
//                                        reads a fixed 100 or 50 °C; not read
//   "sensor offline (reads -256000)"     NVIDIA BPMP's value for an absent or gated sensor
//   "implausible value N (...)"          outside -100..200 °C
//   "EAGAIN: ...", "EIO: ...", ...       the read failed (Orin Nano CV zones return EAGAIN)
//
// Discovery. The zone list is read at the first tick, every `rescan_every_ticks` ticks and right
// after a read fails with ENOENT/ENODEV (the zone went away); otherwise each tick costs one pread
// of `temp` (and of `mode` where it exists) per zone, through fds kept open.
//
// Collect() returns kNotFound when the machine has no thermal zones.
//
// Thread safety: not thread-safe; Collect() is called from one thread.

#ifndef EDGEMOND_COLLECTORS_THERMAL_COLLECTOR_H_
#define EDGEMOND_COLLECTORS_THERMAL_COLLECTOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "collectors/internal/rescan.h"
#include "collectors/internal/tick_files.h"

namespace edgemond::collectors {

class ThermalCollector final : public Collector {
 public:
  static constexpr int kDefaultRescanEveryTicks = 60;

  // `fs` is borrowed and must outlive the collector.
  explicit ThermalCollector(const RootedFs& fs, int rescan_every_ticks = kDefaultRescanEveryTicks)
      : ThermalCollector(fs, nullptr, rescan_every_ticks) {}
  // `shared_files`: the runner's files, of which jetson_gpu polls a zone's temp too (borrowed,
  // outliving the collector); null for files of its own.
  ThermalCollector(const RootedFs& fs, internal::TickFiles* shared_files,
                   int rescan_every_ticks = kDefaultRescanEveryTicks);

  std::string_view name() const override { return "thermal"; }
  std::vector<const MetricDesc*> Describe() const override { return Metrics(); }
  Status CollectInto(WallTime now, std::vector<Sample>& out) override;

  static std::vector<const MetricDesc*> Metrics();

 private:
  struct Trip {
    int index = 0;
    SeriesLabels labels;
    double celsius = 0;
  };
  struct Zone {
    SeriesLabels labels;  // {zone, type}
    internal::TickFile temp;
    std::optional<PolledFile> mode;
    std::vector<Trip> trips;
    bool placeholder = false;  // Not read: see internal::IsPlaceholderZone().
  };

  Status Scan();
  // Appends one sample per zone and its trips; returns whether some file had vanished.
  bool ReadZones(WallTime now, std::vector<Sample>& out);

  const RootedFs* fs_;  // Not owned.
  internal::RescanSchedule rescan_;
  internal::CollectorFiles files_;  // Outlives zones_.
  std::vector<Zone> zones_;
  Status scan_status_;  // The last scan's error; OK when it found zones.
  std::string text_;    // Reused every tick.
};

}  // namespace edgemond::collectors

#endif  // EDGEMOND_COLLECTORS_THERMAL_COLLECTOR_H_
