#include "collectors/memory_collector.h"

#include <algorithm>
#include <optional>

#include "collectors/internal/meminfo_parse.h"
#include "collectors/internal/samples.h"

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

constexpr double kBytesPerKib = 1024.0;

}  // namespace

MemoryCollector::MemoryCollector(const RootedFs& fs) : meminfo_file_(fs, "/proc/meminfo") {}

std::vector<const MetricDesc*> MemoryCollector::Metrics() {
  return {&kMemTotal, &kMemFree,   &kMemAvailable, &kMemUsed, &kBuffers,
          &kCached,   &kSwapTotal, &kSwapUsed,     &kSwapFree};
}

Result<std::vector<Sample>> MemoryCollector::Collect(WallTime now) {
  EDGEMOND_RETURN_IF_ERROR(meminfo_file_.ReadInto(text_));
  EDGEMOND_ASSIGN_OR_RETURN(const internal::Meminfo meminfo, internal::ParseMeminfo(text_));
  if (!meminfo.mem_total_kib) return Status::Corruption("/proc/meminfo has no MemTotal line");

  std::vector<Sample> out;
  out.reserve(Metrics().size());
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
  return out;
}

}  // namespace edgemond::collectors
