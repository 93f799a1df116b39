// DeviceInfo: what the device is, for GET /api/v1/device. Read on demand (a few small files), not
// per tick. Every field is optional: a field that cannot be read is empty, never an error and
// never a made-up value.
//
// Sources, all below the root:
//   hostname           /proc/sys/kernel/hostname
//   kernel_release     /proc/sys/kernel/osrelease        ("5.15.148-tegra")
//   kernel_version     /proc/sys/kernel/version          ("#1 SMP PREEMPT ...")
//   architecture       derived from /proc/cpuinfo        ("x86_64", "aarch64"); the host's uname()
//                                                        would describe the wrong machine under a
//                                                        --root
//   cpu_model          /proc/cpuinfo: "model name", or on ARM the decoded implementer/part
//                      ("ARM Cortex-A78AE")
//   cpu_cores_present  /sys/devices/system/cpu/present
//   cpu_cores_online   /sys/devices/system/cpu/online
//   memory_total_bytes /proc/meminfo MemTotal
//   uptime_seconds     /proc/uptime, first field
//   board_vendor       /sys/class/dmi/id/sys_vendor (x86; absent on device-tree boards)
//   board_model        /proc/device-tree/model (NUL-terminated; Jetson, Raspberry Pi), else
//                      /sys/class/dmi/id/product_name, else the "Model" line of /proc/cpuinfo
//   board_compatible   the first string of the root device-tree `compatible` list: the
//                      module and carrier ("nvidia,p3768-0000+p3767-0005",
//                      "raspberrypi,4-model-b")
//   soc                its last string: the SoC ("nvidia,tegra234", "brcm,bcm2711")
//   board_revision     the "Revision" line of /proc/cpuinfo (Raspberry Pi: "c03114")
//   l4t_release        /etc/nv_tegra_release's first line, "# R36 (release), REVISION: 4.0, ..."
//                      -> "36.4.0" (NVIDIA Jetson Linux)
//   jetpack_version    the JetPack that L4T release belongs to ("6.1"), from a table of NVIDIA's
//                      releases; absent for a release the table does not know yet, never guessed
//
// Thread safety: ReadDeviceInfo() is safe to call concurrently (RootedFs is).

#ifndef EDGEMOND_COLLECTORS_DEVICE_INFO_H_
#define EDGEMOND_COLLECTORS_DEVICE_INFO_H_

#include <cstdint>
#include <optional>
#include <string>

#include "core/rooted_fs.h"

namespace edgemond::collectors {

struct DeviceInfo {
  std::optional<std::string> hostname;
  std::optional<std::string> kernel_release;
  std::optional<std::string> kernel_version;
  std::optional<std::string> architecture;
  std::optional<std::string> cpu_model;
  std::optional<int> cpu_cores_present;
  std::optional<int> cpu_cores_online;
  std::optional<std::uint64_t> memory_total_bytes;
  std::optional<double> uptime_seconds;
  std::optional<std::string> board_vendor;
  std::optional<std::string> board_model;
  std::optional<std::string> board_compatible;
  std::optional<std::string> soc;
  std::optional<std::string> board_revision;
  std::optional<std::string> l4t_release;
  std::optional<std::string> jetpack_version;

  friend bool operator==(const DeviceInfo&, const DeviceInfo&) = default;
};

DeviceInfo ReadDeviceInfo(const RootedFs& fs);

}  // namespace edgemond::collectors

#endif  // EDGEMOND_COLLECTORS_DEVICE_INFO_H_
