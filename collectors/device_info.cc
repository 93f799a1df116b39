#include "collectors/device_info.h"

#include "collectors/internal/cpuinfo_parse.h"
#include "collectors/internal/discovery.h"
#include "collectors/internal/jetson_parse.h"
#include "collectors/internal/meminfo_parse.h"
#include "core/sample.h"
#include "core/text.h"

namespace edgemond::collectors {
namespace {

// A one-line text file, trimmed (NULs included, for device-tree strings) and made valid UTF-8;
// nullopt when it cannot be read or is empty.
std::optional<std::string> ReadText(const RootedFs& fs, std::string_view path) {
  auto text = fs.ReadFile(path, 4096);
  if (!text.ok()) return std::nullopt;
  // A device-tree string property ends at its first NUL.
  std::string_view view = *text;
  if (const std::size_t nul = view.find('\0'); nul != std::string_view::npos) {
    view = view.substr(0, nul);
  }
  view = Trim(view);
  if (view.empty()) return std::nullopt;
  return SanitizeUtf8(view);
}

std::optional<int> CountCpus(const RootedFs& fs, std::string_view path) {
  auto text = fs.ReadFile(path, 4096);
  if (!text.ok()) return std::nullopt;
  auto cpus = ParseCpuList(*text);
  if (!cpus.ok() || cpus->empty()) return std::nullopt;
  return static_cast<int>(cpus->size());
}

}  // namespace

DeviceInfo ReadDeviceInfo(const RootedFs& fs) {
  DeviceInfo info;
  info.hostname = ReadText(fs, "/proc/sys/kernel/hostname");
  info.kernel_release = ReadText(fs, "/proc/sys/kernel/osrelease");
  info.kernel_version = ReadText(fs, "/proc/sys/kernel/version");

  std::vector<internal::CpuinfoBlock> cpuinfo;
  if (auto text = fs.ReadFile("/proc/cpuinfo"); text.ok()) {
    cpuinfo = internal::ParseCpuinfo(*text);
    info.architecture = internal::Architecture(cpuinfo);
    info.cpu_model = internal::CpuModel(cpuinfo);
    if (info.cpu_model) info.cpu_model = SanitizeUtf8(*info.cpu_model);
  }
  info.cpu_cores_present = CountCpus(fs, "/sys/devices/system/cpu/present");
  info.cpu_cores_online = CountCpus(fs, "/sys/devices/system/cpu/online");

  if (auto text = fs.ReadFile("/proc/meminfo"); text.ok()) {
    if (auto meminfo = internal::ParseMeminfo(*text); meminfo.ok() && meminfo->mem_total_kib) {
      info.memory_total_bytes = *meminfo->mem_total_kib * 1024;
    }
  }
  if (auto text = fs.ReadFile("/proc/uptime", 4096); text.ok()) {
    if (auto seconds = ParseDouble(FirstField(*text)); seconds.ok() && *seconds >= 0) {
      info.uptime_seconds = *seconds;
    }
  }

  info.board_vendor = ReadText(fs, "/sys/class/dmi/id/sys_vendor");
  info.board_model = ReadText(fs, "/proc/device-tree/model");
  if (!info.board_model) info.board_model = ReadText(fs, "/sys/class/dmi/id/product_name");
  if (!info.board_model) {
    for (const internal::CpuinfoBlock& block : cpuinfo) {
      if (const auto model = block.Get("Model"); model && !model->empty()) {
        info.board_model = SanitizeUtf8(*model);
        break;
      }
    }
  }
  const std::vector<std::string> compatible = internal::BoardCompatible(fs);
  if (!compatible.empty()) {
    info.board_compatible = compatible.front();
    info.soc = compatible.back();
  }
  for (const internal::CpuinfoBlock& block : cpuinfo) {
    if (const auto revision = block.Get("Revision"); revision && !revision->empty()) {
      info.board_revision = SanitizeUtf8(*revision);
      break;
    }
  }
  if (auto release = fs.ReadFile("/etc/nv_tegra_release", 4096); release.ok()) {
    info.l4t_release = internal::ParseL4tRelease(*release);
    if (info.l4t_release) {
      if (const auto jetpack = internal::JetPackForL4t(*info.l4t_release)) {
        info.jetpack_version = std::string(*jetpack);
      }
    }
  }
  return info;
}

}  // namespace edgemond::collectors
