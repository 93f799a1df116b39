#include "collectors/jetson_gpu_collector.h"

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
std::string Governor(std::string_view gpu, std::string_view governor) {
  return SeriesKey("edgemond_gpu_governor_info",
                   Labels{{"gpu", std::string(gpu)}, {"governor", std::string(governor)}});
}
std::string Throttled(std::string_view gpu, std::string_view reason) {
  return SeriesKey("edgemond_throttled", Labels{{"component", "gpu:" + std::string(gpu)},
                                                {"reason", std::string(reason)}});
}

constexpr std::string_view kFreq = "edgemond_gpu_frequency_hertz";
constexpr std::string_view kMin = "edgemond_gpu_frequency_min_hertz";
constexpr std::string_view kMax = "edgemond_gpu_frequency_max_hertz";
constexpr std::string_view kHwMax = "edgemond_gpu_frequency_hardware_max_hertz";
constexpr std::string_view kRailgated = "edgemond_gpu_railgated";
constexpr std::string_view kTemp = "edgemond_gpu_temperature_celsius";

class JetsonGpuCollectorTest : public ::testing::Test {
 protected:
  void Open(const std::string& root, int rescan_every_ticks = 60) {
    auto fs = RootedFs::Open(root);
    ASSERT_TRUE(fs.ok()) << fs.status();
    fs_.emplace(std::move(*fs));
    collector_.emplace(*fs_, rescan_every_ticks);
  }
  void OpenFixture(std::string_view board) {
    Open(edgemond::testing::FixturePath("devices/" + std::string(board)));
  }

  Result<std::vector<Sample>> Tick() {
    clock_.Advance(std::chrono::seconds(1));
    at_ = clock_.WallNow();
    return collector_->Collect(at_);
  }

  // An nvgpu GPU at /sys/devices/platform/17000000.gpu (id "platform/17000000.gpu"), JP6-style.
  void AddGpu(std::string_view load, std::string_view runtime_status,
              std::string_view cur = "306000000", std::string_view max = "624750000") {
    const std::string dev = "sys/devices/platform/17000000.gpu";
    sysfs_.Write("sys/firmware/devicetree/base/gpu@17000000/name", std::string("gpu\0", 4));
    sysfs_.Write("sys/firmware/devicetree/base/gpu@17000000/compatible",
                 std::string("nvidia,ga10b\0", 13));
    sysfs_.Symlink(dev + "/of_node", "../../../firmware/devicetree/base/gpu@17000000");
    if (!load.empty()) sysfs_.Write(dev + "/load", std::string(load) + "\n");
    if (!runtime_status.empty()) {
      sysfs_.Write(dev + "/power/runtime_status", std::string(runtime_status) + "\n");
    }
    const std::string freq = dev + "/devfreq/17000000.gpu";
    sysfs_.Write(freq + "/cur_freq", std::string(cur) + "\n");
    sysfs_.Write(freq + "/min_freq", "306000000\n");
    sysfs_.Write(freq + "/max_freq", std::string(max) + "\n");
    sysfs_.Write(freq + "/governor", "nvhost_podgov\n");
    sysfs_.Write(freq + "/available_frequencies", "306000000 408000000 624750000\n");
    sysfs_.Symlink(freq + "/device", "../../../17000000.gpu");
    sysfs_.Symlink("sys/class/devfreq/17000000.gpu",
                   "../../devices/platform/17000000.gpu/devfreq/17000000.gpu");
  }
  // thermal_zone0 "gpu-thermal" at `millicelsius`, passive trip at 80 °C.
  void AddGpuZone(std::string_view millicelsius) {
    const std::string zone = "sys/devices/virtual/thermal/thermal_zone0";
    sysfs_.Write(zone + "/type", "gpu-thermal\n");
    sysfs_.Write(zone + "/temp", std::string(millicelsius) + "\n");
    sysfs_.Write(zone + "/trip_point_0_type", "critical\n");
    sysfs_.Write(zone + "/trip_point_0_temp", "104500\n");
    sysfs_.Write(zone + "/trip_point_1_type", "passive\n");
    sysfs_.Write(zone + "/trip_point_1_temp", "80000\n");
    sysfs_.Symlink("sys/class/thermal/thermal_zone0",
                   "../../devices/virtual/thermal/thermal_zone0");
  }

  edgemond::testing::FakeSysfs sysfs_;
  edgemond::testing::FakeClock clock_;
  WallTime at_;
  std::optional<RootedFs> fs_;
  std::optional<JetsonGpuCollector> collector_;
};

