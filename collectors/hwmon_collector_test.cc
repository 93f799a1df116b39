#include "collectors/hwmon_collector.h"

#include <gtest/gtest.h>

#include "collectors/collector_test_util.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::collectors {
namespace {

using testing::ExpectSamples;
using testing::Missing;
using testing::Wants;

constexpr std::string_view kTemp = "edgemond_hwmon_temperature_celsius";
constexpr std::string_view kCrit = "edgemond_hwmon_temperature_crit_celsius";
constexpr std::string_view kVolts = "edgemond_hwmon_voltage_volts";
constexpr std::string_view kAmps = "edgemond_hwmon_current_amperes";
constexpr std::string_view kWatts = "edgemond_hwmon_power_watts";
constexpr std::string_view kAverageWatts = "edgemond_hwmon_power_average_watts";
constexpr std::string_view kJoules = "edgemond_hwmon_energy_joules_total";
constexpr std::string_view kRpm = "edgemond_hwmon_fan_rpm";
constexpr std::string_view kPwm = "edgemond_hwmon_pwm_ratio";

std::string Key(std::string_view metric, std::string_view chip, std::string_view chip_name,
                std::string_view sensor, std::string_view label = "") {
  return SeriesKey(metric, Labels{{"chip", std::string(chip)},
                                  {"chip_name", std::string(chip_name)},
                                  {"sensor", std::string(sensor)},
                                  {"label", std::string(label)}});
}

class HwmonCollectorTest : public ::testing::Test {
 protected:
  void Open(const std::string& root, int rescan_every_ticks = 60) {
    auto fs = RootedFs::Open(root);
    ASSERT_TRUE(fs.ok()) << fs.status();
    fs_.emplace(std::move(*fs));
    collector_.emplace(*fs_, rescan_every_ticks);
  }

  Result<std::vector<Sample>> Tick() {
    clock_.Advance(std::chrono::seconds(1));
    at_ = clock_.WallNow();
    return collector_->Collect(at_);
  }

  // hwmonN registered without a parent device, in /sys/devices/virtual/hwmon.
  std::string AddVirtualChip(int n, std::string_view name) {
    const std::string dir = "sys/devices/virtual/hwmon/hwmon" + std::to_string(n);
    sysfs_.Write(dir + "/name", std::string(name) + "\n");
    sysfs_.Symlink("sys/class/hwmon/hwmon" + std::to_string(n),
                   "../../devices/virtual/hwmon/hwmon" + std::to_string(n));
    return dir;
  }

