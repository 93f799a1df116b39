#include "collectors/memory_collector.h"

#include <unistd.h>

#include <algorithm>
#include <optional>

#include "collectors/internal/meminfo_parse.h"
#include "collectors/internal/samples.h"
#include "core/text.h"

namespace edgemond::collectors {
namespace {

constexpr MetricDesc kMemTotal{"edgemond_memory_total_bytes", "Usable physical memory (MemTotal)",
                               MetricType::kGauge, "bytes"};
constexpr MetricDesc kMemFree{"edgemond_memory_free_bytes",
                              "Memory not used for anything (MemFree)", MetricType::kGauge,
                              "bytes"};
constexpr MetricDesc kMemAvailable{
    "edgemond_memory_available_bytes",
    "Memory available for new allocations without swapping (MemAvailable, or an estimate)",
    MetricType::kGauge, "bytes"};
constexpr MetricDesc kMemUsed{"edgemond_memory_used_bytes", "Memory in use: total minus available",
                              MetricType::kGauge, "bytes"};
constexpr MetricDesc kBuffers{"edgemond_memory_buffers_bytes",
                              "Memory in block device buffers (Buffers)", MetricType::kGauge,
                              "bytes"};
constexpr MetricDesc kCached{"edgemond_memory_cached_bytes", "Memory in the page cache (Cached)",
                             MetricType::kGauge, "bytes"};
constexpr MetricDesc kSwapTotal{"edgemond_swap_total_bytes", "Swap space configured (SwapTotal)",
                                MetricType::kGauge, "bytes"};
constexpr MetricDesc kSwapUsed{"edgemond_swap_used_bytes", "Swap space in use", MetricType::kGauge,
                               "bytes"};
constexpr MetricDesc kSwapFree{"edgemond_swap_free_bytes", "Swap space unused (SwapFree)",
                               MetricType::kGauge, "bytes"};

constexpr MetricDesc kSwapIn{"edgemond_swap_in_bytes_total",
                             "Bytes read back from swap (/proc/vmstat pswpin)",
                             MetricType::kCounter, "bytes"};
constexpr MetricDesc kSwapOut{"edgemond_swap_out_bytes_total",
                              "Bytes written to swap (/proc/vmstat pswpout)", MetricType::kCounter,
                              "bytes"};

constexpr double kBytesPerKib = 1024.0;

// The value of one "name value" line of /proc/vmstat.
std::optional<std::uint64_t> VmstatValue(std::string_view text, std::string_view name) {
  for (std::string_view line : SplitLines(text)) {
    const std::vector<std::string_view> fields = SplitFields(line);
    if (fields.size() == 2 && fields[0] == name) {
      auto value = ParseUint64(fields[1]);
      if (value.ok()) return *value;
    }
  }
  return std::nullopt;
}

}  // namespace

MemoryCollector::MemoryCollector(const RootedFs& fs, long page_size_bytes, int rescan_every_ticks)
    : meminfo_file_(fs, "/proc/meminfo"),
      vmstat_file_(fs, "/proc/vmstat"),
      vmstat_rescan_(rescan_every_ticks),
      page_size_bytes_(
          static_cast<double>(page_size_bytes > 0 ? page_size_bytes : ::sysconf(_SC_PAGESIZE))) {}

std::vector<const MetricDesc*> MemoryCollector::Metrics() {
  return {&kMemTotal,  &kMemFree,  &kMemAvailable, &kMemUsed, &kBuffers, &kCached,
          &kSwapTotal, &kSwapUsed, &kSwapFree,     &kSwapIn,  &kSwapOut};
}

Status MemoryCollector::CollectInto(WallTime now, std::vector<Sample>& out) {
  EDGEMOND_RETURN_IF_ERROR(meminfo_file_.ReadInto(text_));
  EDGEMOND_ASSIGN_OR_RETURN(const internal::Meminfo meminfo, internal::ParseMeminfo(text_));
  if (!meminfo.mem_total_kib) return Status::Corruption("/proc/meminfo has no MemTotal line");

  const auto emit = [&](const MetricDesc& desc, std::optional<std::uint64_t> kib) {
    if (kib) {
      out.push_back(internal::ValueSample(desc, {}, static_cast<double>(*kib) * kBytesPerKib, now));
    } else {
      out.push_back(internal::MissingSample(desc, {}, "not in /proc/meminfo", now));
    }
  };
  const std::optional<std::uint64_t> available = internal::AvailableKib(meminfo);
  std::optional<std::uint64_t> used;
  if (available) used = *meminfo.mem_total_kib - std::min(*available, *meminfo.mem_total_kib);
  std::optional<std::uint64_t> swap_used;
  if (meminfo.swap_total_kib && meminfo.swap_free_kib) {
    swap_used = *meminfo.swap_total_kib - std::min(*meminfo.swap_free_kib, *meminfo.swap_total_kib);
  }
  emit(kMemTotal, meminfo.mem_total_kib);
  emit(kMemFree, meminfo.mem_free_kib);
  emit(kMemAvailable, available);
  emit(kMemUsed, used);
  emit(kBuffers, meminfo.buffers_kib);
  emit(kCached, meminfo.cached_kib);
  emit(kSwapTotal, meminfo.swap_total_kib);
  emit(kSwapUsed, swap_used);
  emit(kSwapFree, meminfo.swap_free_kib);
  // An absent /proc/vmstat is looked for again only now and then, not with an open per tick.
  if (vmstat_rescan_.StartTick() || !vmstat_absent_) {
    vmstat_rescan_.Scanned();
    Status vmstat = vmstat_file_.ReadInto(text_);
    vmstat_absent_ = vmstat.IsNotFound();
    AppendSwapCounters(vmstat, now, out);
  }
  return Status::Ok();
}

void MemoryCollector::AppendSwapCounters(const Status& vmstat, WallTime now,
                                         std::vector<Sample>& out) const {
  if (vmstat.ok()) {
    for (const auto& [desc, name] : {std::pair{&kSwapIn, "pswpin"}, {&kSwapOut, "pswpout"}}) {
      if (const auto pages = VmstatValue(text_, name)) {
        out.push_back(
            internal::ValueSample(*desc, {}, static_cast<double>(*pages) * page_size_bytes_, now));
      } else {
        out.push_back(internal::MissingSample(*desc, {}, "not in /proc/vmstat", now));
      }
    }
  } else if (!vmstat.IsNotFound()) {
    out.push_back(internal::MissingSample(kSwapIn, {}, std::string(vmstat.message()), now));
    out.push_back(internal::MissingSample(kSwapOut, {}, std::string(vmstat.message()), now));
  }
}

}  // namespace edgemond::collectors
