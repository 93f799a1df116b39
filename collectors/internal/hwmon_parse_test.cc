#include "collectors/internal/hwmon_parse.h"

#include <gtest/gtest.h>

namespace edgemond::collectors::internal {
namespace {

using Attr = HwmonAttribute;

TEST(ParseHwmonAttributeNameTest, RecognizesSensorInputsLabelsAndPwm) {
  EXPECT_EQ(ParseHwmonAttributeName("temp1_input"), (Attr{HwmonKind::kTemp, 1, HwmonItem::kInput}));
  EXPECT_EQ(ParseHwmonAttributeName("temp12_label"),
            (Attr{HwmonKind::kTemp, 12, HwmonItem::kLabel}));
  EXPECT_EQ(ParseHwmonAttributeName("temp2_crit"), (Attr{HwmonKind::kTemp, 2, HwmonItem::kCrit}));
  EXPECT_EQ(ParseHwmonAttributeName("in0_input"), (Attr{HwmonKind::kIn, 0, HwmonItem::kInput}));
  EXPECT_EQ(ParseHwmonAttributeName("curr3_input"), (Attr{HwmonKind::kCurr, 3, HwmonItem::kInput}));
  EXPECT_EQ(ParseHwmonAttributeName("power1_average"),
            (Attr{HwmonKind::kPower, 1, HwmonItem::kAverage}));
  EXPECT_EQ(ParseHwmonAttributeName("power1_input"),
            (Attr{HwmonKind::kPower, 1, HwmonItem::kInput}));
  EXPECT_EQ(ParseHwmonAttributeName("energy1_input"),
            (Attr{HwmonKind::kEnergy, 1, HwmonItem::kInput}));
  EXPECT_EQ(ParseHwmonAttributeName("fan1_input"), (Attr{HwmonKind::kFan, 1, HwmonItem::kInput}));
  EXPECT_EQ(ParseHwmonAttributeName("pwm1"), (Attr{HwmonKind::kPwm, 1, HwmonItem::kValue}));
}

TEST(ParseHwmonAttributeNameTest, IgnoresLimitsAlarmsAndOtherFiles) {
  for (const char* name : {"temp1_max",
                           "temp1_min",
                           "temp1_crit_hyst",
                           "temp1_crit_alarm",
                           "in1_enable",
                           "curr1_max",
                           "power1_average_interval",
                           "power1_cap",
                           "pwm1_enable",
                           "pwm1_mode",
                           "fan1_target",
                           "name",
                           "device",
                           "uevent",
                           "power",
                           "intrusion0_alarm",
                           "temp_input",
                           "tempx_input",
                           "rpm",
                           "temp1_input_extra",
                           "in7_crit",
                           "energy1_average"}) {
    EXPECT_EQ(ParseHwmonAttributeName(name), std::nullopt) << name;
  }
}

TEST(HwmonScaleTest, ConvertsToBaseUnits) {
  EXPECT_DOUBLE_EQ(45000 * HwmonScale("coretemp", HwmonKind::kTemp, 1), 45.0);
  EXPECT_DOUBLE_EQ(5040 * HwmonScale("ina3221", HwmonKind::kIn, 1), 5.04);
  EXPECT_DOUBLE_EQ(1520 * HwmonScale("ina3221", HwmonKind::kCurr, 1), 1.52);
  EXPECT_DOUBLE_EQ(35000000 * HwmonScale("amdgpu", HwmonKind::kPower, 1), 35.0);
  EXPECT_DOUBLE_EQ(2000000 * HwmonScale("x", HwmonKind::kEnergy, 1), 2.0);
  EXPECT_DOUBLE_EQ(1200 * HwmonScale("x", HwmonKind::kFan, 1), 1200.0);
  EXPECT_DOUBLE_EQ(255 * HwmonScale("x", HwmonKind::kPwm, 1), 1.0);
}

TEST(HwmonScaleTest, Ina3221ShuntChannelsAreMicrovolts) {
  EXPECT_DOUBLE_EQ(HwmonScale("ina3221", HwmonKind::kIn, 4), 1e-6);
  EXPECT_DOUBLE_EQ(HwmonScale("ina3221", HwmonKind::kIn, 7), 1e-6);
  EXPECT_DOUBLE_EQ(HwmonScale("ina3221", HwmonKind::kIn, 3), 1e-3);
  EXPECT_DOUBLE_EQ(HwmonScale("ina219", HwmonKind::kIn, 4), 1e-3);
}

TEST(HwmonValueProblemTest, RejectsImpossibleReadings) {
  EXPECT_EQ(HwmonValueProblem(HwmonKind::kTemp, 38850), std::nullopt);
  EXPECT_EQ(HwmonValueProblem(HwmonKind::kTemp, -20000), std::nullopt);
  EXPECT_EQ(HwmonValueProblem(HwmonKind::kTemp, -273150), "implausible value -273150");
  EXPECT_EQ(HwmonValueProblem(HwmonKind::kTemp, 65261850), "implausible value 65261850");
  EXPECT_EQ(HwmonValueProblem(HwmonKind::kFan, -1), "implausible value -1");
  EXPECT_EQ(HwmonValueProblem(HwmonKind::kPwm, 256), "implausible value 256");
  EXPECT_EQ(HwmonValueProblem(HwmonKind::kCurr, -120), std::nullopt);
}

TEST(BusFromSubsystemTargetTest, FindsTheBusName) {
  EXPECT_EQ(BusFromSubsystemTarget("../../../bus/pci"), "pci");
  EXPECT_EQ(BusFromSubsystemTarget("../../../../../../bus/i2c"), "i2c");
  EXPECT_EQ(BusFromSubsystemTarget("/sys/bus/platform"), "platform");
  EXPECT_EQ(BusFromSubsystemTarget("../../../../class/nvme"), "");
  EXPECT_EQ(BusFromSubsystemTarget(""), "");
}

}  // namespace
}  // namespace edgemond::collectors::internal
