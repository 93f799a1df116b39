// Finding a Jetson's integrated GPU (nvgpu): every /sys/class/devfreq/<node> whose device's
// device-tree node names an NVIDIA GPU (IsJetsonGpuNode). The devfreq node and the GPU device have
// different names and places on each JetPack generation:
//   Nano, L4T 32   devfreq/57000000.gpu   device /sys/devices/57000000.gpu            of_node "gpu"
//   Xavier, L4T 35 devfreq/17000000.gv11b device /sys/devices/17000000.gv11b          of_node
//   "gv11b" Orin, L4T 35   devfreq/17000000.ga10b device /sys/devices/17000000.ga10b of_node
//   "ga10b" Orin, L4T 36   devfreq/17000000.gpu   device /sys/devices/platform/bus@0/17000000.gpu
//                                                                                     of_node "gpu"
// so no path is hard-coded: the scan follows the links. Used by the jetson_gpu collector and by
// power_mode (jetson_clocks pins the GPU's devfreq limits).

#ifndef EDGEMOND_COLLECTORS_INTERNAL_JETSON_GPU_H_
#define EDGEMOND_COLLECTORS_INTERNAL_JETSON_GPU_H_

#include <string>
#include <vector>

#include "core/rooted_fs.h"

namespace edgemond::collectors::internal {

struct JetsonGpu {
  std::string id;           // DeviceId() of the GPU device: "platform/17000000.gpu".
  std::string name;         // JetsonGpuName(): "ga10b", "gm20b".
  std::string device_dir;   // The GPU device (links resolved): where `load` and power/ live.
  std::string devfreq_dir;  // Its devfreq directory (links resolved): cur_freq, max_freq, ...
};

// Every Jetson GPU under /sys/class/devfreq, in devfreq-node name order; empty when there is none
// (no devfreq class, or the GPU driver not loaded yet: the node appears when nvgpu probes).
std::vector<JetsonGpu> FindJetsonGpus(const RootedFs& fs);

}  // namespace edgemond::collectors::internal

#endif  // EDGEMOND_COLLECTORS_INTERNAL_JETSON_GPU_H_
