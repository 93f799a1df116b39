#include "collectors/internal/discovery.h"

#include <gtest/gtest.h>

#include "tests/testing/temp_dir.h"

namespace edgemond::collectors::internal {
namespace {

TEST(DeviceTreeStringsTest, SplitsOnNulAndDropsEmptyStrings) {
  EXPECT_EQ(
      SplitDeviceTreeStrings(std::string("nvidia,p3768-0000+p3767-0005\0nvidia,tegra234\0", 45)),
      (std::vector<std::string>{"nvidia,p3768-0000+p3767-0005", "nvidia,tegra234"}));
  EXPECT_EQ(SplitDeviceTreeStrings(std::string("gpu\0", 4)), std::vector<std::string>{"gpu"});
  EXPECT_EQ(SplitDeviceTreeStrings(std::string("a\0\0b", 4)), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(SplitDeviceTreeStrings("no-nul"), std::vector<std::string>{"no-nul"});
  EXPECT_TRUE(SplitDeviceTreeStrings("").empty());
}

TEST(TegraBoardTest, KnownByTheRootCompatible) {
  const auto tegra = [](const std::string& board) {
    auto fs = RootedFs::Open(edgemond::testing::FixturePath("devices/" + board));
    EXPECT_TRUE(fs.ok()) << fs.status();
    return IsTegraBoard(*fs);
  };
  EXPECT_TRUE(tegra("jetson-orin-jp6"));
  EXPECT_TRUE(tegra("jetson-xavier-nx-jp5"));
  EXPECT_TRUE(tegra("jetson-nano-jp4"));
  EXPECT_FALSE(tegra("raspberry-pi-4"));
  EXPECT_FALSE(tegra("x86-desktop"));  // No device tree at all.
}

TEST(HwmonChipsTest, ListedInIndexOrderWithUniqueIdsAndTheirDevice) {
  edgemond::testing::FakeSysfs sysfs;
  for (const int n : {12, 3}) {
    const std::string dir = "sys/devices/virtual/hwmon/hwmon" + std::to_string(n);
    sysfs.Write(dir + "/name", "acme\n");
    sysfs.Symlink("sys/class/hwmon/hwmon" + std::to_string(n),
                  "../../devices/virtual/hwmon/hwmon" + std::to_string(n));
  }
  sysfs.Write("sys/class/hwmon/README", "not a chip\n");
  auto fs = RootedFs::Open(sysfs.path());
  ASSERT_TRUE(fs.ok());
  auto chips = ListHwmonChips(*fs);
  ASSERT_TRUE(chips.ok()) << chips.status();
  ASSERT_EQ(chips->size(), 2u);
  EXPECT_EQ((*chips)[0].index, 3);
  EXPECT_EQ((*chips)[0].id, "virtual/acme");
  EXPECT_EQ((*chips)[0].dir, "/sys/devices/virtual/hwmon/hwmon3");
  EXPECT_EQ((*chips)[0].device_path, "");
  EXPECT_EQ((*chips)[1].id, "virtual/acme.1");
}

TEST(CpufreqPolicyDirsTest, EveryPolicyDirectoryAndNothingElse) {
  edgemond::testing::FakeSysfs sysfs;
  const std::string cpufreq = "sys/devices/system/cpu/cpufreq/";
  for (const char* policy : {"policy4", "policy0", "policyx"}) {
    sysfs.Write(cpufreq + policy + "/scaling_max_freq", "1500000\n");
  }
  sysfs.Write(cpufreq + "boost", "1\n");
  auto fs = RootedFs::Open(sysfs.path());
  ASSERT_TRUE(fs.ok()) << fs.status();
  EXPECT_EQ(CpufreqPolicyDirs(*fs),
            (std::vector<std::string>{"/sys/devices/system/cpu/cpufreq/policy0/",
                                      "/sys/devices/system/cpu/cpufreq/policy4/"}));
}

TEST(CpufreqPolicyDirsTest, NoneWithoutCpufreq) {
  edgemond::testing::FakeSysfs sysfs;
  sysfs.Write("sys/devices/system/cpu/online", "0-3\n");
  auto fs = RootedFs::Open(sysfs.path());
  ASSERT_TRUE(fs.ok()) << fs.status();
  EXPECT_TRUE(CpufreqPolicyDirs(*fs).empty());
}

TEST(HwmonChipsTest, NoHwmonClassIsNotFound) {
  edgemond::testing::TempDir dir;
  auto fs = RootedFs::Open(dir.path());
  ASSERT_TRUE(fs.ok());
  EXPECT_TRUE(ListHwmonChips(*fs).status().IsNotFound());
  EXPECT_TRUE(BoardCompatible(*fs).empty());
  EXPECT_FALSE(IsTegraBoard(*fs));
}

}  // namespace
}  // namespace edgemond::collectors::internal
