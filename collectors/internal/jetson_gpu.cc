#include "collectors/internal/jetson_gpu.h"

#include "collectors/internal/discovery.h"
#include "collectors/internal/jetson_parse.h"
#include "core/text.h"

namespace edgemond::collectors::internal {

std::vector<JetsonGpu> FindJetsonGpus(const RootedFs& fs) {
  std::vector<JetsonGpu> gpus;
  auto nodes = fs.ListDir("/sys/class/devfreq");
  if (!nodes.ok()) return gpus;
  for (const std::string& node : *nodes) {
    const std::string class_path = "/sys/class/devfreq/" + node;
    auto device = fs.RealPath(class_path + "/device");
    auto devfreq = fs.RealPath(class_path);
    if (!device.ok() || !devfreq.ok()) continue;
    auto of_name = fs.ReadFile(*device + "/of_node/name", 4096);
    auto of_compatible = fs.ReadFile(*device + "/of_node/compatible", 4096);
    const std::vector<std::string> names =
        of_name.ok() ? SplitDeviceTreeStrings(*of_name) : std::vector<std::string>();
    const std::string of_node_name = names.empty() ? std::string() : names.front();
    const std::vector<std::string> compatible =
        of_compatible.ok() ? SplitDeviceTreeStrings(*of_compatible) : std::vector<std::string>();
    if (!IsJetsonGpuNode(of_node_name, compatible)) continue;
    JetsonGpu gpu;
    gpu.name = JetsonGpuName(of_node_name, compatible);
    gpu.id = DeviceId(fs, *device, gpu.name);
    gpu.device_dir = *device;
    gpu.devfreq_dir = *devfreq;
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

}  // namespace edgemond::collectors::internal
