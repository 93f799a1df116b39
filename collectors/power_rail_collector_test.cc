#include "collectors/power_rail_collector.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "collectors/collector_test_util.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::collectors {
namespace {

using testing::ExpectSamples;
using testing::Missing;
using testing::Wants;

std::string Rail(std::string_view metric, std::string_view rail) {
  return SeriesKey(metric, Labels{{"rail", std::string(rail)}});
}
std::string Limit(std::string_view rail, std::string_view level) {
  return SeriesKey("edgemond_power_rail_current_limit_amperes",
                   Labels{{"rail", std::string(rail)}, {"level", std::string(level)}});
}

constexpr std::string_view kWatts = "edgemond_power_rail_watts";
constexpr std::string_view kVolts = "edgemond_power_rail_volts";
constexpr std::string_view kAmps = "edgemond_power_rail_amperes";
const std::string kInWatts = "edgemond_power_input_watts";
const std::string kInVolts = "edgemond_power_input_volts";
const std::string kInAmps = "edgemond_power_input_amperes";

// Adds `rails` as an INA3221 hwmon chip at i2c address 1-0040 (hwmon<n>); each rail is
// {label, mV, mA}, channels 1..3.
struct Channel {
  std::string label;  // "" for no label file.
  int millivolts;
  int milliamps;
};

class PowerRailCollectorTest : public ::testing::Test {
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

  std::string AddIna3221(int hwmon, std::string_view address,
                         const std::vector<Channel>& channels) {
    const std::string dev = "sys/devices/platform/i2c/" + std::string(address);
    const std::string dir = dev + "/hwmon/hwmon" + std::to_string(hwmon);
    sysfs_.Symlink(dev + "/subsystem", "../../../../bus/i2c");
    sysfs_.Write(dir + "/name", "ina3221\n");
    sysfs_.Symlink(dir + "/device", "../../../" + std::string(address));
    sysfs_.Symlink("sys/class/hwmon/hwmon" + std::to_string(hwmon),
                   "../../devices/platform/i2c/" + std::string(address) + "/hwmon/hwmon" +
                       std::to_string(hwmon));
    for (std::size_t i = 0; i < channels.size(); ++i) {
      const std::string n = std::to_string(i + 1);
      if (!channels[i].label.empty())
        sysfs_.Write(dir + "/in" + n + "_label", channels[i].label + "\n");
      sysfs_.Write(dir + "/in" + n + "_input", std::to_string(channels[i].millivolts) + "\n");
      sysfs_.Write(dir + "/curr" + n + "_input", std::to_string(channels[i].milliamps) + "\n");
    }
    return dir;
  }

  edgemond::testing::FakeSysfs sysfs_;
  edgemond::testing::FakeClock clock_;
  WallTime at_;
  std::optional<RootedFs> fs_;
  std::optional<PowerRailCollector> collector_;
};

TEST_F(PowerRailCollectorTest, OrinJp6HwmonRailsWithTheInputRailApart) {
  OpenFixture("jetson-orin-jp6");
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{
                    // VDD_IN: 5.048 V x 0.983 A (tegrastats printed 4968 mW).
                    {kInVolts, 5.048},
                    {kInAmps, 0.983},
                    {kInWatts, 5.048 * 0.983},
                    {Rail(kVolts, "VDD_CPU_GPU_CV"), 5.040},
                    {Rail(kAmps, "VDD_CPU_GPU_CV"), 0.086},
                    {Rail(kWatts, "VDD_CPU_GPU_CV"), 5.040 * 0.086},
                    {Rail(kVolts, "VDD_SOC"), 5.032},
                    {Rail(kAmps, "VDD_SOC"), 0.339},
                    {Rail(kWatts, "VDD_SOC"), 5.032 * 0.339},
                    // Unconfigured limit registers read 32760 mA.
                    {Limit("VDD_IN", "warning"), 32.76},
                    {Limit("VDD_IN", "critical"), 32.76},
                    {Limit("VDD_CPU_GPU_CV", "warning"), 32.76},
                    {Limit("VDD_CPU_GPU_CV", "critical"), 32.76},
                    {Limit("VDD_SOC", "warning"), 32.76},
                    {Limit("VDD_SOC", "critical"), 32.76},
                    // in4..in7 (shunt voltages and their sum) and curr4 are not rails.
                },
                at_, &*collector_);
}

