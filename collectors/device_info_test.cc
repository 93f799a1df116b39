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
  want.board_compatible = "nvidia,p3768-0000+p3767-0005";
  want.soc = "nvidia,tegra234";
  want.l4t_release = "36.4.0";
  want.jetpack_version = "6.1";
  EXPECT_EQ(ReadFrom(edgemond::testing::FixturePath("devices/jetson-orin-jp6")), want);
}

TEST(DeviceInfoTest, JetsonXavierNxJp5) {
  DeviceInfo want;
  want.hostname = "xavier-nx";
  want.kernel_release = "5.10.120-tegra";
  want.kernel_version = "#1 SMP PREEMPT Tue Aug 1 12:32:50 PDT 2023";
  want.architecture = "aarch64";
  want.cpu_model = "NVIDIA Carmel";
  want.cpu_cores_present = 6;
  want.cpu_cores_online = 6;
  want.memory_total_bytes = 7772996ull * 1024;
  want.uptime_seconds = 86012.77;
  want.board_model = "NVIDIA Jetson Xavier NX Developer Kit";
  want.board_compatible = "nvidia,p3509-0000+p3668-0001";
  want.soc = "nvidia,tegra194";
  want.l4t_release = "35.4.1";
  want.jetpack_version = "5.1.2";
  EXPECT_EQ(ReadFrom(edgemond::testing::FixturePath("devices/jetson-xavier-nx-jp5")), want);
}

TEST(DeviceInfoTest, JetsonNanoJp4) {
  DeviceInfo want;
  want.hostname = "jetson-nano";
  want.kernel_release = "4.9.253-tegra";
  want.kernel_version = "#1 SMP PREEMPT Sat Feb 19 08:59:22 PST 2022";
  want.architecture = "aarch64";
  want.cpu_model = "ARM Cortex-A57";  // Decoded; better than L4T 32's "ARMv8 Processor rev 1".
  want.cpu_cores_present = 4;
  want.cpu_cores_online = 2;
  want.memory_total_bytes = 4059712ull * 1024;
  want.uptime_seconds = 3605.12;
  want.board_model = "NVIDIA Jetson Nano Developer Kit";
  want.board_compatible = "nvidia,p3449-0000-b00+p3448-0002";
  want.soc = "nvidia,tegra210";
  want.l4t_release = "32.7.1";
  want.jetpack_version = "4.6.1";
  EXPECT_EQ(ReadFrom(edgemond::testing::FixturePath("devices/jetson-nano-jp4")), want);
}

TEST(DeviceInfoTest, RaspberryPi4) {
  DeviceInfo want;
  want.hostname = "raspberrypi";
  want.kernel_release = "6.6.31+rpt-rpi-v8";
  want.kernel_version = "#1 SMP PREEMPT Debian 1:6.6.31-1+rpt1 (2024-05-29)";
  want.architecture = "aarch64";
  want.cpu_model = "ARM Cortex-A72";
  want.cpu_cores_present = 4;
  want.cpu_cores_online = 4;
  want.memory_total_bytes = 3880184ull * 1024;
  want.uptime_seconds = 12044.60;
  want.board_model = "Raspberry Pi 4 Model B Rev 1.4";
  want.board_compatible = "raspberrypi,4-model-b";
  want.soc = "brcm,bcm2711";
  want.board_revision = "c03114";
  EXPECT_EQ(ReadFrom(edgemond::testing::FixturePath("devices/raspberry-pi-4")), want);
}

TEST(DeviceInfoTest, X86Nvidia) {
  DeviceInfo want;
  want.hostname = "gpu-box";
  want.kernel_release = "6.5.0-44-generic";
  want.kernel_version = "#44~22.04.1-Ubuntu SMP PREEMPT_DYNAMIC Tue Jun 18 14:36:16 UTC 2";
  want.architecture = "x86_64";
  want.cpu_model = "AMD Ryzen 5 5600X 6-Core Processor";
  want.cpu_cores_present = 12;
  want.cpu_cores_online = 12;
  want.memory_total_bytes = 32785420ull * 1024;
  want.uptime_seconds = 40211.09;
  want.board_vendor = "Micro-Star International Co., Ltd.";
  want.board_model = "MS-7C56";
  EXPECT_EQ(ReadFrom(edgemond::testing::FixturePath("devices/x86-nvidia")), want);
}

TEST(DeviceInfoTest, AnL4tReleaseTheTableDoesNotKnowHasNoJetPackVersion) {
  edgemond::testing::FakeSysfs fs;
  fs.Write("etc/nv_tegra_release", "# R40 (release), REVISION: 1.0, GCID: 1, BOARD: generic\n");
  const DeviceInfo info = ReadFrom(fs.path());
  EXPECT_EQ(info.l4t_release, "40.1.0");
  EXPECT_EQ(info.jetpack_version, std::nullopt);
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
  EXPECT_EQ(info.board_revision, "c03114");
  EXPECT_EQ(info.hostname, std::nullopt);
}

}  // namespace
}  // namespace edgemond::collectors
