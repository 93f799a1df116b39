// JetsonGpuCollector: the integrated GPU of an NVIDIA Jetson (nvgpu), JetPack 4 to 6.
//
//   edgemond_gpu_utilization_ratio{gpu,name}        <gpu device>/load, per-mille (456 -> 0.456)
//   edgemond_gpu_frequency_hertz{gpu}               <devfreq>/cur_freq (Hz)
//   edgemond_gpu_frequency_min_hertz{gpu}           <devfreq>/min_freq
//   edgemond_gpu_frequency_max_hertz{gpu}           <devfreq>/max_freq (power mode, jetson_clocks)
//   edgemond_gpu_frequency_hardware_max_hertz{gpu}  highest of <devfreq>/available_frequencies
//   edgemond_gpu_governor_info{gpu,governor}        <devfreq>/governor
//   edgemond_gpu_railgated{gpu}                     <gpu device>/power/runtime_status "suspended"
//   edgemond_gpu_temperature_celsius{gpu}           the thermal zone whose type starts with "gpu"
//                                                   (gpu-thermal on JP5/6, GPU-therm on JP4)
//   edgemond_throttled{component="gpu:<gpu>",reason}
//       frequency_cap  max_freq below the hardware maximum
//       thermal        cur_freq below the hardware maximum while the GPU is busy (load > 0, not
//                      rail-gated) and its zone is at or above the zone's lowest passive trip
//                      point (only where the zone has one; an idle GPU is slow because it is idle)
//
// Discovery: internal/jetson_gpu.h (devfreq nodes by device-tree name, never a fixed path). The
// devfreq node appears only once the GPU driver has probed, which on some images is after
// edgemond started, so a machine without one is rescanned every `rescan_every_ticks` ticks.
//
// Rail-gating. An idle Jetson GPU is powered off (runtime-suspended) and `load` reads 0; that is an
// idle GPU, not an error. If reading `load` fails while the GPU is suspended, utilization is 0 as
// well, and a frequency that cannot be read then is missing with the reason "railgated". Clamped
// to 0..1000 because the driver's per-mille value can round past 1000 under full load.
//
// Cost per tick and GPU: preads of load, runtime_status, cur/min/max_freq, governor and the zone's
// temp, through fds kept open. available_frequencies and the trip points are read at scan time.
//
// Collect() returns kNotFound when no Jetson GPU is present.
//
// Thread safety: not thread-safe; Collect() is called from one thread.

#ifndef EDGEMOND_COLLECTORS_JETSON_GPU_COLLECTOR_H_
#define EDGEMOND_COLLECTORS_JETSON_GPU_COLLECTOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "collectors/internal/jetson_gpu.h"
#include "collectors/internal/rescan.h"

namespace edgemond::collectors {

class JetsonGpuCollector final : public Collector {
 public:
  // `fs` is borrowed and must outlive the collector.
  explicit JetsonGpuCollector(const RootedFs& fs,
                              int rescan_every_ticks = internal::RescanSchedule::kDefaultEveryTicks)
      : JetsonGpuCollector(fs, nullptr, rescan_every_ticks) {}
  // `shared_files`: the runner's files, of which power_mode polls the frequency limits and
  // thermal the zone's temp too (borrowed, outliving the collector); null for files of its own.
  JetsonGpuCollector(const RootedFs& fs, internal::TickFiles* shared_files,
                     int rescan_every_ticks = internal::RescanSchedule::kDefaultEveryTicks);

  std::string_view name() const override { return "jetson_gpu"; }
  std::vector<const MetricDesc*> Describe() const override { return Metrics(); }
  Status CollectInto(WallTime now, std::vector<Sample>& out) override;

  static std::vector<const MetricDesc*> Metrics();

 private:
  struct Gpu {
    internal::JetsonGpu info;
    SeriesLabels labels;              // {gpu}
    SeriesLabels utilization_labels;  // {gpu, name}
    std::string component;            // "gpu:<id>"
    SeriesLabels cap_labels;          // ThrottleLabels(component, frequency_cap)
    SeriesLabels thermal_labels;      // ThrottleLabels(component, thermal)
    // {gpu, governor} for the governor last read (`governor_name`); rebuilt when it changes.
    std::string governor_name;
    SeriesLabels governor_labels;
    std::optional<internal::TickFile> load;
    std::optional<internal::TickFile> runtime_status;
    internal::TickFile cur_freq;
    internal::TickFile min_freq;
    internal::TickFile max_freq;
    internal::TickFile governor;
    std::optional<std::int64_t> hardware_max_hz;
    std::optional<internal::TickFile> zone_temp;
    std::optional<std::int64_t> passive_trip_millicelsius;
  };

  Status Scan();
  // Appends every sample of one GPU; returns whether a file had vanished.
  bool ReadGpu(Gpu& gpu, WallTime now, std::vector<Sample>& out);

  const RootedFs* fs_;  // Not owned.
  internal::RescanSchedule rescan_;
  internal::CollectorFiles files_;  // Outlives gpus_.
  std::vector<Gpu> gpus_;
  Status scan_status_;
  std::string text_;  // Reused every read.
};

}  // namespace edgemond::collectors

#endif  // EDGEMOND_COLLECTORS_JETSON_GPU_COLLECTOR_H_
