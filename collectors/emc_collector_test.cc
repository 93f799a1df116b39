#include "collectors/emc_collector.h"

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

const std::string kFrequency = "edgemond_emc_frequency_hertz";
const std::string kUtilization = "edgemond_emc_utilization_ratio";

class EmcCollectorTest : public ::testing::Test {
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
  void MakeTegra() {
    sysfs_.Write("sys/firmware/devicetree/base/compatible",
                 std::string("nvidia,p3768-0000+p3767-0005\0nvidia,tegra234\0", 45));
  }

  edgemond::testing::FakeSysfs sysfs_;
  edgemond::testing::FakeClock clock_;
  WallTime at_;
  std::optional<RootedFs> fs_;
  std::optional<EmcCollector> collector_;
};

TEST_F(EmcCollectorTest, OrinJp6FromBpmpDebugfs) {
  OpenFixture("jetson-orin-jp6");
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  // mc_all 10665 against 2133000 kHz: 0.5 % (tegrastats prints the integer part, 0 %).
  ExpectSamples(*samples, Wants{{kFrequency, 2133e6}, {kUtilization, 0.005}}, at_, &*collector_);
}

TEST_F(EmcCollectorTest, XavierNxJp5ActivityOutsideDebugfs) {
  OpenFixture("jetson-xavier-nx-jp5");
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples, Wants{{kFrequency, 1600e6}, {kUtilization, 0.15}}, at_, &*collector_);
}

TEST_F(EmcCollectorTest, NanoJp4FromTheClockFramework) {
  OpenFixture("jetson-nano-jp4");
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  // tegrastats as root on this board: EMC_FREQ 3%@204.
  ExpectSamples(*samples, Wants{{kFrequency, 204e6}, {kUtilization, 0.03}}, at_, &*collector_);
}

TEST_F(EmcCollectorTest, OnlyTegraBoardsHaveAnEmc) {
  for (const char* board : {"x86-desktop", "raspberry-pi-4"}) {
    OpenFixture(board);
    EXPECT_TRUE(Tick().status().IsNotFound()) << board;
  }
}

TEST_F(EmcCollectorTest, ATegraWithoutDebugfsHasNoEmcView) {
  MakeTegra();
  Open(sysfs_.path());
  EXPECT_TRUE(Tick().status().IsNotFound());
}

TEST_F(EmcCollectorTest, UtilizationWithoutAReadableClockSaysWhy) {
  MakeTegra();
  sysfs_.Mkdir("sys/kernel/debug/bpmp/debug/clk/emc/rate");  // Present, but reads fail.
  sysfs_.Write("sys/kernel/debug/cactmon/mc_all", "1000\n");
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{{kFrequency, Missing("EISDIR: Is a directory")},
                      {kUtilization, Missing("EMC clock: EISDIR: Is a directory")}},
                at_, &*collector_);
}

TEST_F(EmcCollectorTest, UnprivilegedItNeedsPrivilegeNeverZero) {
  MakeTegra();
  sysfs_.Write("sys/kernel/debug/bpmp/debug/clk/emc/rate", "2133000000\n");
  sysfs_.Write("sys/kernel/debug/cactmon/mc_all", "10665\n");
  // debugfs is mode 0700 for root; 0 locks out the owner too when the tests do not run as root.
  ASSERT_EQ(::chmod(sysfs_.Join("sys/kernel/debug").c_str(), 0), 0);
  EXPECT_EXIT(
      {
        if (!testing::DropFileReadPrivilege(sysfs_.path())) std::_Exit(2);
        auto fs = RootedFs::Open(sysfs_.path());
        if (!fs.ok()) std::_Exit(3);
        EmcCollector collector(*fs);
        auto samples = collector.Collect(WallTime());
        if (!samples.ok()) std::_Exit(4);
        for (const Sample& sample : *samples) {
          std::fprintf(stderr, "%s=%s\n", std::string(sample.desc->name).c_str(),
                       sample.missing_reason.c_str());
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0),
      "edgemond_emc_frequency_hertz=needs privilege\n"
      "edgemond_emc_utilization_ratio=needs privilege");
}

}  // namespace
}  // namespace edgemond::collectors
