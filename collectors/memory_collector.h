// MemoryCollector: system memory and swap from /proc/meminfo, in bytes ("kB" there is KiB).
//
//   edgemond_memory_total_bytes       MemTotal
//   edgemond_memory_free_bytes        MemFree (completely unused; usually small, not what to alert
//   on) edgemond_memory_available_bytes   MemAvailable: what can be allocated without swapping. On
//                                     kernels before 3.14 it is estimated (see AvailableKib() in
//                                     internal/meminfo_parse.h for the formula)
//   edgemond_memory_used_bytes        MemTotal - available: the memory applications hold, cache
//                                     that could be dropped not included
//   edgemond_memory_buffers_bytes     Buffers
//   edgemond_memory_cached_bytes      Cached (page cache, tmpfs included; not SReclaimable)
//   edgemond_swap_total_bytes         SwapTotal
//   edgemond_swap_used_bytes          SwapTotal - SwapFree
//   edgemond_swap_free_bytes          SwapFree
//   edgemond_swap_in_bytes_total      /proc/vmstat pswpin x page size: pages read back from swap
//   edgemond_swap_out_bytes_total     /proc/vmstat pswpout x page size: pages written to swap
//                                     (a sustained swap-in rate is what thrashing looks like)
// A line the kernel does not print becomes a missing value with the reason
// "not in /proc/meminfo". Without /proc/vmstat (a tree without it) the swap counters are left
// out, and the file is looked for again only every `rescan_every_ticks` collections. Cost per
// tick: one pread each of /proc/meminfo and /proc/vmstat through open fds.
//
// Thread safety: not thread-safe; Collect() is called from one thread.

#ifndef EDGEMOND_COLLECTORS_MEMORY_COLLECTOR_H_
#define EDGEMOND_COLLECTORS_MEMORY_COLLECTOR_H_

#include <string>
#include <vector>

#include "collectors/collector.h"
#include "collectors/internal/rescan.h"

namespace edgemond::collectors {

class MemoryCollector final : public Collector {
 public:
  // `fs` is borrowed and must outlive the collector.
  // `page_size_bytes` converts /proc/vmstat's page counts (the kernel's PAGE_SIZE: 4 KiB, or
  // 16/64 KiB on some arm64 kernels); 0 reads it from this machine (sysconf).
  explicit MemoryCollector(const RootedFs& fs, long page_size_bytes = 0,
                           int rescan_every_ticks = internal::RescanSchedule::kDefaultEveryTicks);

  std::string_view name() const override { return "memory"; }
  std::vector<const MetricDesc*> Describe() const override { return Metrics(); }
  // Fails when /proc/meminfo cannot be read or parsed, or has no MemTotal.
  Status CollectInto(WallTime now, std::vector<Sample>& out) override;

  static std::vector<const MetricDesc*> Metrics();

 private:
  // Appends the swap counters from text_, which holds /proc/vmstat when `vmstat` is OK.
  void AppendSwapCounters(const Status& vmstat, WallTime now, std::vector<Sample>& out) const;

  PolledFile meminfo_file_;
  PolledFile vmstat_file_;
  bool vmstat_absent_ = false;
  internal::RescanSchedule vmstat_rescan_;
  const double page_size_bytes_;
  std::string text_;  // Reused every tick.
};

}  // namespace edgemond::collectors

#endif  // EDGEMOND_COLLECTORS_MEMORY_COLLECTOR_H_
