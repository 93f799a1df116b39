#include "collectors/thermal_collector.h"

#include <gtest/gtest.h>

#include "collectors/collector_test_util.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::collectors {
namespace {

using testing::ExpectSamples;
using testing::Missing;
using testing::Wants;

std::string Zone(std::string_view zone, std::string_view type) {
  return "edgemond_thermal_zone_celsius{type=\"" + std::string(type) + "\",zone=\"" +
         std::string(zone) + "\"}";
}
std::string Trip(std::string_view zone, std::string_view type, int trip,
                 std::string_view trip_type) {
  return "edgemond_thermal_zone_trip_celsius{trip=\"" + std::to_string(trip) + "\",trip_type=\"" +
         std::string(trip_type) + "\",type=\"" + std::string(type) + "\",zone=\"" +
         std::string(zone) + "\"}";
}

class ThermalCollectorTest : public ::testing::Test {
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

  // A zone laid out as the kernel does: the device under virtual/thermal, a class link to it.
  void AddZone(int index, std::string_view type, std::string_view temp) {
    const std::string dir = "sys/devices/virtual/thermal/thermal_zone" + std::to_string(index);
    sysfs_.Write(dir + "/type", std::string(type) + "\n");
    sysfs_.Write(dir + "/temp", temp);
    sysfs_.Write(dir + "/mode", "enabled\n");
    sysfs_.Symlink("sys/class/thermal/thermal_zone" + std::to_string(index),
                   "../../devices/virtual/thermal/thermal_zone" + std::to_string(index));
  }

  edgemond::testing::FakeSysfs sysfs_;
  edgemond::testing::FakeClock clock_;
  WallTime at_;
  std::optional<RootedFs> fs_;
  std::optional<ThermalCollector> collector_;
};

TEST_F(ThermalCollectorTest, X86Desktop) {
  Open(edgemond::testing::FixturePath("devices/x86-desktop"));
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{
                    {Zone("acpitz", "acpitz"), 27.8},
                    {Zone("acpitz.1", "acpitz"), 29.8},
                    {Zone("pch_skylake", "pch_skylake"), 47.5},
                    {Zone("x86_pkg_temp", "x86_pkg_temp"), 45.0},
                    {Trip("acpitz", "acpitz", 0, "critical"), 105.0},
                    {Trip("acpitz.1", "acpitz", 0, "critical"), 105.0},
                    {Trip("pch_skylake", "pch_skylake", 0, "critical"), 115.0},
                },
                at_, &*collector_);
}

TEST_F(ThermalCollectorTest, JetsonOrinJp6) {
  Open(edgemond::testing::FixturePath("devices/jetson-orin-jp6"));
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  Wants want{
      {Zone("cpu-thermal", "cpu-thermal"), 45.875},
      {Zone("gpu-thermal", "gpu-thermal"), 45.437},
      {Zone("cv0-thermal", "cv0-thermal"), Missing("sensor offline (reads -256000)")},
      {Zone("cv1-thermal", "cv1-thermal"), Missing("sensor offline (reads -256000)")},
      {Zone("cv2-thermal", "cv2-thermal"), Missing("sensor offline (reads -256000)")},
      {Zone("soc0-thermal", "soc0-thermal"), 44.843},
      {Zone("soc1-thermal", "soc1-thermal"), 46.312},
      {Zone("soc2-thermal", "soc2-thermal"), 45.843},
      {Zone("tj-thermal", "tj-thermal"), 46.312},
      {Trip("tj-thermal", "tj-thermal", 2, "critical"), 104.5},
  };
  for (const char* type : {"cpu-thermal", "gpu-thermal", "cv0-thermal", "cv1-thermal",
                           "cv2-thermal", "soc0-thermal", "soc1-thermal", "soc2-thermal"}) {
    want.emplace(Trip(type, type, 0, "passive"), 99.0);
    want.emplace(Trip(type, type, 1, "critical"), 104.5);
  }
  ExpectSamples(*samples, want, at_, &*collector_);
}

TEST_F(ThermalCollectorTest, JetsonNanoJp4PmicDieIsAPlaceholderNotAReading) {
  Open(edgemond::testing::FixturePath("devices/jetson-nano-jp4"));
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{
                    {Zone("AO-therm", "AO-therm"), 27.5},
                    {Zone("CPU-therm", "CPU-therm"), 23.5},
                    {Trip("CPU-therm", "CPU-therm", 0, "critical"), 102.5},
                    {Trip("CPU-therm", "CPU-therm", 1, "passive"), 97.0},
                    {Zone("GPU-therm", "GPU-therm"), 22.5},
                    {Trip("GPU-therm", "GPU-therm", 0, "critical"), 102.5},
                    {Trip("GPU-therm", "GPU-therm", 1, "passive"), 97.0},
                    {Zone("PLL-therm", "PLL-therm"), 20.5},
                    // It reads 100000 forever: a 100 °C Nano would set off every alert.
                    {Zone("PMIC-Die", "PMIC-Die"), Missing("placeholder (reports a constant)")},
                    {Zone("thermal-fan-est", "thermal-fan-est"), 23.0},
                },
                at_, &*collector_);
}

TEST_F(ThermalCollectorTest, RaspberryPi4) {
  Open(edgemond::testing::FixturePath("devices/raspberry-pi-4"));
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{{Zone("cpu-thermal", "cpu-thermal"), 48.686},
                      {Trip("cpu-thermal", "cpu-thermal", 0, "critical"), 110.0}},
                at_, &*collector_);
}

