#include "collectors/device_info.h"

#include <gtest/gtest.h>

#include "tests/testing/temp_dir.h"

namespace edgemond::collectors {
namespace {

DeviceInfo ReadFrom(const std::string& root) {
  auto fs = RootedFs::Open(root);
  EXPECT_TRUE(fs.ok()) << fs.status();
  return ReadDeviceInfo(*fs);
}

TEST(DeviceInfoTest, X86Desktop) {
  DeviceInfo want;
  want.hostname = "optiplex";
  want.kernel_release = "5.15.0-91-generic";
  want.kernel_version = "#101-Ubuntu SMP Tue Nov 14 13:30:08 UTC 2023";
  want.architecture = "x86_64";
  want.cpu_model = "Intel(R) Core(TM) i7-7700 CPU @ 3.60GHz";
  want.cpu_cores_present = 8;
  want.cpu_cores_online = 8;
  want.memory_total_bytes = 16248856ull * 1024;
  want.uptime_seconds = 183734.52;
  want.board_vendor = "Dell Inc.";
  want.board_model = "OptiPlex 7050";
  EXPECT_EQ(ReadFrom(edgemond::testing::FixturePath("devices/x86-desktop")), want);
}

TEST(DeviceInfoTest, JetsonOrinJp6) {
  DeviceInfo want;
  want.hostname = "orin-nano";
  want.kernel_release = "5.15.148-tegra";
  want.kernel_version = "#1 SMP PREEMPT Fri Sep 13 04:32:11 PDT 2024";
  want.architecture = "aarch64";
  want.cpu_model = "ARM Cortex-A78AE";
  want.cpu_cores_present = 6;
  want.cpu_cores_online = 4;
  want.memory_total_bytes = 7802876ull * 1024;
  want.uptime_seconds = 5421.36;
  // Read through /proc/device-tree, an absolute link that must resolve inside the root.
  want.board_model = "NVIDIA Jetson Orin Nano Developer Kit";
  EXPECT_EQ(ReadFrom(edgemond::testing::FixturePath("devices/jetson-orin-jp6")), want);
}

TEST(DeviceInfoTest, AnEmptyRootGivesEmptyFieldsNotErrors) {
  edgemond::testing::TempDir dir;
  EXPECT_EQ(ReadFrom(dir.path()), DeviceInfo{});
}

TEST(DeviceInfoTest, RaspberryPiStyleCpuinfoNamesTheBoardWithoutADeviceTree) {
  edgemond::testing::FakeSysfs fs;
  fs.Write("proc/cpuinfo",
           "processor\t: 0\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\n"
           "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\n"
           "CPU part\t: 0xd08\nCPU revision\t: 3\n\n"
           "Hardware\t: BCM2835\nRevision\t: c03114\nSerial\t\t: 100000000000000a\n"
           "Model\t\t: Raspberry Pi 4 Model B Rev 1.4\n");
  fs.Write("proc/sys/kernel/hostname", "\n");  // Empty is absent, not "".
  const DeviceInfo info = ReadFrom(fs.path());
  EXPECT_EQ(info.cpu_model, "ARM Cortex-A72");
  EXPECT_EQ(info.architecture, "aarch64");
  EXPECT_EQ(info.board_model, "Raspberry Pi 4 Model B Rev 1.4");
  EXPECT_EQ(info.hostname, std::nullopt);
}

}  // namespace
}  // namespace edgemond::collectors
