#include "collectors/amd_gpu_collector.h"

#include <gtest/gtest.h>

#include "collectors/collector_test_util.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::collectors {
namespace {

using testing::ExpectSamples;
using testing::Missing;
using testing::Wants;

std::string Gpu(std::string_view metric, std::string_view gpu) {
  return SeriesKey(metric, Labels{{"gpu", std::string(gpu)}});
}
std::string Utilization(std::string_view gpu, std::string_view name) {
  return SeriesKey("edgemond_gpu_utilization_ratio",
                   Labels{{"gpu", std::string(gpu)}, {"name", std::string(name)}});
}

constexpr std::string_view kDev = "sys/devices/pci0000:00/0000:00:01.0/0000:0a:00.0";

class AmdGpuCollectorTest : public ::testing::Test {
 protected:
  void Open(const std::string& root) {
    auto fs = RootedFs::Open(root);
    ASSERT_TRUE(fs.ok()) << fs.status();
    fs_.emplace(std::move(*fs));
    collector_.emplace(*fs_);
  }
  Result<std::vector<Sample>> Tick() {
    clock_.Advance(std::chrono::seconds(1));
    at_ = clock_.WallNow();
    return collector_->Collect(at_);
  }
  // A GPU at PCI 0000:0a:00.0 as card1 (and its connector), with an amdgpu hwmon chip.
  void AddGpu(std::string_view vendor, std::string_view busy_percent) {
    const std::string dev(kDev);
    sysfs_.Symlink(dev + "/subsystem", "../../../../bus/pci");
    sysfs_.Write(dev + "/vendor", std::string(vendor) + "\n");
    sysfs_.Write(dev + "/device", "0x15bf\n");
    sysfs_.Write(dev + "/gpu_busy_percent", std::string(busy_percent) + "\n");
    sysfs_.Write(dev + "/mem_info_vram_used", "536870912\n");
    sysfs_.Write(dev + "/mem_info_vram_total", "2147483648\n");
    sysfs_.Symlink(dev + "/drm/card1/device", "../../../0000:0a:00.0");
    sysfs_.Symlink("sys/class/drm/card1",
                   "../../devices/pci0000:00/0000:00:01.0/0000:0a:00.0/drm/card1");
    sysfs_.Symlink("sys/class/drm/card1-eDP-1",
                   "../../devices/pci0000:00/0000:00:01.0/0000:0a:00.0/drm/card1/card1-eDP-1");
    const std::string hwmon = dev + "/hwmon/hwmon2";
    sysfs_.Write(hwmon + "/name", "amdgpu\n");
    sysfs_.Symlink(hwmon + "/device", "../../../0000:0a:00.0");
    sysfs_.Symlink("sys/class/hwmon/hwmon2",
                   "../../devices/pci0000:00/0000:00:01.0/0000:0a:00.0/hwmon/hwmon2");
    sysfs_.Write(hwmon + "/temp1_input", "52000\n");
    sysfs_.Write(hwmon + "/power1_input", "15250000\n");  // An APU: no power1_average.
  }

  edgemond::testing::FakeSysfs sysfs_;
  edgemond::testing::FakeClock clock_;
  WallTime at_;
  std::optional<RootedFs> fs_;
  std::optional<AmdGpuCollector> collector_;
};

TEST_F(AmdGpuCollectorTest, X86DesktopRadeon) {
  Open(edgemond::testing::FixturePath("devices/x86-desktop"));
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  const std::string gpu = "pci/0000:03:00.0";  // The id the hwmon collector gives its chip.
  ExpectSamples(*samples,
                Wants{
                    {Utilization(gpu, "amdgpu 0x73ff"), 0.03},  // gpu_busy_percent 3.
                    {Gpu("edgemond_gpu_memory_busy_ratio", gpu), 0.01},
                    {Gpu("edgemond_gpu_memory_used_bytes", gpu), 512638976.0},
                    {Gpu("edgemond_gpu_memory_total_bytes", gpu), 8573157376.0},
                    {Gpu("edgemond_gpu_railgated", gpu), 0.0},
                    {Gpu("edgemond_gpu_power_watts", gpu), 9.0},  // power1_average, µW.
                    {Gpu("edgemond_gpu_power_limit_watts", gpu), 100.0},
                    {Gpu("edgemond_gpu_temperature_celsius", gpu), 41.0},  // edge.
                    {Gpu("edgemond_gpu_frequency_hertz", gpu), 500e6},
                    {Gpu("edgemond_gpu_memory_frequency_hertz", gpu), 96e6},
                },
                at_, &*collector_);
}

TEST_F(AmdGpuCollectorTest, BusyIsAPercentageAndPowerFallsBackToTheInstantaneousValue) {
  AddGpu("0x1002", "45");
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  const std::string gpu = "pci/0000:0a:00.0";
  ExpectSamples(*samples,
                Wants{
                    {Utilization(gpu, "amdgpu 0x15bf"), 0.45},  // Percent, not per mille.
                    {Gpu("edgemond_gpu_memory_used_bytes", gpu), 536870912.0},
                    {Gpu("edgemond_gpu_memory_total_bytes", gpu), 2147483648.0},
                    {Gpu("edgemond_gpu_power_watts", gpu), 15.25},
                    {Gpu("edgemond_gpu_temperature_celsius", gpu), 52.0},
                },
                at_, &*collector_);
}

TEST_F(AmdGpuCollectorTest, ARuntimeSuspendedGpuIsIdleAndNotWokenUp) {
  AddGpu("0x1002", "45");
  const std::string dev(kDev);
  sysfs_.Write(dev + "/power/runtime_status", "suspended\n");
  // Were they read, these would fail: a suspended GPU must not be touched.
  sysfs_.Remove(dev + "/mem_info_vram_used");
  sysfs_.Mkdir(dev + "/mem_info_vram_used");
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  const std::string gpu = "pci/0000:0a:00.0";
  ExpectSamples(*samples,
                Wants{
                    {Utilization(gpu, "amdgpu 0x15bf"), 0.0},
                    {Gpu("edgemond_gpu_railgated", gpu), 1.0},
                    {Gpu("edgemond_gpu_memory_used_bytes", gpu), Missing("runtime-suspended")},
                    {Gpu("edgemond_gpu_memory_total_bytes", gpu), Missing("runtime-suspended")},
                    {Gpu("edgemond_gpu_power_watts", gpu), Missing("runtime-suspended")},
                    {Gpu("edgemond_gpu_temperature_celsius", gpu), Missing("runtime-suspended")},
                },
                at_, &*collector_);
}

TEST_F(AmdGpuCollectorTest, ImpossiblePercentagesAreMissing) {
  AddGpu("0x1002", "250");
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  for (const Sample& sample : *samples) {
    if (sample.desc->name == "edgemond_gpu_utilization_ratio") {
      EXPECT_EQ(sample.missing_reason, "implausible value 250");
    }
  }
}

TEST_F(AmdGpuCollectorTest, OtherVendorsCardsAreNotAmdGpus) {
  AddGpu("0x10de", "45");
  Open(sysfs_.path());
  EXPECT_TRUE(Tick().status().IsNotFound());
  Open(edgemond::testing::FixturePath("devices/x86-nvidia"));
  EXPECT_TRUE(Tick().status().IsNotFound());
}

}  // namespace
}  // namespace edgemond::collectors