  edgemond::testing::FakeSysfs sysfs_;
  edgemond::testing::FakeClock clock_;
  WallTime at_;
  std::optional<RootedFs> fs_;
  std::optional<HwmonCollector> collector_;
};

TEST_F(HwmonCollectorTest, X86Desktop) {
  Open(edgemond::testing::FixturePath("devices/x86-desktop"));
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  const std::string acpi = "virtual/acpitz", pch = "virtual/pch_skylake";
  const std::string core = "platform/coretemp.0", nvme0 = "pci/0000:04:00.0";
  const std::string nvme1 = "pci/0000:05:00.0", gpu = "pci/0000:03:00.0";
  const std::string dell = "virtual/dell_smm";
  ExpectSamples(*samples,
                Wants{
                    {Key(kTemp, acpi, "acpitz", "temp1"), 27.8},
                    {Key(kTemp, acpi, "acpitz", "temp2"), 29.8},
                    {Key(kCrit, acpi, "acpitz", "temp1"), 105.0},
                    {Key(kCrit, acpi, "acpitz", "temp2"), 105.0},
                    {Key(kTemp, pch, "pch_skylake", "temp1"), 47.5},
                    {Key(kCrit, pch, "pch_skylake", "temp1"), 115.0},
                    {Key(kTemp, core, "coretemp", "temp1", "Package id 0"), 45.0},
                    {Key(kTemp, core, "coretemp", "temp2", "Core 0"), 43.0},
                    {Key(kTemp, core, "coretemp", "temp3", "Core 1"), 44.0},
                    {Key(kTemp, core, "coretemp", "temp4", "Core 2"), 41.0},
                    {Key(kTemp, core, "coretemp", "temp5", "Core 3"), 42.0},
                    {Key(kCrit, core, "coretemp", "temp1", "Package id 0"), 100.0},
                    {Key(kCrit, core, "coretemp", "temp2", "Core 0"), 100.0},
                    {Key(kCrit, core, "coretemp", "temp3", "Core 1"), 100.0},
                    {Key(kCrit, core, "coretemp", "temp4", "Core 2"), 100.0},
                    {Key(kCrit, core, "coretemp", "temp5", "Core 3"), 100.0},
                    {Key(kTemp, nvme0, "nvme", "temp1", "Composite"), 38.85},
                    {Key(kTemp, nvme0, "nvme", "temp2", "Sensor 1"), 38.85},
                    {Key(kTemp, nvme0, "nvme", "temp3", "Sensor 2"), 43.85},
                    {Key(kCrit, nvme0, "nvme", "temp1", "Composite"), 84.85},
                    {Key(kTemp, nvme1, "nvme", "temp1", "Composite"), 35.85},
                    {Key(kCrit, nvme1, "nvme", "temp1", "Composite"), 89.85},
                    {Key(kTemp, gpu, "amdgpu", "temp1", "edge"), 41.0},
                    {Key(kTemp, gpu, "amdgpu", "temp2", "junction"), 43.0},
                    {Key(kTemp, gpu, "amdgpu", "temp3", "mem"), 48.0},
                    {Key(kCrit, gpu, "amdgpu", "temp1", "edge"), 100.0},
                    {Key(kCrit, gpu, "amdgpu", "temp2", "junction"), 110.0},
                    {Key(kCrit, gpu, "amdgpu", "temp3", "mem"), 105.0},
                    {Key(kVolts, gpu, "amdgpu", "in0", "vddgfx"), 0.806},
                    {Key(kAverageWatts, gpu, "amdgpu", "power1"), 9.0},
                    {Key(kRpm, gpu, "amdgpu", "fan1"), 1180.0},
                    {Key(kPwm, gpu, "amdgpu", "pwm1"), 74.0 / 255.0},
                    {Key(kTemp, dell, "dell_smm", "temp1", "CPU"), 38.0},
                    {Key(kTemp, dell, "dell_smm", "temp2", "Ambient"), 30.0},
                    {Key(kTemp, dell, "dell_smm", "temp3", "SODIMM"), 36.0},
                    {Key(kRpm, dell, "dell_smm", "fan1", "Processor Fan"), 810.0},
                    {Key(kRpm, dell, "dell_smm", "fan2", "Motherboard Fan"), 0.0},
                    {Key(kPwm, dell, "dell_smm", "pwm1"), 128.0 / 255.0},
                },
                at_, &*collector_);
}

TEST_F(HwmonCollectorTest, JetsonOrinJp6) {
  Open(edgemond::testing::FixturePath("devices/jetson-orin-jp6"));
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  const std::string ina = "i2c/1-0040";
  ExpectSamples(*samples,
                Wants{
                    {Key(kPwm, "platform/pwm-fan", "pwmfan", "pwm1"), 66.0 / 255.0},
                    {Key(kVolts, ina, "ina3221", "in1", "VDD_IN"), 5.048},
                    {Key(kVolts, ina, "ina3221", "in2", "VDD_CPU_GPU_CV"), 5.040},
                    {Key(kVolts, ina, "ina3221", "in3", "VDD_SOC"), 5.032},
                    // Shunt voltages, which the INA3221 reports in microvolts.
                    {Key(kVolts, ina, "ina3221", "in4"), 0.004915},
                    {Key(kVolts, ina, "ina3221", "in5"), 0.000430},
                    {Key(kVolts, ina, "ina3221", "in6"), 0.001695},
                    {Key(kVolts, ina, "ina3221", "in7", "sum of shunt voltages"), 0.007040},
                    {Key(kAmps, ina, "ina3221", "curr1"), 0.983},
                    {Key(kAmps, ina, "ina3221", "curr2"), 0.086},
                    {Key(kAmps, ina, "ina3221", "curr3"), 0.339},
                    {Key(kAmps, ina, "ina3221", "curr4"), 1.408},
                    // pwm_tach (hwmon2) has only a non-standard `rpm` file: nothing to export.
                },
                at_, &*collector_);
}

TEST_F(HwmonCollectorTest, EveryKindInBaseUnits) {
  const std::string d = AddVirtualChip(0, "sensor");
  sysfs_.Write(d + "/temp1_input", "-12500\n");
  sysfs_.Write(d + "/in0_input", "12034\n");
  sysfs_.Write(d + "/curr1_input", "-250\n");
  sysfs_.Write(d + "/power1_input", "1500000\n");
  sysfs_.Write(d + "/power1_average", "1250000\n");
  sysfs_.Write(d + "/energy1_input", "123456789012\n");
  sysfs_.Write(d + "/fan3_input", "2400\n");
  sysfs_.Write(d + "/pwm2", "255\n");
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  const std::string chip = "virtual/sensor";
  ExpectSamples(*samples,
                Wants{
                    {Key(kTemp, chip, "sensor", "temp1"), -12.5},
                    {Key(kVolts, chip, "sensor", "in0"), 12.034},
                    {Key(kAmps, chip, "sensor", "curr1"), -0.25},
                    {Key(kWatts, chip, "sensor", "power1"), 1.5},
                    {Key(kAverageWatts, chip, "sensor", "power1"), 1.25},
                    {Key(kJoules, chip, "sensor", "energy1"), 123456.789012},
                    {Key(kRpm, chip, "sensor", "fan3"), 2400.0},
                    {Key(kPwm, chip, "sensor", "pwm2"), 1.0},
                },
                at_, &*collector_);
  for (const Sample& sample : *samples) {
    EXPECT_EQ(sample.desc->type,
              sample.desc->name == kJoules ? MetricType::kCounter : MetricType::kGauge);
  }
}

TEST_F(HwmonCollectorTest, BrokenReadingsAreMissingWithTheReason) {
  const std::string d = AddVirtualChip(0, "broken");
  sysfs_.Write(d + "/temp1_input", "");           // Empty: the sensor has no data.
  sysfs_.Write(d + "/temp2_input", "-273150\n");  // A threshold-style placeholder.
  sysfs_.Write(d + "/temp3_input", "hot\n");
  sysfs_.Mkdir(d + "/in1_input");  // Unreadable: a directory (EISDIR).
  sysfs_.Write(d + "/fan1_input", "-1\n");
  sysfs_.Write(d + "/pwm1", "300\n");
  sysfs_.Write(d + "/temp1_crit", "-273150\n");  // Unset limits are not exported.
  sysfs_.Write(d + "/temp2_crit", "");
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  const std::string chip = "virtual/broken";
  ExpectSamples(*samples,
                Wants{
                    {Key(kTemp, chip, "broken", "temp1"), Missing("empty file")},
                    {Key(kTemp, chip, "broken", "temp2"), Missing("implausible value -273150")},
                    {Key(kTemp, chip, "broken", "temp3"), Missing("not a number: \"hot\"")},
                    {Key(kVolts, chip, "broken", "in1"), Missing("EISDIR: Is a directory")},
                    {Key(kRpm, chip, "broken", "fan1"), Missing("implausible value -1")},
                    {Key(kPwm, chip, "broken", "pwm1"), Missing("implausible value 300")},
                },
                at_, &*collector_);
}

TEST_F(HwmonCollectorTest, LabelsAreTrimmedAndMadeValidUtf8) {
  const std::string d = AddVirtualChip(0, "ina226 ");
  sysfs_.Write(d + "/in1_input", "5000\n");
  sysfs_.Write(d + "/in1_label", "  VDD_IN   \n");
  sysfs_.Write(d + "/in2_input", "3300\n");
  sysfs_.Write(d + "/in2_label", "3V3\xff\xfe rail\n");
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{
                    {Key(kVolts, "virtual/ina226", "ina226", "in1", "VDD_IN"), 5.0},
                    {Key(kVolts, "virtual/ina226", "ina226", "in2", "3V3\uFFFD\uFFFD rail"), 3.3},
                },
                at_, &*collector_);
}

