// EmcCollector: a Jetson's external memory controller (EMC): how fast the DRAM is clocked and how
// busy it is.
//
//   edgemond_emc_frequency_hertz      the EMC clock
//   edgemond_emc_utilization_ratio    memory-controller activity relative to that clock, 0 to 1
//
// Sources, first that exists wins (the order jtop probes them in):
//   frequency    /sys/kernel/debug/bpmp/debug/clk/emc/rate        Xavier, Orin (Hz)
//                /sys/class/devfreq/bwmgr/cur_freq                Thor (Hz)
//                /sys/kernel/debug/clk/override.emc/clk_rate      TX2 (Hz)
//                /sys/kernel/debug/clk/emc/clk_rate               Nano, TX1 (Hz)
//   activity     /sys/kernel/debug/cactmon/mc_all
//                /sys/kernel/debug/bpmp/debug/actmon/mc_all_avg_activity
//                /sys/kernel/actmon_avg_activity/mc_all           Xavier
// utilization = activity / (frequency in kHz), clamped to 0..1. NVIDIA does not document the unit
// of mc_all; this is how jtop and tegrastats relate them, so treat the ratio as best effort.
//
// Privilege. Most of these live in debugfs, which only root can enter. When a source exists but
// cannot be opened, the metric is missing with the reason "needs privilege" (never 0): the daemon
// then shows that running with more privilege would add EMC. When no source exists at all the
// board has no EMC view: no series.
//
// Only on NVIDIA Tegra boards (root `compatible` "nvidia,tegra*"): elsewhere debugfs would be
// just as unreadable, and "needs privilege" would be a lie. Collect() returns kNotFound there, and
// on a Tegra where no source exists.
//
// Thread safety: not thread-safe; Collect() is called from one thread.

#ifndef EDGEMOND_COLLECTORS_EMC_COLLECTOR_H_
#define EDGEMOND_COLLECTORS_EMC_COLLECTOR_H_

#include <optional>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "collectors/internal/rescan.h"

namespace edgemond::collectors {

class EmcCollector final : public Collector {
 public:
  // `fs` is borrowed and must outlive the collector.
  explicit EmcCollector(const RootedFs& fs,
                        int rescan_every_ticks = internal::RescanSchedule::kDefaultEveryTicks);

  std::string_view name() const override { return "emc"; }
  std::vector<const MetricDesc*> Describe() const override { return Metrics(); }
  Status CollectInto(WallTime now, std::vector<Sample>& out) override;

  static std::vector<const MetricDesc*> Metrics();

 private:
  // One value and where it comes from.
  struct Source {
    std::optional<PolledFile> file;  // The first candidate that could be opened.
    bool denied = false;             // No candidate could be opened, one for lack of privilege.
  };

  Status Scan();

  const RootedFs* fs_;  // Not owned.
  internal::RescanSchedule rescan_;
  Source frequency_;
  Source activity_;
  Status scan_status_;
  bool rescan_next_tick_ = false;
  std::string text_;
};

}  // namespace edgemond::collectors

#endif  // EDGEMOND_COLLECTORS_EMC_COLLECTOR_H_