TEST_F(JetsonGpuCollectorTest, OrinJp6RailgatedGpuIsIdleNotAnError) {
  OpenFixture("jetson-orin-jp6");
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  const std::string gpu = "platform/17000000.gpu";
  ExpectSamples(*samples,
                Wants{
                    {Utilization(gpu, "ga10b"), 0.0},
                    {Gpu(kRailgated, gpu), 1.0},
                    {Gpu(kFreq, gpu), 306e6},
                    {Gpu(kMin, gpu), 306e6},
                    {Gpu(kMax, gpu), 408e6},  // The 7W power mode's cap.
                    {Gpu(kHwMax, gpu), 624.75e6},
                    {Governor(gpu, "nvhost_podgov"), 1.0},
                    {Gpu(kTemp, gpu), 45.437},
                    {Throttled(gpu, "frequency_cap"), 1.0},
                    {Throttled(gpu, "thermal"), 0.0},
                },
                at_, &*collector_);
}

TEST_F(JetsonGpuCollectorTest, XavierNxJp5BusyGpuReportsPerMilleLoad) {
  OpenFixture("jetson-xavier-nx-jp5");
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  const std::string gpu = "platform/17000000.gv11b";
  ExpectSamples(*samples,
                Wants{
                    {Utilization(gpu, "gv11b"), 0.456},  // load 456 per mille.
                    {Gpu(kRailgated, gpu), 0.0},
                    {Gpu(kFreq, gpu), 1109.25e6},
                    {Gpu(kMin, gpu), 1109.25e6},  // jetson_clocks pinned min to max.
                    {Gpu(kMax, gpu), 1109.25e6},
                    {Gpu(kHwMax, gpu), 1109.25e6},
                    {Governor(gpu, "nvhost_podgov"), 1.0},
                    {Gpu(kTemp, gpu), 51.0},  // GPU-therm.
                    {Throttled(gpu, "frequency_cap"), 0.0},
                    {Throttled(gpu, "thermal"), 0.0},
                },
                at_, &*collector_);
}

TEST_F(JetsonGpuCollectorTest, NanoJp4FindsTheGpuOutsidePlatform) {
  OpenFixture("jetson-nano-jp4");
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  const std::string gpu = "platform/57000000.gpu";
  ExpectSamples(*samples,
                Wants{
                    {Utilization(gpu, "gm20b"), 0.12},
                    {Gpu(kRailgated, gpu), 0.0},
                    {Gpu(kFreq, gpu), 76.8e6},
                    {Gpu(kMin, gpu), 76.8e6},
                    {Gpu(kMax, gpu), 614.4e6},
                    {Gpu(kHwMax, gpu), 921.6e6},
                    {Governor(gpu, "nvhost_podgov"), 1.0},
                    {Gpu(kTemp, gpu), 22.5},  // GPU-therm.
                    {Throttled(gpu, "frequency_cap"), 1.0},
                    {Throttled(gpu, "thermal"), 0.0},
                },
                at_, &*collector_);
}

TEST_F(JetsonGpuCollectorTest, LoadIsPerMilleAndClampedToOne) {
  AddGpu("1013", "active");  // nvgpu's rounding can pass 1000 under full load.
  Open(sysfs_.path());
  auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  for (const Sample& sample : *samples) {
    if (sample.desc->name == "edgemond_gpu_utilization_ratio") {
      EXPECT_EQ(sample.value, 1.0);
    }
  }
  sysfs_.Write("sys/devices/platform/17000000.gpu/load", "7\n");
  samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  bool seen = false;
  for (const Sample& sample : *samples) {
    if (sample.desc->name != "edgemond_gpu_utilization_ratio") continue;
    EXPECT_DOUBLE_EQ(*sample.value, 0.007);  // Per mille, not percent.
    seen = true;
  }
  EXPECT_TRUE(seen);
}

TEST_F(JetsonGpuCollectorTest, UnreadableFilesOfARailgatedGpuReadAsIdle) {
  AddGpu("", "suspended");
  const std::string dev = "sys/devices/platform/17000000.gpu";
  sysfs_.Mkdir(dev + "/load");  // Reads fail (EISDIR), as a gated GPU's may.
  sysfs_.Remove(dev + "/devfreq/17000000.gpu/cur_freq");
  sysfs_.Mkdir(dev + "/devfreq/17000000.gpu/cur_freq");
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  const std::string gpu = "platform/17000000.gpu";
  ExpectSamples(*samples,
                Wants{
                    {Utilization(gpu, "ga10b"), 0.0},
                    {Gpu(kRailgated, gpu), 1.0},
                    {Gpu(kFreq, gpu), Missing("railgated")},
                    {Gpu(kMin, gpu), 306e6},
                    {Gpu(kMax, gpu), 624.75e6},
                    {Gpu(kHwMax, gpu), 624.75e6},
                    {Governor(gpu, "nvhost_podgov"), 1.0},
                    {Throttled(gpu, "frequency_cap"), 0.0},
                },
                at_, &*collector_);
}

TEST_F(JetsonGpuCollectorTest, UnreadableLoadOfAPoweredGpuIsMissingWithTheReason) {
  AddGpu("", "active");
  sysfs_.Mkdir("sys/devices/platform/17000000.gpu/load");
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  bool seen = false;
  for (const Sample& sample : *samples) {
    if (sample.desc->name != "edgemond_gpu_utilization_ratio") continue;
    EXPECT_FALSE(sample.value.has_value());
    EXPECT_EQ(sample.missing_reason, "EISDIR: Is a directory");
    seen = true;
  }
  EXPECT_TRUE(seen);
}

