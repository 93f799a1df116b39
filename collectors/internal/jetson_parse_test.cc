#include "collectors/internal/jetson_parse.h"

#include <gtest/gtest.h>

namespace edgemond::collectors::internal {
namespace {

TEST(L4tReleaseTest, ParsesTheFirstLineOfNvTegraRelease) {
  EXPECT_EQ(ParseL4tRelease("# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic, "
                            "EABI: aarch64, DATE: Wed Jan  8 01:49:37 UTC 2025\n"
                            "# KERNEL_VARIANT: oot\nTARGET_USERSPACE_LIB_DIR=nvidia\n"),
            "36.4.3");
  EXPECT_EQ(ParseL4tRelease("# R32 (release), REVISION: 7.1, GCID: 29818004, BOARD: t210ref, "
                            "EABI: aarch64, DATE: Sat Feb 19 17:05:08 UTC 2022\n"),
            "32.7.1");
  EXPECT_EQ(ParseL4tRelease("# R32 (release), REVISION: 5, GCID: 1, BOARD: t186ref\n"), "32.5.0");
}

TEST(L4tReleaseTest, OtherTextIsNotARelease) {
  EXPECT_EQ(ParseL4tRelease(""), std::nullopt);
  EXPECT_EQ(ParseL4tRelease("R36 4.3\n"), std::nullopt);
  EXPECT_EQ(ParseL4tRelease("# R36 (release), REVISION: four\n"), std::nullopt);
  EXPECT_EQ(ParseL4tRelease("# Rxx (release), REVISION: 4.3\n"), std::nullopt);
}

TEST(JetPackTableTest, KnownReleasesAndUnknownOnes) {
  EXPECT_EQ(JetPackForL4t("32.7.1"), "4.6.1");
  EXPECT_EQ(JetPackForL4t("35.4.1"), "5.1.2");
  EXPECT_EQ(JetPackForL4t("36.4.0"), "6.1");
  EXPECT_EQ(JetPackForL4t("36.4.3"), "6.2");
  EXPECT_EQ(JetPackForL4t("36.9.9"), std::nullopt);  // Newer than the table: nothing guessed.
}

TEST(NvpmodelTest, StatusIdIsTheNumberAfterPmode) {
  EXPECT_EQ(ParseNvpmodelStatus("pmode:0002 fmode:quiet\n"), 2);
  EXPECT_EQ(ParseNvpmodelStatus("pmode:0000\n"), 0);
  EXPECT_EQ(ParseNvpmodelStatus("fmode:cool pmode:0012"), 12);
  EXPECT_EQ(ParseNvpmodelStatus("pmode:\n"), std::nullopt);
  EXPECT_EQ(ParseNvpmodelStatus("pmode:00x1"), std::nullopt);
  EXPECT_EQ(ParseNvpmodelStatus(""), std::nullopt);
}

TEST(NvpmodelTest, ConfigNamesModesAndTheDefault) {
  const NvpmodelConf conf = ParseNvpmodelConf(
      "# Orin Nano Super\n< PARAM TYPE=FILE NAME=CPU_ONLINE >\nCORE_0 /sys/x\n"
      "< POWER_MODEL ID=0 NAME=15W >\nCPU_ONLINE CORE_0 1\n"
      "  < POWER_MODEL ID=1 NAME=25W >  \n"
      "< POWER_MODEL ID=2 NAME=MAXN_SUPER >\n< POWER_MODEL ID=3 NAME=7W >\n"
      "< POWER_MODEL ID=3 NAME=DUPLICATE >\n"  // The first definition wins.
      "< POWER_MODEL NAME=NOID >\n< POWER_MODEL ID=x NAME=BADID >\n"
      "< PM_CONFIG DEFAULT=2 >\n");
  EXPECT_EQ(conf.modes,
            (std::vector<NvpmodelMode>{{0, "15W"}, {1, "25W"}, {2, "MAXN_SUPER"}, {3, "7W"}}));
  EXPECT_EQ(conf.default_id, 2);
  EXPECT_EQ(conf.NameOf(3), "7W");
  EXPECT_EQ(conf.NameOf(9), std::nullopt);
  EXPECT_TRUE(ParseNvpmodelConf("<<<\n< >\n<\n").modes.empty());
}

TEST(UnitValueTest, Ina3221xLimitFilesCarryAUnit) {
  EXPECT_EQ(ParseValueWithUnit("32760 ma\n", "ma").value(), 32760);
  EXPECT_EQ(ParseValueWithUnit("1000 mA", "ma").value(), 1000);
  EXPECT_EQ(ParseValueWithUnit("850\n", "ma").value(), 850);
  EXPECT_TRUE(ParseValueWithUnit("\n", "ma").status().IsUnavailable());
  EXPECT_EQ(ParseValueWithUnit("850 mw", "ma").status().code(), StatusCode::kCorruption);
  EXPECT_EQ(ParseValueWithUnit("850 ma extra", "ma").status().code(), StatusCode::kCorruption);
}

TEST(JetsonGpuNodeTest, RecognisesNvgpuByNameOrCompatible) {
  EXPECT_TRUE(IsJetsonGpuNode("gpu", {"nvidia,tegra210-gm20b", "nvidia,gm20b"}));
  EXPECT_TRUE(IsJetsonGpuNode("gv11b", {}));
  EXPECT_TRUE(IsJetsonGpuNode("gpu", {"nvidia,ga10b"}));
  EXPECT_TRUE(IsJetsonGpuNode("ga10b", {"nvidia,ga10b"}));
  EXPECT_FALSE(IsJetsonGpuNode("gpu", {"arm,mali-valhall-csf"}));
  EXPECT_FALSE(IsJetsonGpuNode("vic", {"nvidia,tegra234-vic"}));
  EXPECT_FALSE(IsJetsonGpuNode("", {}));
  EXPECT_EQ(JetsonGpuName("gpu", {"nvidia,tegra210-gm20b", "nvidia,gm20b"}), "gm20b");
  EXPECT_EQ(JetsonGpuName("gpu", {"nvidia,ga10b"}), "ga10b");
  EXPECT_EQ(JetsonGpuName("gv11b", {}), "gv11b");
}

}  // namespace
}  // namespace edgemond::collectors::internal
