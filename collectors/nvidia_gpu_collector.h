// NvidiaGpuCollector: NVIDIA discrete GPUs through NVML (libnvidia-ml.so.1), loaded at run time.
//
//   edgemond_gpu_utilization_ratio{gpu,name}      nvmlDeviceGetUtilizationRates .gpu (%)
//   edgemond_gpu_memory_busy_ratio{gpu}           .memory (%): memory controller busy time
//   edgemond_gpu_memory_used_bytes{gpu}           nvmlDeviceGetMemoryInfo .used
//   edgemond_gpu_memory_total_bytes{gpu}          .total
//   edgemond_gpu_power_watts{gpu}                 nvmlDeviceGetPowerUsage (mW; a 1 s average on
//                                                 Ampere and later)
//   edgemond_gpu_power_limit_watts{gpu}           nvmlDeviceGetEnforcedPowerLimit (mW)
//   edgemond_gpu_energy_joules_total{gpu}         nvmlDeviceGetTotalEnergyConsumption (mJ since the
//                                                 driver loaded; Volta and later)
//   edgemond_gpu_temperature_celsius{gpu}         nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU)
//   edgemond_gpu_frequency_hertz{gpu}             nvmlDeviceGetClockInfo(NVML_CLOCK_SM) (MHz)
//   edgemond_gpu_frequency_hardware_max_hertz{gpu} nvmlDeviceGetMaxClockInfo(NVML_CLOCK_SM)
//   edgemond_gpu_memory_frequency_hertz{gpu}      nvmlDeviceGetClockInfo(NVML_CLOCK_MEM)
//   edgemond_throttled{component="gpu:<gpu>",reason}
//       nvmlDeviceGetCurrentClocksEventReasons (ThrottleReasons before driver 535), one series per
//       reason: sw_power_cap, hw_slowdown, sw_thermal_slowdown, hw_thermal_slowdown,
//       hw_power_brake, sync_boost, applications_clocks, display_clocks. "GPU idle" is not a
//       throttle and is left out.
//
// `gpu` is "pci/<domain:bus:device.function>" from nvmlDeviceGetPciInfo_v3, the id every other
// collector gives the same PCI device ("nvml/<index>" if NVML will not say). Integrated Jetson
// GPUs, which JetPack 5/6's NVML lists as "... (nvgpu)" and mostly answers NOT_SUPPORTED for, are
// left to the jetson_gpu collector.
//
// Loading. The library is loaded with dlopen at the first tick; a machine without it (or without
// the NVIDIA driver) has no NVIDIA GPU: Collect() returns kNotFound, which the daemon logs at
// debug, and loading is tried again every `rescan_every_ticks` ticks (a driver installed later is
// picked up). NVML is initialised once and device handles are kept; nothing is re-initialised per
// tick. `library` is the name or path given to dlopen: "libnvidia-ml.so.1" normally; tests point
// it at a fake library with the same ABI.
//
// Errors, per call and per device, never for the whole collector:
//   NVML_ERROR_NOT_SUPPORTED   normal (laptops, MIG, Jetson): the metric is not emitted, and that
//                              call is not made again for the device until NVML is re-initialised
//   NVML_ERROR_GPU_IS_LOST     the GPU fell off the bus: its metrics are missing with that reason;
//                              NVML is shut down and initialised again `rescan_every_ticks` ticks
//                              later, and the device list rebuilt
//   any other error            the metric is missing with the error's name as the reason
//
// Thread safety: not thread-safe; Collect() is called from one thread.

#ifndef EDGEMOND_COLLECTORS_NVIDIA_GPU_COLLECTOR_H_
#define EDGEMOND_COLLECTORS_NVIDIA_GPU_COLLECTOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "collectors/internal/nvml_library.h"
#include "collectors/internal/rescan.h"

namespace edgemond::collectors {

class NvidiaGpuCollector final : public Collector {
 public:
  static constexpr std::string_view kDefaultLibrary = "libnvidia-ml.so.1";

  explicit NvidiaGpuCollector(
      std::string library = std::string(kDefaultLibrary),
      int rescan_every_ticks = internal::RescanSchedule::kDefaultEveryTicks);
  ~NvidiaGpuCollector() override;

  std::string_view name() const override { return "nvidia_gpu"; }
  std::vector<const MetricDesc*> Describe() const override { return Metrics(); }
  Status CollectInto(WallTime now, std::vector<Sample>& out) override;

  static std::vector<const MetricDesc*> Metrics();

 private:
  // Which calls returned NOT_SUPPORTED for a device: not made again.
  enum Call : unsigned {
    kUtilization = 1 << 0,
    kMemory = 1 << 1,
    kTemperature = 1 << 2,
    kPower = 1 << 3,
    kEnergy = 1 << 4,
    kPowerLimit = 1 << 5,
    kSmClock = 1 << 6,
    kMaxSmClock = 1 << 7,
    kMemClock = 1 << 8,
    kEventReasons = 1 << 9,
  };
  struct Device {
    internal::nvml::Device handle;  // Valid while library_ is.
    std::string id;
    SeriesLabels labels;                      // {gpu}
    SeriesLabels utilization_labels;          // {gpu, name}
    std::string component;                    // "gpu:<id>"
    std::vector<SeriesLabels> reason_labels;  // ThrottleLabels(component, ...), as kReasons.
    unsigned unsupported = 0;                 // Call bits.
  };

  Status Load();
  void Unload();
  void ReadDevice(Device& device, WallTime now, std::vector<Sample>& out);

  const std::string library_path_;
  internal::RescanSchedule reload_;
  std::unique_ptr<internal::NvmlLibrary> library_;
  std::vector<Device> devices_;
  Status load_status_;
  bool reinit_pending_ = false;
};

}  // namespace edgemond::collectors

#endif  // EDGEMOND_COLLECTORS_NVIDIA_GPU_COLLECTOR_H_
