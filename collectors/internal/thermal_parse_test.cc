#include "collectors/internal/thermal_parse.h"

#include <gtest/gtest.h>

namespace edgemond::collectors::internal {
namespace {

TEST(ZoneTemperatureProblemTest, AcceptsRealReadings) {
  EXPECT_EQ(ZoneTemperatureProblem(45875), std::nullopt);
  EXPECT_EQ(ZoneTemperatureProblem(-40000), std::nullopt);
  EXPECT_EQ(ZoneTemperatureProblem(105000), std::nullopt);
}

TEST(ZoneTemperatureProblemTest, RejectsPlaceholdersAndGlitches) {
  EXPECT_EQ(ZoneTemperatureProblem(-256000), "sensor offline (reads -256000)");
  EXPECT_EQ(ZoneTemperatureProblem(-274000), "implausible value -274000 (millidegrees Celsius)");
  EXPECT_EQ(ZoneTemperatureProblem(512000), "implausible value 512000 (millidegrees Celsius)");
}

TEST(ZoneEnabledTest, OnlyDisabledDisables) {
  EXPECT_TRUE(ZoneEnabled("enabled\n"));
  EXPECT_FALSE(ZoneEnabled("disabled\n"));
  EXPECT_TRUE(ZoneEnabled(""));
}

TEST(TripTest, FindsTripTypeFiles) {
  EXPECT_EQ(TripIndexFromTypeFile("trip_point_0_type"), 0);
  EXPECT_EQ(TripIndexFromTypeFile("trip_point_12_type"), 12);
  EXPECT_EQ(TripIndexFromTypeFile("trip_point_0_temp"), -1);
  EXPECT_EQ(TripIndexFromTypeFile("trip_point__type"), -1);
  EXPECT_EQ(TripIndexFromTypeFile("type"), -1);
}

TEST(TripTest, ParsesTypesAndFiltersPlaceholders) {
  EXPECT_EQ(ParseTripType("critical\n"), TripType::kCritical);
  EXPECT_EQ(ParseTripType("passive"), TripType::kPassive);
  EXPECT_EQ(ParseTripType("hot"), TripType::kHot);
  EXPECT_EQ(ParseTripType("active"), TripType::kActive);
  EXPECT_EQ(ParseTripType("weird"), TripType::kUnknown);
  EXPECT_EQ(TripTypeName(TripType::kCritical), "critical");
  EXPECT_TRUE(IsExportedTrip(TripType::kCritical, 105000));
  EXPECT_TRUE(IsExportedTrip(TripType::kPassive, 95000));
  EXPECT_FALSE(IsExportedTrip(TripType::kActive, 50000));
  EXPECT_FALSE(IsExportedTrip(TripType::kPassive, 0));
  EXPECT_FALSE(IsExportedTrip(TripType::kCritical, -274000));
  EXPECT_FALSE(IsExportedTrip(TripType::kCritical, 255000));
}

TEST(PlaceholderZoneTest, PmicDieIsAPlaceholder) {
  EXPECT_TRUE(IsPlaceholderZone("PMIC-Die"));
  EXPECT_TRUE(IsPlaceholderZone("PMIC-Die\n"));
  EXPECT_FALSE(IsPlaceholderZone("CPU-therm"));
  EXPECT_FALSE(IsPlaceholderZone("pmic-thermal"));
}

}  // namespace
}  // namespace edgemond::collectors::internal
