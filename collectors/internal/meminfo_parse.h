// Parsing of /proc/meminfo (proc(5)): lines "Key:   value kB". "kB" means KiB. Only the fields
// edgemond uses are kept; each is optional because the set of lines depends on the kernel version
// and configuration (MemAvailable appeared in 3.14, SReclaimable in 2.6.19, Active(file) in
// 2.6.28).

#ifndef EDGEMOND_COLLECTORS_INTERNAL_MEMINFO_PARSE_H_
#define EDGEMOND_COLLECTORS_INTERNAL_MEMINFO_PARSE_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/result.h"

namespace edgemond::collectors::internal {

struct Meminfo {
  std::optional<std::uint64_t> mem_total_kib;
  std::optional<std::uint64_t> mem_free_kib;
  std::optional<std::uint64_t> mem_available_kib;
  std::optional<std::uint64_t> buffers_kib;
  std::optional<std::uint64_t> cached_kib;
  std::optional<std::uint64_t> swap_total_kib;
  std::optional<std::uint64_t> swap_free_kib;
  std::optional<std::uint64_t> active_file_kib;
  std::optional<std::uint64_t> inactive_file_kib;
  std::optional<std::uint64_t> s_reclaimable_kib;

  friend bool operator==(const Meminfo&, const Meminfo&) = default;
};

// Parses the whole file. Unknown keys are skipped; a known key whose value does not parse is
// kCorruption (a truncated or garbled file must not turn into a wrong number).
Result<Meminfo> ParseMeminfo(std::string_view text);

// MemAvailable as this kernel reports it, or, on kernels before 3.14 that lack the line, an
// estimate built the way the kernel builds it: free memory plus the page cache and reclaimable
// slab that could be dropped without swapping:
//   MemFree + Active(file) + Inactive(file) + SReclaimable
// (falling back to MemFree + Buffers + Cached when the file LRU lines are absent too, as free(1)
// did before MemAvailable existed). The kernel also subtracts the zones' low watermarks, which
// /proc/meminfo does not show, so the estimate is slightly optimistic. Either is capped at
// MemTotal. Empty when both MemAvailable and MemFree are absent.
std::optional<std::uint64_t> AvailableKib(const Meminfo& meminfo);

}  // namespace edgemond::collectors::internal

#endif  // EDGEMOND_COLLECTORS_INTERNAL_MEMINFO_PARSE_H_
