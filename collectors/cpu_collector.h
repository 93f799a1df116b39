// CpuCollector: utilization per core and for the whole machine from /proc/stat, and the clock
// frequency, its limits and the governor from cpufreq.
//
// Metrics (docs/metrics.md has the full table):
//   edgemond_cpu_utilization_ratio{cpu="all"|"0".."N"}      busy share of the last interval, 0..1
//   edgemond_cpu_frequency_hertz{cpu}                       scaling_cur_freq
//   edgemond_cpu_frequency_min_hertz{cpu}                   scaling_min_freq (active lower limit)
//   edgemond_cpu_frequency_max_hertz{cpu}                   scaling_max_freq (active upper limit)
//   edgemond_cpu_frequency_hardware_max_hertz{cpu}          cpuinfo_max_freq (what the silicon can
//   do) edgemond_cpu_governor_info{cpu,governor}                always 1; the governor is in the
//   label
//
// Utilization. busy = total - (idle + iowait), with total = user + nice + system + idle + iowait +
// irq + softirq + steal over the interval since the previous tick (guest and guest_nice are left
// out: the kernel already counts them in user and nice). iowait counts as idle: the CPU was free
// to run something else. Each column's delta is clamped at 0, because the kernel lets some of them
// (iowait, and idle across hotplug) go backwards. "all" is the sum of the per-core deltas of the
// cores that have two consecutive samples, which equals the kernel's aggregate line in steady state
// and, unlike it, does not jump when a core's counters are frozen or reset by hotplug.
//
// Cores. Every *present* core (/sys/devices/system/cpu/present) gets a series. A core is online if
// it is in /sys/devices/system/cpu/online; when that file cannot be read, cpuN/online decides, and
// a core without that file is online (cores that cannot be unplugged have none). /proc/stat only
// lists online cores.
//
// Missing values, never zeros:
//   "first sample"     the core has no previous sample yet: the first tick, and the first tick
//                      after the core came back online (its counters are re-baselined then)
//   "offline"          the core is present but offline (also for its frequency, when the machine
//                      has cpufreq; its limits and governor are not emitted: an offline core's
//                      policy reads fail with EBUSY)
//   "no ticks elapsed" two reads within the same USER_HZ tick
// A machine without cpufreq (most VMs) simply has no frequency series; that is not an error.
//
// Cost per tick: one pread each of /proc/stat, present and online, plus four preads per cpufreq
// policy (cur, min, max, governor; policies are shared by the cores of a cluster). Files stay
// open; links are resolved again only when the set of cores changes or every
// `rescan_every_ticks` ticks.
//
// Thread safety: not thread-safe; Collect() is called from one thread.

#ifndef EDGEMOND_COLLECTORS_CPU_COLLECTOR_H_
#define EDGEMOND_COLLECTORS_CPU_COLLECTOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "collectors/internal/proc_stat_parse.h"
#include "collectors/internal/rescan.h"
#include "collectors/internal/tick_files.h"

namespace edgemond::collectors {

class CpuCollector final : public Collector {
 public:
  static constexpr int kDefaultRescanEveryTicks = 60;

  // `fs` is borrowed and must outlive the collector.
  explicit CpuCollector(const RootedFs& fs, int rescan_every_ticks = kDefaultRescanEveryTicks)
      : CpuCollector(fs, nullptr, rescan_every_ticks) {}
  // `shared_files`: the runner's files, of which power_mode and throttle poll the cpufreq limits
  // too (borrowed, outliving the collector); null for files of its own.
  CpuCollector(const RootedFs& fs, internal::TickFiles* shared_files,
               int rescan_every_ticks = kDefaultRescanEveryTicks);

  std::string_view name() const override { return "cpu"; }
  std::vector<const MetricDesc*> Describe() const override { return Metrics(); }
  // Fails (the whole collector, this tick) only when /proc/stat cannot be read or parsed.
  Status CollectInto(WallTime now, std::vector<Sample>& out) override;

  static std::vector<const MetricDesc*> Metrics();

 private:
  struct Policy {
    std::string path;  // Device path of the policy directory.
    internal::TickFile cur_khz;
    internal::TickFile min_khz;
    internal::TickFile max_khz;
    internal::TickFile governor;
    Result<std::int64_t> hardware_max_khz = Status::NotFound("not read");  // Read at scan.
    // What this tick read; valid when read_at_tick == the collector's tick count.
    std::uint64_t read_at_tick = 0;
    Result<std::int64_t> cur = Status::NotFound("not read");
    Result<std::int64_t> min = Status::NotFound("not read");
    Result<std::int64_t> max = Status::NotFound("not read");
    Result<std::string> governor_name = Status::NotFound("not read");
  };

  struct Core {
    int cpu = 0;
    std::string label;    // Decimal cpu number, the value of the `cpu` label.
    SeriesLabels labels;  // {cpu}
    // {cpu, governor} for the governor last seen (`governor`); rebuilt when it changes.
    std::string governor;
    SeriesLabels governor_labels;
    bool online = false;
    bool has_baseline = false;
    internal::CpuTimes baseline;
    int policy = -1;  // Index into policies_, or -1 without cpufreq.
    // cpuN/online, polled only when the global online list cannot be read; empty when the core
    // has no such file (it cannot be unplugged).
    std::optional<PolledFile> online_file;
  };

  void RebuildCores(const std::vector<int>& present);
  void ResolvePolicies();
  void ReadPolicy(Policy& policy);
  bool ReadOnline(Core& core, const std::vector<int>* online_list);
  void EmitFrequency(Core& core, WallTime now, std::vector<Sample>& out);

  const RootedFs* fs_;  // Not owned.
  internal::RescanSchedule rescan_;
  internal::CollectorFiles files_;  // Outlives policies_.

  PolledFile stat_file_;
  PolledFile present_file_;
  PolledFile online_file_;

  std::vector<Core> cores_;  // Sorted by cpu.
  const SeriesLabels all_labels_{{"cpu", "all"}};
  std::vector<Policy> policies_;
  bool has_cpufreq_ = false;

  // Scratch buffers reused every tick.
  std::string text_;
  std::vector<internal::CpuTimes> times_;
  std::vector<int> present_;
  std::vector<int> online_;
};

}  // namespace edgemond::collectors

#endif  // EDGEMOND_COLLECTORS_CPU_COLLECTOR_H_
