// Parsing of the CPU lines of /proc/stat (proc(5)).
//
//   cpu  4705 356 584 3699 23 23 0 0 0 0      <- aggregate over all possible CPUs
//   cpu0 1393 280 290 1211 6 15 0 0 0 0       <- one line per *online* CPU
//   intr ...
//
// Columns are user nice system idle iowait irq softirq steal guest guest_nice, in USER_HZ ticks
// (100 per second on the architectures we run on). Kernels older than 2.6.33 print fewer columns;
// the absent ones read as 0. guest and guest_nice are already included in user and nice.

#ifndef EDGEMOND_COLLECTORS_INTERNAL_PROC_STAT_PARSE_H_
#define EDGEMOND_COLLECTORS_INTERNAL_PROC_STAT_PARSE_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace edgemond::collectors::internal {

struct CpuTimes {
  static constexpr int kAggregate = -1;

  int cpu = kAggregate;  // CPU number, or kAggregate for the "cpu" line.
  std::uint64_t user_ticks = 0;
  std::uint64_t nice_ticks = 0;
  std::uint64_t system_ticks = 0;
  std::uint64_t idle_ticks = 0;
  std::uint64_t iowait_ticks = 0;
  std::uint64_t irq_ticks = 0;
  std::uint64_t softirq_ticks = 0;
  std::uint64_t steal_ticks = 0;
  std::uint64_t guest_ticks = 0;       // Already counted in user_ticks.
  std::uint64_t guest_nice_ticks = 0;  // Already counted in nice_ticks.

  friend bool operator==(const CpuTimes&, const CpuTimes&) = default;
};

// Parses every "cpu" line at the top of /proc/stat into `out` (cleared first; its capacity is
// reused, which is why this is an out-parameter: it runs every tick). Parsing stops at the first
// line that is not a cpu line. Returns kCorruption if there is no aggregate line, a cpu line is
// malformed (fewer than 4 columns, a non-number), or the CPU numbers do not ascend.
Status ParseProcStat(std::string_view text, std::vector<CpuTimes>& out);

}  // namespace edgemond::collectors::internal

#endif  // EDGEMOND_COLLECTORS_INTERNAL_PROC_STAT_PARSE_H_