TEST_F(HwmonCollectorTest, ChipsSharingANameGetDistinctStableIds) {
  // Registered in the order hwmon10, hwmon3: ids follow the hwmon numbers, not the listing.
  sysfs_.Write(AddVirtualChip(10, "acme") + "/temp1_input", "20000\n");
  sysfs_.Write(AddVirtualChip(3, "acme") + "/temp1_input", "30000\n");
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{
                    {Key(kTemp, "virtual/acme", "acme", "temp1"), 30.0},
                    {Key(kTemp, "virtual/acme.1", "acme", "temp1"), 20.0},
                },
                at_, &*collector_);
}

TEST_F(HwmonCollectorTest, LegacyDriversKeepAttributesInTheDeviceDirectory) {
  const std::string dev = "sys/devices/platform/w83627hf.656";
  sysfs_.Write(dev + "/name", "w83627hf\n");
  sysfs_.Write(dev + "/temp1_input", "35000\n");
  sysfs_.Write(dev + "/fan1_input", "1500\n");
  sysfs_.Symlink(dev + "/subsystem", "../../../bus/platform");
  sysfs_.Symlink(dev + "/hwmon/hwmon0/device", "../../../w83627hf.656");
  sysfs_.Symlink("sys/class/hwmon/hwmon0", "../../devices/platform/w83627hf.656/hwmon/hwmon0");
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{
                    {Key(kTemp, "platform/w83627hf.656", "w83627hf", "temp1"), 35.0},
                    {Key(kRpm, "platform/w83627hf.656", "w83627hf", "fan1"), 1500.0},
                },
                at_, &*collector_);
}

