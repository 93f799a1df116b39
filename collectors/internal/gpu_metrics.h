// The GPU metrics, shared by the collectors that find GPUs (jetson_gpu, amd_gpu, nvidia_gpu), so
// that a dashboard reads every GPU the same way whoever its vendor is. Each collector exports the
// subset its hardware offers.
//
// Labels: `gpu` is a stable id of the device, the same rule as hwmon chip ids
// (internal/discovery.h): "pci/0000:01:00.0" for a PCI GPU, "platform/17000000.gpu" for a Jetson's
// integrated one. It never is an index, which changes with probe order and CUDA_VISIBLE_DEVICES.
// `name` (utilization only) is the product or chip name ("NVIDIA GeForce RTX 3060", "ga10b").

#ifndef EDGEMOND_COLLECTORS_INTERNAL_GPU_METRICS_H_
#define EDGEMOND_COLLECTORS_INTERNAL_GPU_METRICS_H_

#include "core/sample.h"

namespace edgemond::collectors::internal {

inline constexpr MetricDesc kGpuUtilization{
    "edgemond_gpu_utilization_ratio",
    "Share of the driver's last sample period the GPU was busy, 0 to 1", MetricType::kGauge,
    "ratio"};
inline constexpr MetricDesc kGpuMemoryBusy{
    "edgemond_gpu_memory_busy_ratio",
    "Share of the driver's last sample period the GPU memory controller was busy, 0 to 1",
    MetricType::kGauge, "ratio"};
inline constexpr MetricDesc kGpuFrequency{"edgemond_gpu_frequency_hertz",
                                          "Current GPU core (SM) clock frequency",
                                          MetricType::kGauge, "hertz"};
inline constexpr MetricDesc kGpuFrequencyMin{"edgemond_gpu_frequency_min_hertz",
                                             "Lowest GPU clock frequency the governor may choose",
                                             MetricType::kGauge, "hertz"};
inline constexpr MetricDesc kGpuFrequencyMax{
    "edgemond_gpu_frequency_max_hertz",
    "Highest GPU clock frequency the governor may currently choose (power mode, thermal and "
    "user limits)",
    MetricType::kGauge, "hertz"};
inline constexpr MetricDesc kGpuFrequencyHardwareMax{"edgemond_gpu_frequency_hardware_max_hertz",
                                                     "Highest GPU clock frequency the GPU supports",
                                                     MetricType::kGauge, "hertz"};
inline constexpr MetricDesc kGpuMemoryFrequency{"edgemond_gpu_memory_frequency_hertz",
                                                "Current GPU memory clock frequency",
                                                MetricType::kGauge, "hertz"};
inline constexpr MetricDesc kGpuGovernorInfo{
    "edgemond_gpu_governor_info", "The GPU's devfreq governor, as a label; the value is always 1",
    MetricType::kGauge, ""};
inline constexpr MetricDesc kGpuRailgated{
    "edgemond_gpu_railgated",
    "1 while the GPU is power-gated because it is idle (runtime-suspended), else 0",
    MetricType::kGauge, ""};
inline constexpr MetricDesc kGpuMemoryUsed{"edgemond_gpu_memory_used_bytes",
                                           "GPU memory (VRAM) in use", MetricType::kGauge, "bytes"};
inline constexpr MetricDesc kGpuMemoryTotal{"edgemond_gpu_memory_total_bytes",
                                            "GPU memory (VRAM) size", MetricType::kGauge, "bytes"};
inline constexpr MetricDesc kGpuPower{"edgemond_gpu_power_watts", "Power drawn by the GPU board",
                                      MetricType::kGauge, "watts"};
inline constexpr MetricDesc kGpuPowerLimit{"edgemond_gpu_power_limit_watts",
                                           "Power limit the GPU's firmware currently enforces",
                                           MetricType::kGauge, "watts"};
inline constexpr MetricDesc kGpuEnergy{"edgemond_gpu_energy_joules_total",
                                       "Energy the GPU used since its driver was loaded",
                                       MetricType::kCounter, "joules"};
inline constexpr MetricDesc kGpuTemperature{"edgemond_gpu_temperature_celsius",
                                            "GPU die temperature", MetricType::kGauge, "celsius"};

}  // namespace edgemond::collectors::internal

#endif  // EDGEMOND_COLLECTORS_INTERNAL_GPU_METRICS_H_
