#include "collectors/internal/names.h"

#include <gtest/gtest.h>

namespace edgemond::collectors::internal {
namespace {

using Names = std::vector<std::string>;

TEST(MakeUniqueTest, LaterDuplicatesGetASuffix) {
  EXPECT_EQ(MakeUnique({"acpitz", "x86_pkg_temp", "acpitz", "acpitz"}),
            (Names{"acpitz", "x86_pkg_temp", "acpitz.1", "acpitz.2"}));
  EXPECT_EQ(MakeUnique({"cpu-thermal", "gpu-thermal"}), (Names{"cpu-thermal", "gpu-thermal"}));
  EXPECT_EQ(MakeUnique({}), Names{});
}

TEST(MakeUniqueTest, NeverCollidesWithARealName) {
  EXPECT_EQ(MakeUnique({"a", "a", "a.1"}), (Names{"a", "a.2", "a.1"}));
}

TEST(IndexedNameTest, ParsesKernelNumbering) {
  EXPECT_EQ(IndexedName("thermal_zone12", "thermal_zone"), 12);
  EXPECT_EQ(IndexedName("hwmon0", "hwmon"), 0);
  EXPECT_EQ(IndexedName("hwmon", "hwmon"), -1);
  EXPECT_EQ(IndexedName("hwmon1a", "hwmon"), -1);
  EXPECT_EQ(IndexedName("cooling_device0", "thermal_zone"), -1);
}

}  // namespace
}  // namespace edgemond::collectors::internal