TEST_F(ThermalCollectorTest, BrokenReadingsAreMissingWithTheReason) {
  AddZone(0, "ok", "41000\n");
  AddZone(1, "bpmp", "-256000\n");
  AddZone(2, "glitch", "512000\n");
  AddZone(3, "empty", "");
  AddZone(4, "garbage", "n/a\n");
  AddZone(5, "off", "40000\n");
  sysfs_.Write("sys/devices/virtual/thermal/thermal_zone5/mode", "disabled\n");
  AddZone(6, "dir", "");
  // A directory where the temperature file should be: the read fails (EISDIR), as EIO would.
  sysfs_.Remove("sys/devices/virtual/thermal/thermal_zone6/temp");
  sysfs_.Mkdir("sys/devices/virtual/thermal/thermal_zone6/temp");
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(
      *samples,
      Wants{
          {Zone("ok", "ok"), 41.0},
          {Zone("bpmp", "bpmp"), Missing("sensor offline (reads -256000)")},
          {Zone("glitch", "glitch"), Missing("implausible value 512000 (millidegrees Celsius)")},
          {Zone("empty", "empty"), Missing("empty file")},
          {Zone("garbage", "garbage"), Missing("not a number: \"n/a\"")},
          {Zone("off", "off"), Missing("disabled")},
          {Zone("dir", "dir"), Missing("EISDIR: Is a directory")},
      },
      at_, &*collector_);
}

TEST_F(ThermalCollectorTest, ZonesAreNamedByTypeNotByNumber) {
  // Numbered out of order, with a gap and a duplicate type: names follow the zone numbers' order.
  AddZone(10, "acpitz", "30000\n");
  AddZone(2, "acpitz", "20000\n");
  AddZone(5, "iwlwifi_1", "40000\n");
  sysfs_.Write("sys/devices/virtual/thermal/thermal_zone7/type", "\n");  // No type at all.
  sysfs_.Write("sys/devices/virtual/thermal/thermal_zone7/temp", "50000\n");
  sysfs_.Symlink("sys/class/thermal/thermal_zone7", "../../devices/virtual/thermal/thermal_zone7");
  sysfs_.Write("sys/devices/virtual/thermal/cooling_device0/type", "Processor\n");
  sysfs_.Symlink("sys/class/thermal/cooling_device0",
                 "../../devices/virtual/thermal/cooling_device0");
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{
                    {Zone("acpitz", "acpitz"), 20.0},
                    {Zone("iwlwifi_1", "iwlwifi_1"), 40.0},
                    {Zone("thermal_zone7", "thermal_zone7"), 50.0},
                    {Zone("acpitz.1", "acpitz"), 30.0},
                },
                at_, &*collector_);
}

TEST_F(ThermalCollectorTest, ZonesThatComeAndGoAreSeenAtTheNextRescan) {
  AddZone(0, "cpu-thermal", "40000\n");
  AddZone(1, "gpu-thermal", "41000\n");
  Open(sysfs_.path(), /*rescan_every_ticks=*/3);
  ASSERT_TRUE(Tick().ok());
  sysfs_.Remove("sys/class/thermal/thermal_zone1");
  sysfs_.Remove("sys/devices/virtual/thermal/thermal_zone1");
  AddZone(2, "tj-thermal", "42000\n");
  ASSERT_TRUE(Tick().ok());
  ASSERT_TRUE(Tick().ok());
  const auto samples = Tick();  // Three ticks after the first scan.
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(
      *samples,
      Wants{{Zone("cpu-thermal", "cpu-thermal"), 40.0}, {Zone("tj-thermal", "tj-thermal"), 42.0}},
      at_);
}

TEST_F(ThermalCollectorTest, AReadFailingWithEnoentRescansWithinTheTick) {
  // On sysfs, reading a removed device through an open fd fails with ENODEV, PolledFile reopens,
  // and the reopen fails with ENOENT. A regular file keeps its content through an open fd, so this
  // test starts from a zone whose temp file is already gone: every read of it is an ENOENT.
  AddZone(0, "cpu-thermal", "40000\n");
  AddZone(1, "gpu-thermal", "41000\n");
  sysfs_.Remove("sys/devices/virtual/thermal/thermal_zone1/temp");
  Open(sysfs_.path());
  auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  // Still listed (its directory is there): missing, with the reason, and no retry loop.
  ExpectSamples(
      *samples,
      Wants{{Zone("cpu-thermal", "cpu-thermal"), 40.0},
            {Zone("gpu-thermal", "gpu-thermal"), Missing("ENOENT: No such file or directory")}},
      at_);
  sysfs_.Remove("sys/class/thermal/thermal_zone1");
  sysfs_.Remove("sys/devices/virtual/thermal/thermal_zone1");
  samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples, Wants{{Zone("cpu-thermal", "cpu-thermal"), 40.0}}, at_);
}

TEST_F(ThermalCollectorTest, NoThermalZonesIsNotFound) {
  sysfs_.Mkdir("sys/class");
  Open(sysfs_.path());
  EXPECT_TRUE(Tick().status().IsNotFound());
  sysfs_.Mkdir("sys/class/thermal");
  Open(sysfs_.path());
  EXPECT_TRUE(Tick().status().IsNotFound());
}

}  // namespace
}  // namespace edgemond::collectors