TEST_F(JetsonGpuCollectorTest, ABusyGpuBelowItsMaximumWhileHotIsThermallyThrottled) {
  AddGpu("800", "active", /*cur=*/"408000000");
  AddGpuZone("85000");  // Above the 80 °C passive trip.
  Open(sysfs_.path());
  auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  const auto throttled = [&](std::string_view reason) -> std::optional<double> {
    for (const Sample& sample : *samples) {
      if (SeriesKey(sample) == Throttled("platform/17000000.gpu", reason)) return sample.value;
    }
    return std::nullopt;
  };
  EXPECT_EQ(throttled("thermal"), 1.0);
  EXPECT_EQ(throttled("frequency_cap"), 0.0);

  // Idle, it is slow because it is idle.
  sysfs_.Write("sys/devices/platform/17000000.gpu/load", "0\n");
  samples = Tick();
  ASSERT_TRUE(samples.ok());
  EXPECT_EQ(throttled("thermal"), 0.0);

  // Busy at full clock while hot: not held down.
  sysfs_.Write("sys/devices/platform/17000000.gpu/load", "800\n");
  sysfs_.Write("sys/devices/platform/17000000.gpu/devfreq/17000000.gpu/cur_freq", "624750000\n");
  samples = Tick();
  ASSERT_TRUE(samples.ok());
  EXPECT_EQ(throttled("thermal"), 0.0);
}

TEST_F(JetsonGpuCollectorTest, AGpuWhoseDriverLoadsLateIsFoundAtTheNextRescan) {
  sysfs_.Mkdir("sys/class/devfreq");
  Open(sysfs_.path(), /*rescan_every_ticks=*/3);
  EXPECT_TRUE(Tick().status().IsNotFound());
  AddGpu("250", "active");
  EXPECT_TRUE(Tick().status().IsNotFound());  // Not looked for again yet.
  EXPECT_TRUE(Tick().status().IsNotFound());
  const auto samples = Tick();  // Three ticks after the first scan.
  ASSERT_TRUE(samples.ok()) << samples.status();
  EXPECT_FALSE(samples->empty());
}

TEST_F(JetsonGpuCollectorTest, AGpuThatGoesAwayIsDroppedAtTheNextRescan) {
  AddGpu("250", "active");
  Open(sysfs_.path(), /*rescan_every_ticks=*/2);
  ASSERT_TRUE(Tick().ok());
  sysfs_.Remove("sys/class/devfreq/17000000.gpu");
  sysfs_.Remove("sys/devices/platform/17000000.gpu");
  // (On sysfs the kept-open files would fail with ENODEV at once and trigger the rescan within the
  // tick; files in a temporary directory stay readable through their fds until the rescan.)
  ASSERT_TRUE(Tick().ok());
  EXPECT_TRUE(Tick().status().IsNotFound());
}

TEST_F(JetsonGpuCollectorTest, AFileThatCannotBeFoundTriggersARescanWithinTheTick) {
  AddGpu("300", "active");
  // Opening it fails with ENOENT, as reading a removed device's file does.
  const std::string governor = "sys/devices/platform/17000000.gpu/devfreq/17000000.gpu/governor";
  sysfs_.Remove(governor);
  sysfs_.Symlink(governor, "gone");
  Open(sysfs_.path());  // Periodic rescans only every 60 ticks.
  ASSERT_TRUE(Tick().ok());
  sysfs_.Remove("sys/class/devfreq/17000000.gpu");
  // The ENOENT makes the collector list the GPUs again at once, and there are none left.
  EXPECT_TRUE(Tick().status().IsNotFound());
}

TEST_F(JetsonGpuCollectorTest, OtherDevfreqDevicesAreNotJetsonGpus) {
  const std::string dev = "sys/devices/platform/fb000000.gpu";
  sysfs_.Write("sys/firmware/devicetree/base/gpu@fb000000/name", std::string("gpu\0", 4));
  sysfs_.Write("sys/firmware/devicetree/base/gpu@fb000000/compatible",
               std::string("rockchip,rk3588-mali\0arm,mali-valhall-csf\0", 42));
  sysfs_.Symlink(dev + "/of_node", "../../../firmware/devicetree/base/gpu@fb000000");
  sysfs_.Write(dev + "/devfreq/fb000000.gpu/cur_freq", "300000000\n");
  sysfs_.Symlink(dev + "/devfreq/fb000000.gpu/device", "../../../fb000000.gpu");
  sysfs_.Symlink("sys/class/devfreq/fb000000.gpu",
                 "../../devices/platform/fb000000.gpu/devfreq/fb000000.gpu");
  Open(sysfs_.path());
  EXPECT_TRUE(Tick().status().IsNotFound());
}

}  // namespace
}  // namespace edgemond::collectors
