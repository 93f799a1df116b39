// Finding devices in sysfs by what they are, never by the number the kernel gave them.
//
// hwmonN, thermal_zoneN, cardN and iio:deviceN numbers follow probe order and change between boots
// (and when a driver is reloaded), so every collector names a device after the bus address of the
// hardware it belongs to, which is fixed: DeviceId(). The hwmon chip list is shared by every
// collector that reads hwmon chips (hwmon, power_rail, fan, amd_gpu, throttle), so a chip has the
// same id in all of their series.
//
// These functions do I/O through the RootedFs; they are called at scan time, not every tick.

#ifndef EDGEMOND_COLLECTORS_INTERNAL_DISCOVERY_H_
#define EDGEMOND_COLLECTORS_INTERNAL_DISCOVERY_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/rooted_fs.h"

namespace edgemond::collectors::internal {

// A stable, unique-per-device id for the device at `device_path` (links resolved, as
// RootedFs::RealPath returns it). We walk up from the device to the first device on a bus (its
// `subsystem` link points into /sys/bus/...) and use "<bus>/<device name>":
//   /sys/devices/platform/coretemp.0                                  -> "platform/coretemp.0"
//   /sys/devices/pci0000:00/0000:00:1d.0/0000:04:00.0/nvme/nvme0       -> "pci/0000:04:00.0"
//   /sys/devices/platform/bus@0/c240000.i2c/i2c-1/1-0040              -> "i2c/1-0040"
// A device outside /sys/devices, or in /sys/devices/virtual, is "virtual/<fallback_name>"
// ("virtual/unnamed" when that is empty). A device without any `subsystem` link on the way up
// keeps its path below /sys/devices, which the hardware fixes as well.
std::string DeviceId(const RootedFs& fs, const std::string& device_path,
                     const std::string& fallback_name);

// One hwmon chip, as found under /sys/class/hwmon.
struct HwmonChip {
  int index = 0;            // The N of hwmonN: for ordering only, never for naming.
  std::string dir;          // The hwmonN directory (device path, links resolved).
  std::string attr_dir;     // Where its attributes are: `dir`, or `dir`/device for legacy drivers.
  std::string name;         // The `name` file, trimmed and valid UTF-8; "" when unreadable.
  std::string id;           // DeviceId() of its device, made unique among all chips (".1", ".2").
  std::string device_path;  // The parent device (links resolved); "" when it has none.
};

// Every chip under /sys/class/hwmon, in hwmonN order. Drivers from before the hwmon class keep
// `name` and the attributes in hwmonN/device/; when hwmonN/ has no `name`, that is where they are
// read. Fails only when /sys/class/hwmon cannot be listed (kNotFound on a machine without it).
Result<std::vector<HwmonChip>> ListHwmonChips(const RootedFs& fs);

// Every cpufreq policy directory (/sys/devices/system/cpu/cpufreq/policyN/, with the trailing
// slash), in the order the directory lists them; none when the directory cannot be listed.
std::vector<std::string> CpufreqPolicyDirs(const RootedFs& fs);

// The strings of a device-tree property: NUL-separated, the last one NUL-terminated
// ("nvidia,p3768-0000+p3767-0005\0nvidia,tegra234\0" -> {"nvidia,p3768-0000+p3767-0005",
// "nvidia,tegra234"}). Empty strings are dropped. Pure.
std::vector<std::string> SplitDeviceTreeStrings(std::string_view property);

// The root node's `compatible` strings (/sys/firmware/devicetree/base/compatible, which is where
// /proc/device-tree points); empty on machines without a device tree.
std::vector<std::string> BoardCompatible(const RootedFs& fs);

// Whether the board is an NVIDIA Tegra (Jetson): a root `compatible` entry "nvidia,tegra<N>".
bool IsTegraBoard(const RootedFs& fs);

// The last component of a path ("/sys/devices/platform/pwm-fan" -> "pwm-fan").
std::string_view Basename(std::string_view path);

}  // namespace edgemond::collectors::internal

#endif  // EDGEMOND_COLLECTORS_INTERNAL_DISCOVERY_H_