TEST_F(PowerRailCollectorTest, XavierNxJp5) {
  OpenFixture("jetson-xavier-nx-jp5");
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  Wants want{
      {kInVolts, 5.016},
      {kInAmps, 1.893},
      {kInWatts, 5.016 * 1.893},
      {Rail(kVolts, "VDD_CPU_GPU_CV"), 5.008},
      {Rail(kAmps, "VDD_CPU_GPU_CV"), 0.742},
      {Rail(kWatts, "VDD_CPU_GPU_CV"), 5.008 * 0.742},
      {Rail(kVolts, "VDD_SOC"), 5.008},
      {Rail(kAmps, "VDD_SOC"), 0.516},
      {Rail(kWatts, "VDD_SOC"), 5.008 * 0.516},
  };
  for (const char* rail : {"VDD_IN", "VDD_CPU_GPU_CV", "VDD_SOC"}) {
    want.emplace(Limit(rail, "warning"), 32.76);
    want.emplace(Limit(rail, "critical"), 32.76);
  }
  ExpectSamples(*samples, want, at_, &*collector_);
}

TEST_F(PowerRailCollectorTest, NanoJp4IioRailsUseTheDriversPowerAndLimitsWithUnits) {
  OpenFixture("jetson-nano-jp4");
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  Wants want{
      {kInVolts, 5.102},
      {kInAmps, 0.183},
      {kInWatts, 0.933},  // in_power0_input, mW: the driver's own product, truncated.
      {Rail(kVolts, "POM_5V_GPU"), 5.094},
      {Rail(kAmps, "POM_5V_GPU"), 0.0},
      {Rail(kWatts, "POM_5V_GPU"), 0.0},
      {Rail(kVolts, "POM_5V_CPU"), 5.094},
      {Rail(kAmps, "POM_5V_CPU"), 0.017},
      {Rail(kWatts, "POM_5V_CPU"), 0.086},
  };
  for (const char* rail : {"POM_5V_IN", "POM_5V_GPU", "POM_5V_CPU"}) {
    want.emplace(Limit(rail, "warning"), 32.76);  // "32760 ma"
    want.emplace(Limit(rail, "critical"), 32.76);
  }
  ExpectSamples(*samples, want, at_, &*collector_);
}

TEST_F(PowerRailCollectorTest, NotConnectedDisabledAndUnlabelledChannels) {
  // AGX Orin's second chip: two channels labelled NC. No VDD_IN on AGX Orin: no input power.
  AddIna3221(3, "1-0040",
             {{"VDD_GPU_SOC", 5000, 1200}, {"VDD_CPU_CV", 5000, 400}, {"VIN_SYS_5V0", 5000, 300}});
  const std::string second =
      AddIna3221(4, "1-0041", {{"NC", 0, 0}, {"VDDQ_VDD2_1V8AO", 5000, 100}, {"", 5000, 50}});
  sysfs_.Write(second + "/in2_enable", "1\n");
  AddIna3221(5, "1-0042", {{"VDD_DISABLED", 5000, 0}});
  sysfs_.Write("sys/devices/platform/i2c/1-0042/hwmon/hwmon5/in1_enable", "0\n");
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{
                    {Rail(kVolts, "VDD_GPU_SOC"), 5.0},
                    {Rail(kAmps, "VDD_GPU_SOC"), 1.2},
                    {Rail(kWatts, "VDD_GPU_SOC"), 6.0},
                    {Rail(kVolts, "VDD_CPU_CV"), 5.0},
                    {Rail(kAmps, "VDD_CPU_CV"), 0.4},
                    {Rail(kWatts, "VDD_CPU_CV"), 2.0},
                    {Rail(kVolts, "VIN_SYS_5V0"), 5.0},
                    {Rail(kAmps, "VIN_SYS_5V0"), 0.3},
                    {Rail(kWatts, "VIN_SYS_5V0"), 1.5},
                    {Rail(kVolts, "VDDQ_VDD2_1V8AO"), 5.0},
                    {Rail(kAmps, "VDDQ_VDD2_1V8AO"), 0.1},
                    {Rail(kWatts, "VDDQ_VDD2_1V8AO"), 0.5},
                    {Rail(kVolts, "i2c/1-0041/in3"), 5.0},
                    {Rail(kAmps, "i2c/1-0041/in3"), 0.05},
                    {Rail(kWatts, "i2c/1-0041/in3"), 0.25},
                },
                at_, &*collector_);
}

