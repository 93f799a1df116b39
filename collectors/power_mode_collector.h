// PowerModeCollector: a Jetson's power mode (nvpmodel) and whether jetson_clocks pinned its clocks.
// Read passively from files: no nvpmodel or jetson_clocks subprocess, ever.
//
//   edgemond_power_mode_info{id,name}   always 1; the active mode is in the labels
//   edgemond_jetson_clocks_active       1 when every online CPU cluster and the GPU run with
//                                       min == max frequency, else 0
//
// Power mode. /var/lib/nvpmodel/status holds "pmode:NNNN" (the id, zero-padded; later JetPacks add
// "fmode:<fan mode>"), and /etc/nvpmodel.conf (a link to the board's file) names each id with
// "< POWER_MODEL ID=<n> NAME=<name> >". The status file only exists once a mode has been set; until
// then the mode is the config's "< PM_CONFIG DEFAULT=<n> >". An id the config does not name is
// reported with name="". Ids say nothing about performance order (Orin Nano: 15W=0, 25W=1,
// MAXN_SUPER=2, 7W=3). The status file is pread every tick; the config is read again only when the
// id changes or at a rescan.
//
// jetson_clocks. It leaves no flag behind; what it does is set every CPU cluster's scaling_min_freq
// to its scaling_max_freq, and the GPU's devfreq min_freq to max_freq (and the EMC, which needs
// root to see and is not checked). A power mode that pins clocks itself reads as active too.
// Clusters whose CPUs are all offline (empty affected_cpus) are skipped.
//
// Only on Jetson (a Tegra device tree, or nvpmodel files present). Collect() returns kNotFound
// elsewhere.
//
// Thread safety: not thread-safe; Collect() is called from one thread.

#ifndef EDGEMOND_COLLECTORS_POWER_MODE_COLLECTOR_H_
#define EDGEMOND_COLLECTORS_POWER_MODE_COLLECTOR_H_

#include <optional>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "collectors/internal/jetson_parse.h"
#include "collectors/internal/rescan.h"

namespace edgemond::collectors {

class PowerModeCollector final : public Collector {
 public:
  // `fs` is borrowed and must outlive the collector.
  explicit PowerModeCollector(const RootedFs& fs,
                              int rescan_every_ticks = internal::RescanSchedule::kDefaultEveryTicks)
      : PowerModeCollector(fs, nullptr, rescan_every_ticks) {}
  // `shared_files`: the runner's files, of which cpu, throttle and jetson_gpu poll the frequency
  // limits too (borrowed, outliving the collector); null for files of its own.
  PowerModeCollector(const RootedFs& fs, internal::TickFiles* shared_files,
                     int rescan_every_ticks = internal::RescanSchedule::kDefaultEveryTicks);

  std::string_view name() const override { return "power_mode"; }
  std::vector<const MetricDesc*> Describe() const override { return Metrics(); }
  Status CollectInto(WallTime now, std::vector<Sample>& out) override;

  static std::vector<const MetricDesc*> Metrics();

 private:
  // A pair of min/max frequency files that jetson_clocks sets equal.
  struct Limits {
    std::optional<internal::TickFile> affected_cpus;  // CPU policies only.
    internal::TickFile min;
    internal::TickFile max;
  };

  Status Scan();
  void ReadConf();
  void CollectPowerMode(WallTime now, std::vector<Sample>& out);
  void CollectJetsonClocks(WallTime now, std::vector<Sample>& out);

  const RootedFs* fs_;  // Not owned.
  internal::RescanSchedule rescan_;
  internal::CollectorFiles files_;  // Outlives limits_.
  PolledFile status_file_;
  internal::NvpmodelConf conf_;
  bool conf_read_ = false;
  std::optional<int> last_id_;
  // {id, name} of the mode last exported, rebuilt when either changes.
  int mode_labels_id_ = 0;
  std::string mode_labels_name_;
  SeriesLabels mode_labels_;
  std::vector<Limits> limits_;
  Status scan_status_;
  std::string text_;
};

}  // namespace edgemond::collectors

#endif  // EDGEMOND_COLLECTORS_POWER_MODE_COLLECTOR_H_