TEST_F(HwmonCollectorTest, ChipsThatComeAndGoAreSeenAtTheNextRescan) {
  sysfs_.Write(AddVirtualChip(0, "a") + "/temp1_input", "20000\n");
  sysfs_.Write(AddVirtualChip(1, "b") + "/temp1_input", "30000\n");
  Open(sysfs_.path(), /*rescan_every_ticks=*/2);
  ASSERT_TRUE(Tick().ok());
  sysfs_.Remove("sys/class/hwmon/hwmon1");
  sysfs_.Remove("sys/devices/virtual/hwmon/hwmon1");
  sysfs_.Write(AddVirtualChip(2, "c") + "/temp1_input", "40000\n");
  ASSERT_TRUE(Tick().ok());
  const auto samples = Tick();  // Two ticks after the first scan.
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{
                    {Key(kTemp, "virtual/a", "a", "temp1"), 20.0},
                    {Key(kTemp, "virtual/c", "c", "temp1"), 40.0},
                },
                at_, &*collector_);
}

TEST_F(HwmonCollectorTest, AReadFailingWithEnoentRescansWithinTheTick) {
  // See the thermal collector's test of the same name for why the file is gone from the start.
  sysfs_.Write(AddVirtualChip(0, "a") + "/temp1_input", "20000\n");
  const std::string b = AddVirtualChip(1, "b");
  sysfs_.Symlink(b + "/temp1_input", "gone");  // Listed, but opening it fails with ENOENT.
  Open(sysfs_.path());
  auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(
      *samples,
      Wants{
          {Key(kTemp, "virtual/a", "a", "temp1"), 20.0},
          {Key(kTemp, "virtual/b", "b", "temp1"), Missing("ENOENT: No such file or directory")},
      },
      at_, &*collector_);
  sysfs_.Remove("sys/class/hwmon/hwmon1");
  sysfs_.Remove(b);
  samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples, Wants{{Key(kTemp, "virtual/a", "a", "temp1"), 20.0}}, at_, &*collector_);
}

TEST_F(HwmonCollectorTest, NoHwmonChipsIsNotFound) {
  sysfs_.Mkdir("sys/class/hwmon");
  Open(sysfs_.path());
  EXPECT_TRUE(Tick().status().IsNotFound());
}

TEST_F(HwmonCollectorTest, ChipIdsComeFromTheNearestBusDevice) {
  const std::string i2c = "sys/devices/platform/bus@0/c240000.i2c";
  sysfs_.Symlink(i2c + "/subsystem", "../../../../bus/platform");
  sysfs_.Symlink(i2c + "/i2c-1/subsystem", "../../../../../bus/i2c");
  sysfs_.Symlink(i2c + "/i2c-1/1-0040/subsystem", "../../../../../../bus/i2c");
  const std::string nvme = "sys/devices/pci0000:00/0000:00:1d.0/0000:04:00.0";
  sysfs_.Symlink(nvme + "/subsystem", "../../../../bus/pci");
  sysfs_.Symlink(nvme + "/nvme/nvme0/subsystem", "../../../../../../class/nvme");
  sysfs_.Symlink("sys/devices/virtual/thermal/thermal_zone0/subsystem",
                 "../../../../class/thermal");
  sysfs_.Mkdir("sys/devices/platform/nosubsystem.0");
  Open(sysfs_.path());
  EXPECT_EQ(HwmonCollector::ChipIdForDevice(*fs_, "/" + i2c + "/i2c-1/1-0040", "ina3221"),
            "i2c/1-0040");
  EXPECT_EQ(HwmonCollector::ChipIdForDevice(*fs_, "/" + nvme + "/nvme/nvme0", "nvme"),
            "pci/0000:04:00.0");
  EXPECT_EQ(
      HwmonCollector::ChipIdForDevice(*fs_, "/sys/devices/virtual/thermal/thermal_zone0", "acpitz"),
      "virtual/acpitz");
  EXPECT_EQ(HwmonCollector::ChipIdForDevice(*fs_, "/sys/devices/platform/nosubsystem.0", "x"),
            "platform/nosubsystem.0");
  EXPECT_EQ(HwmonCollector::ChipIdForDevice(*fs_, "/elsewhere", ""), "virtual/unnamed");
}

}  // namespace
}  // namespace edgemond::collectors