TEST_F(PowerRailCollectorTest, AFailedReadMakesTheRailsWattsMissingWithTheSameReason) {
  const std::string dir = AddIna3221(1, "1-0040", {{"VDD_IN", 5000, 1000}, {"VDD_SOC", 5000, 200}});
  sysfs_.Write(dir + "/curr1_input", "");  // No conversion yet.
  sysfs_.Remove(dir + "/in2_input");
  sysfs_.Mkdir(dir + "/in2_input");  // EISDIR stands for an I2C error here.
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{
                    {kInVolts, 5.0},
                    {kInAmps, Missing("empty file")},
                    {kInWatts, Missing("empty file")},
                    {Rail(kVolts, "VDD_SOC"), Missing("EISDIR: Is a directory")},
                    {Rail(kAmps, "VDD_SOC"), 0.2},
                    {Rail(kWatts, "VDD_SOC"), Missing("EISDIR: Is a directory")},
                },
                at_, &*collector_);
}

TEST_F(PowerRailCollectorTest, RailNamesUsedTwiceAreMadeUnique) {
  AddIna3221(1, "1-0040", {{"VDD_SOC", 5000, 100}});
  AddIna3221(2, "1-0041", {{"VDD_SOC", 5000, 200}});
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{
                    {Rail(kVolts, "VDD_SOC"), 5.0},
                    {Rail(kAmps, "VDD_SOC"), 0.1},
                    {Rail(kWatts, "VDD_SOC"), 0.5},
                    {Rail(kVolts, "VDD_SOC.1"), 5.0},
                    {Rail(kAmps, "VDD_SOC.1"), 0.2},
                    {Rail(kWatts, "VDD_SOC.1"), 1.0},
                },
                at_, &*collector_);
}

TEST_F(PowerRailCollectorTest, RootOnlyRailFilesNeedPrivilege) {
  // Some JetPack 4.6 images make the ina3221x files readable by root only.
  const std::string iio = "sys/bus/i2c/devices/6-0040/iio:device0";
  sysfs_.Write("sys/bus/i2c/devices/6-0040/name", "ina3221x\n");
  sysfs_.Write(iio + "/rail_name_0", "POM_5V_IN\n");
  sysfs_.Write(iio + "/in_voltage0_input", "5000\n", 0);
  sysfs_.Write(iio + "/in_current0_input", "200\n", 0);
  sysfs_.Write(iio + "/in_power0_input", "1000\n", 0);
  EXPECT_EXIT(
      {
        if (!testing::DropFileReadPrivilege(sysfs_.path())) std::_Exit(2);
        auto fs = RootedFs::Open(sysfs_.path());
        if (!fs.ok()) std::_Exit(3);
        PowerRailCollector collector(*fs);
        auto samples = collector.Collect(WallTime());
        if (!samples.ok()) std::_Exit(4);
        for (const Sample& sample : *samples) {
          std::fprintf(stderr, "%s=%s\n", std::string(sample.desc->name).c_str(),
                       sample.missing_reason.c_str());
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0),
      "edgemond_power_input_volts=needs privilege\n"
      "edgemond_power_input_amperes=needs privilege\n"
      "edgemond_power_input_watts=needs privilege");
}

TEST_F(PowerRailCollectorTest, NoMonitorIsNotFound) {
  sysfs_.Mkdir("sys/class/hwmon");
  Open(sysfs_.path());
  EXPECT_TRUE(Tick().status().IsNotFound());
}

TEST(PowerRailTest, InputRails) {
  EXPECT_TRUE(PowerRailCollector::IsInputRail("VDD_IN"));
  EXPECT_TRUE(PowerRailCollector::IsInputRail("POM_5V_IN"));
  EXPECT_FALSE(PowerRailCollector::IsInputRail("VIN_SYS_5V0"));  // AGX Orin: a sub-rail.
  EXPECT_FALSE(PowerRailCollector::IsInputRail("VDD_SOC"));
}

}  // namespace
}  // namespace edgemond::collectors
