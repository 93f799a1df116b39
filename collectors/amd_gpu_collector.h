// AmdGpuCollector: AMD GPUs driven by amdgpu, from /sys/class/drm/card*/device and the GPU's
// amdgpu hwmon chip (Documentation/gpu/amdgpu/thermal.rst and driver-core.rst).
//
//   edgemond_gpu_utilization_ratio{gpu,name}   device/gpu_busy_percent / 100
//   edgemond_gpu_memory_busy_ratio{gpu}        device/mem_busy_percent / 100 (dGPUs)
//   edgemond_gpu_memory_used_bytes{gpu}        device/mem_info_vram_used
//   edgemond_gpu_memory_total_bytes{gpu}       device/mem_info_vram_total
//   edgemond_gpu_railgated{gpu}                device/power/runtime_status "suspended"
//   edgemond_gpu_power_watts{gpu}              hwmon power1_average, else power1_input (µW)
//   edgemond_gpu_power_limit_watts{gpu}        hwmon power1_cap (µW)
//   edgemond_gpu_temperature_celsius{gpu}      hwmon temp1_input ("edge"; junction and memory
//                                              temperatures are in the hwmon collector's series)
//   edgemond_gpu_frequency_hertz{gpu}          hwmon freq1_input (sclk, Hz)
//   edgemond_gpu_memory_frequency_hertz{gpu}   hwmon freq2_input (mclk, Hz)
//
// Cards: cardN entries only (cardN-<connector> and renderDN are other views of the same GPU),
// with vendor 0x1002. `gpu` is the PCI address ("pci/0000:03:00.0"), the same id the hwmon
// collector gives the GPU's amdgpu chip; `name` is device/product_name where the board has one,
// else "amdgpu <PCI device id>".
//
// A runtime-suspended GPU (a laptop's idle dGPU) is not read at all, because reading most of these
// files wakes it up: utilization is 0 (idle), railgated 1, and the other values are missing with
// the reason "runtime-suspended". On APUs power1_* covers the whole package, CPU included.
//
// Collect() returns kNotFound when no amdgpu device is present.
//
// Thread safety: not thread-safe; Collect() is called from one thread.

#ifndef EDGEMOND_COLLECTORS_AMD_GPU_COLLECTOR_H_
#define EDGEMOND_COLLECTORS_AMD_GPU_COLLECTOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "collectors/internal/rescan.h"

namespace edgemond::collectors {

class AmdGpuCollector final : public Collector {
 public:
  // `fs` is borrowed and must outlive the collector.
  explicit AmdGpuCollector(const RootedFs& fs,
                           int rescan_every_ticks = internal::RescanSchedule::kDefaultEveryTicks);

  std::string_view name() const override { return "amd_gpu"; }
  std::vector<const MetricDesc*> Describe() const override { return Metrics(); }
  Status CollectInto(WallTime now, std::vector<Sample>& out) override;

  static std::vector<const MetricDesc*> Metrics();

 private:
  // One value a GPU offers: which file, its metric, and the factor from raw to base units.
  struct Value {
    const MetricDesc* desc;
    PolledFile file;
    double scale;
    bool utilization;  // A percentage whose labels carry the name.
  };
  struct Gpu {
    std::string device_dir;
    SeriesLabels labels;              // {gpu}
    SeriesLabels utilization_labels;  // {gpu, name}
    std::optional<PolledFile> runtime_status;
    std::vector<Value> values;
  };

  Status Scan();
  bool ReadGpu(Gpu& gpu, WallTime now, std::vector<Sample>& out);
  // Why a raw value that parsed is not a reading, or nullopt when it is one.
  static std::optional<std::string> Problem(const Value& value, std::int64_t raw);

  const RootedFs* fs_;  // Not owned.
  internal::RescanSchedule rescan_;
  std::vector<Gpu> gpus_;
  Status scan_status_;
  std::string text_;
};

}  // namespace edgemond::collectors

#endif  // EDGEMOND_COLLECTORS_AMD_GPU_COLLECTOR_H_
