#include "collectors/internal/cpuinfo_parse.h"

#include <gtest/gtest.h>

namespace edgemond::collectors::internal {
namespace {

constexpr std::string_view kOrin =
    "processor\t: 0\n"
    "BogoMIPS\t: 62.50\n"
    "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid\n"
    "CPU implementer\t: 0x41\n"
    "CPU architecture: 8\n"
    "CPU variant\t: 0x0\n"
    "CPU part\t: 0xd42\n"
    "CPU revision\t: 1\n"
    "\n"
    "processor\t: 1\n"
    "CPU implementer\t: 0x41\n"
    "CPU architecture: 8\n"
    "CPU part\t: 0xd42\n"
    "\n";

TEST(ParseCpuinfoTest, SplitsBlocksAndTrimsFields) {
  const auto blocks = ParseCpuinfo(kOrin);
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].Get("processor"), "0");
  EXPECT_EQ(blocks[0].Get("CPU architecture"), "8");
  EXPECT_EQ(blocks[1].Get("CPU part"), "0xd42");
  EXPECT_EQ(blocks[1].Get("model name"), std::nullopt);
}

TEST(CpuModelTest, DecodesArmCores) {
  EXPECT_EQ(CpuModel(ParseCpuinfo(kOrin)), "ARM Cortex-A78AE");
  EXPECT_EQ(Architecture(ParseCpuinfo(kOrin)), "aarch64");
}

TEST(CpuModelTest, JoinsBigLittleClustersAndPrefersDecodedNames) {
  const auto blocks = ParseCpuinfo(
      "processor\t: 0\nmodel name\t: ARMv8 Processor rev 0 (v8l)\nCPU implementer\t: 0x41\n"
      "CPU part\t: 0xd05\n\n"
      "processor\t: 4\nCPU implementer\t: 0x41\nCPU part\t: 0xd0b\n\n"
      "processor\t: 5\nCPU implementer\t: 0x41\nCPU part\t: 0xd0b\n");
  EXPECT_EQ(CpuModel(blocks), "ARM Cortex-A55 + ARM Cortex-A76");
}

TEST(CpuModelTest, ReadsX86ModelName) {
  const auto blocks = ParseCpuinfo(
      "processor\t: 0\nvendor_id\t: GenuineIntel\n"
      "model name\t: Intel(R) Core(TM) i7-7700 CPU @ 3.60GHz\nflags\t\t: fpu vme lm sse\n");
  EXPECT_EQ(CpuModel(blocks), "Intel(R) Core(TM) i7-7700 CPU @ 3.60GHz");
  EXPECT_EQ(Architecture(blocks), "x86_64");
}

TEST(ArmCoreNameTest, KnownUnknownAndForeign) {
  EXPECT_EQ(ArmCoreName(0x4e, 0x004), "NVIDIA Carmel");
  EXPECT_EQ(ArmCoreName(0x41, 0xd07), "ARM Cortex-A57");
  EXPECT_EQ(ArmCoreName(0x41, 0xfff), "ARM part 0xfff");
  EXPECT_EQ(ArmCoreName(0x99, 0x001), std::nullopt);
}

TEST(ArchitectureTest, ThirtyTwoBitArmAndRiscV) {
  EXPECT_EQ(Architecture(ParseCpuinfo("processor\t: 0\nFeatures\t: half thumb vfp neon\n"
                                      "CPU architecture: 7\n")),
            "armv7l");
  EXPECT_EQ(Architecture(ParseCpuinfo("processor\t: 0\nisa\t\t: rv64imafdc\n")), "riscv64");
  EXPECT_EQ(Architecture(ParseCpuinfo("")), std::nullopt);
}

}  // namespace
}  // namespace edgemond::collectors::internal
