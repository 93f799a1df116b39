#include "collectors/fan_collector.h"

#include <gtest/gtest.h>

#include "collectors/collector_test_util.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::collectors {
namespace {

using testing::ExpectSamples;
using testing::Missing;
using testing::Wants;

std::string Pwm(std::string_view fan) {
  return SeriesKey("edgemond_fan_pwm_ratio", Labels{{"fan", std::string(fan)}});
}
std::string Rpm(std::string_view fan) {
  return SeriesKey("edgemond_fan_rpm", Labels{{"fan", std::string(fan)}});
}

class FanCollectorTest : public ::testing::Test {
 protected:
  void Open(const std::string& root) {
    auto fs = RootedFs::Open(root);
    ASSERT_TRUE(fs.ok()) << fs.status();
    fs_.emplace(std::move(*fs));
    collector_.emplace(*fs_);
  }
  void OpenFixture(std::string_view board) {
    Open(edgemond::testing::FixturePath("devices/" + std::string(board)));
  }
  Result<std::vector<Sample>> Tick() {
    clock_.Advance(std::chrono::seconds(1));
    at_ = clock_.WallNow();
    return collector_->Collect(at_);
  }
  // An hwmon chip named `name` for the platform device `device`; returns its directory.
  std::string AddChip(int n, std::string_view device, std::string_view name) {
    const std::string dev = "sys/devices/platform/" + std::string(device);
    const std::string dir = dev + "/hwmon/hwmon" + std::to_string(n);
    sysfs_.Symlink(dev + "/subsystem", "../../../bus/platform");
    sysfs_.Write(dir + "/name", std::string(name) + "\n");
    sysfs_.Symlink(dir + "/device", "../../../" + std::string(device));
    sysfs_.Symlink(
        "sys/class/hwmon/hwmon" + std::to_string(n),
        "../../devices/platform/" + std::string(device) + "/hwmon/hwmon" + std::to_string(n));
    return dir;
  }

  edgemond::testing::FakeSysfs sysfs_;
  edgemond::testing::FakeClock clock_;
  WallTime at_;
  std::optional<RootedFs> fs_;
  std::optional<FanCollector> collector_;
};

TEST_F(FanCollectorTest, OrinJp6JoinsTheTachometerChipToThePwmFan) {
  OpenFixture("jetson-orin-jp6");
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples, Wants{{Pwm("pwm-fan"), 66.0 / 255}, {Rpm("pwm-fan"), 1436.0}}, at_,
                &*collector_);
}

TEST_F(FanCollectorTest, XavierNxJp5) {
  OpenFixture("jetson-xavier-nx-jp5");
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples, Wants{{Pwm("pwm-fan"), 130.0 / 255}, {Rpm("pwm-fan"), 2710.0}}, at_,
                &*collector_);
}

TEST_F(FanCollectorTest, NanoJp4ReadsTheL4t32DriversOwnFiles) {
  OpenFixture("jetson-nano-jp4");
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  // target_pwm 77; rpm_measured 0: the devkit's fan has no tachometer wire.
  ExpectSamples(*samples, Wants{{Pwm("pwm-fan"), 77.0 / 255}, {Rpm("pwm-fan"), 0.0}}, at_,
                &*collector_);
}

TEST_F(FanCollectorTest, BoardsWithoutSuchFansHaveNone) {
  for (const char* board : {"x86-desktop", "raspberry-pi-4"}) {
    OpenFixture(board);
    EXPECT_TRUE(Tick().status().IsNotFound()) << board;
  }
}

TEST_F(FanCollectorTest, APwmFanWithItsOwnTachometerAndAStrayTachometer) {
  // Raspberry Pi 5 style: pwmfan with fan1_input. Another tachometer belongs to no fan we know.
  const std::string fan = AddChip(0, "cooling_fan", "pwmfan");
  sysfs_.Write(fan + "/pwm1", "255\n");
  sysfs_.Write(fan + "/fan1_input", "5210\n");
  sysfs_.Write(AddChip(1, "39c0000.tachometer", "pwm_tach") + "/rpm", "800\n");
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{{Pwm("cooling_fan"), 1.0},
                      {Rpm("cooling_fan"), 5210.0},
                      {Rpm("39c0000.tachometer"), 800.0}},
                at_, &*collector_);
}

TEST_F(FanCollectorTest, ImpossibleReadingsAreMissing) {
  const std::string fan = AddChip(0, "pwm-fan", "pwmfan");
  sysfs_.Write(fan + "/pwm1", "300\n");
  sysfs_.Write(AddChip(1, "tach", "pwm_tach") + "/rpm", "-1\n");
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{{Pwm("pwm-fan"), Missing("implausible value 300")},
                      {Rpm("pwm-fan"), Missing("implausible value -1")}},
                at_, &*collector_);
}

}  // namespace
}  // namespace edgemond::collectors
