// edgemond_throttled{component,reason}: why clocks are being held down, shared by every collector
// that can tell (throttle for the CPU and the board, jetson_gpu, nvidia_gpu).
//
// Every (component, reason) pair a collector can observe on this machine is emitted every tick,
// 1 while it holds and 0 while it does not, so that a transition is visible and an absent series
// means "cannot be observed here", never "not throttled". ThrottleEventTracker
// (collectors/throttle_events.h) turns the transitions into events.
//
// component: "cpu", "board", or "gpu:" + the gpu label ("gpu:pci/0000:01:00.0").
// reason (a closed set, so alerts can match on it):
//   frequency_cap            the active maximum clock is below what the hardware supports (power
//                            mode, thermal cooling, or a user limit)
//   thermal                  the kernel's thermal framework is cooling the CPU (cpufreq cooling
//                            device active), or a Jetson GPU runs below its maximum while at or
//                            above its zone's passive trip
//   under_voltage            Raspberry Pi firmware saw the supply drop (rpi_volt in0_lcrit_alarm)
//   sw_power_cap, hw_slowdown, sw_thermal_slowdown, hw_thermal_slowdown, hw_power_brake,
//   sync_boost, applications_clocks, display_clocks
//                            NVML clock event reasons, one each

#ifndef EDGEMOND_COLLECTORS_INTERNAL_THROTTLE_H_
#define EDGEMOND_COLLECTORS_INTERNAL_THROTTLE_H_

#include <string>
#include <string_view>

#include "collectors/internal/samples.h"
#include "core/sample.h"

namespace edgemond::collectors::internal {

inline constexpr MetricDesc kThrottled{
    "edgemond_throttled", "1 while the component's clocks are held down for this reason, else 0",
    MetricType::kGauge, ""};

inline constexpr std::string_view kReasonFrequencyCap = "frequency_cap";
inline constexpr std::string_view kReasonThermal = "thermal";
inline constexpr std::string_view kReasonUnderVoltage = "under_voltage";

// Collectors build these once per component and reason, and keep them.
inline SeriesLabels ThrottleLabels(std::string_view component, std::string_view reason) {
  return Labels{{"component", std::string(component)}, {"reason", std::string(reason)}};
}

// `labels`: from ThrottleLabels().
inline Sample ThrottledSample(SeriesLabels labels, bool active, WallTime at) {
  return ValueSample(kThrottled, std::move(labels), active ? 1.0 : 0.0, at);
}

inline std::string GpuComponent(std::string_view gpu_id) { return "gpu:" + std::string(gpu_id); }

}  // namespace edgemond::collectors::internal

#endif  // EDGEMOND_COLLECTORS_INTERNAL_THROTTLE_H_
