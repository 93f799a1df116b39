#include "collectors/internal/discovery.h"

#include <algorithm>

#include "collectors/internal/hwmon_parse.h"
#include "collectors/internal/names.h"
#include "core/sample.h"
#include "core/text.h"

namespace edgemond::collectors::internal {
namespace {

constexpr std::string_view kDevicesDir = "/sys/devices";
constexpr std::string_view kHwmonClassDir = "/sys/class/hwmon";

std::string_view Parent(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

}  // namespace

std::string_view Basename(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string DeviceId(const RootedFs& fs, const std::string& device_path,
                     const std::string& fallback_name) {
  const std::string virtual_id = "virtual/" + (fallback_name.empty() ? "unnamed" : fallback_name);
  const std::string devices_prefix = std::string(kDevicesDir) + "/";
  if (!StartsWith(device_path, devices_prefix)) return virtual_id;
  std::string_view current = device_path;
  while (current.size() > kDevicesDir.size()) {
    auto target = fs.ReadLink(std::string(current) + "/subsystem");
    if (target.ok()) {
      const std::string_view bus = BusFromSubsystemTarget(*target);
      if (!bus.empty()) return std::string(bus) + "/" + std::string(Basename(current));
    }
    current = Parent(current);
  }
  if (StartsWith(device_path, devices_prefix + "virtual/")) return virtual_id;
  // A tree without subsystem links: the path below /sys/devices is still fixed by the hardware.
  return device_path.substr(devices_prefix.size());
}

Result<std::vector<HwmonChip>> ListHwmonChips(const RootedFs& fs) {
  EDGEMOND_ASSIGN_OR_RETURN(const std::vector<std::string> entries, fs.ListDir(kHwmonClassDir));
  std::vector<HwmonChip> chips;
  for (const std::string& entry : entries) {
    const int index = IndexedName(entry, "hwmon");
    if (index < 0) continue;
    const std::string class_path = std::string(kHwmonClassDir) + "/" + entry;
    auto real = fs.RealPath(class_path);
    HwmonChip chip;
    chip.index = index;
    chip.dir = real.ok() ? *real : class_path;
    chip.attr_dir = chip.dir;
    auto device = fs.RealPath(chip.dir + "/device");
    if (device.ok()) chip.device_path = *device;
    auto name = fs.ReadFile(chip.dir + "/name", 4096);
    if (!name.ok() && device.ok()) {
      // Pre-hwmon-class drivers keep `name` and every attribute in the device directory.
      if (auto legacy = fs.ReadFile(*device + "/name", 4096); legacy.ok()) {
        chip.attr_dir = *device;
        name = std::move(legacy);
      }
    }
    chip.name = name.ok() ? SanitizeUtf8(Trim(*name)) : std::string();
    chip.id = device.ok() ? DeviceId(fs, *device, chip.name)
                          : "virtual/" + (chip.name.empty() ? entry : chip.name);
    chips.push_back(std::move(chip));
  }
  std::sort(chips.begin(), chips.end(),
            [](const HwmonChip& a, const HwmonChip& b) { return a.index < b.index; });
  std::vector<std::string> ids;
  ids.reserve(chips.size());
  for (const HwmonChip& chip : chips) ids.push_back(chip.id);
  ids = MakeUnique(ids);
  for (std::size_t i = 0; i < chips.size(); ++i) chips[i].id = std::move(ids[i]);
  return chips;
}

std::vector<std::string> SplitDeviceTreeStrings(std::string_view property) {
  std::vector<std::string> strings;
  while (!property.empty()) {
    const std::size_t nul = property.find('\0');
    const std::string_view one = Trim(property.substr(0, nul));
    if (!one.empty()) strings.push_back(SanitizeUtf8(one));
    if (nul == std::string_view::npos) break;
    property.remove_prefix(nul + 1);
  }
  return strings;
}

std::vector<std::string> BoardCompatible(const RootedFs& fs) {
  auto text = fs.ReadFile("/sys/firmware/devicetree/base/compatible", 4096);
  if (!text.ok()) return {};
  return SplitDeviceTreeStrings(*text);
}

bool IsTegraBoard(const RootedFs& fs) {
  const std::vector<std::string> compatible = BoardCompatible(fs);
  return std::any_of(compatible.begin(), compatible.end(),
                     [](const std::string& c) { return StartsWith(c, "nvidia,tegra"); });
}

std::vector<std::string> CpufreqPolicyDirs(const RootedFs& fs) {
  constexpr std::string_view kCpufreqDir = "/sys/devices/system/cpu/cpufreq";
  std::vector<std::string> dirs;
  auto entries = fs.ListDir(kCpufreqDir);
  if (!entries.ok()) return dirs;
  for (const std::string& entry : *entries) {
    if (IndexedName(entry, "policy") >= 0)
      dirs.push_back(std::string(kCpufreqDir) + "/" + entry + "/");
  }
  return dirs;
}

}  // namespace edgemond::collectors::internal
