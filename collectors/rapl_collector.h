// RaplCollector: the energy counters of Intel RAPL (and AMD's, which the same powercap driver
// exposes), under /sys/class/powercap/intel-rapl:*.
//
//   edgemond_energy_joules_total{domain}   the zone's energy counter, wrap-around removed
//   edgemond_power_domain_watts{domain}    its average power over the last interval
//
// `domain` is the zone's `name`, prefixed by its parent zone's for subzones: "package-0",
// "package-0/core", "package-0/uncore", "package-0/dram", "psys". Zone numbers (intel-rapl:0:1)
// are not names. intel-rapl-mmio:* zones are skipped: they are a second view of a package zone
// through MMIO and would count its energy twice.
//
// Wrap-around. energy_uj wraps to 0 after max_energy_range_uj (internal/energy_counter.h); the
// exported counter starts at the first reading and never goes down, so rate() over it is right
// across wraps. The power is the energy of the interval divided by the interval on the injected
// (monotonic) clock; the first tick has none ("first sample"). A failed read keeps the last good
// reading, so the next interval spans the gap correctly; a zone that went away (ENOENT/ENODEV)
// starts over when it is back.
//
// Privilege. energy_uj is readable by root only since Linux 5.10 (the PLATYPUS side channel,
// CVE-2020-8694): unprivileged, both metrics are missing with the reason "needs privilege".
//
// Zones are listed at the first tick, every `rescan_every_ticks` ticks, and at the tick after a
// read failed with ENOENT/ENODEV.
//
// Collect() returns kNotFound when there is no RAPL zone.
//
// Thread safety: not thread-safe; Collect() is called from one thread.

#ifndef EDGEMOND_COLLECTORS_RAPL_COLLECTOR_H_
#define EDGEMOND_COLLECTORS_RAPL_COLLECTOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "collectors/internal/energy_counter.h"
#include "collectors/internal/rescan.h"
#include "core/clock.h"

namespace edgemond::collectors {

class RaplCollector final : public Collector {
 public:
  // `fs` and `clock` are borrowed and must outlive the collector.
  RaplCollector(const RootedFs& fs, const Clock& clock,
                int rescan_every_ticks = internal::RescanSchedule::kDefaultEveryTicks);

  std::string_view name() const override { return "rapl"; }
  std::vector<const MetricDesc*> Describe() const override { return Metrics(); }
  Status CollectInto(WallTime now, std::vector<Sample>& out) override;

  static std::vector<const MetricDesc*> Metrics();

 private:
  struct Zone {
    std::string dir;      // Device path of the zone (links resolved).
    SeriesLabels labels;  // {domain}
    PolledFile energy;
    std::uint64_t max_range_microjoules = 0;
    internal::EnergyCounter counter;
    std::optional<SteadyTime> previous_read;
  };

  Status Scan();
  bool ReadZone(Zone& zone, SteadyTime steady_now, WallTime now, std::vector<Sample>& out);

  const RootedFs* fs_;  // Not owned.
  const Clock* clock_;  // Not owned.
  internal::RescanSchedule rescan_;
  std::vector<Zone> zones_;
  Status scan_status_;
  bool rescan_next_tick_ = false;
  std::string text_;
};

}  // namespace edgemond::collectors

#endif  // EDGEMOND_COLLECTORS_RAPL_COLLECTOR_H_
