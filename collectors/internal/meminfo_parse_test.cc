#include "collectors/internal/meminfo_parse.h"

#include <gtest/gtest.h>

namespace edgemond::collectors::internal {
namespace {

TEST(ParseMeminfoTest, KeepsTheFieldsWeUse) {
  const std::string_view text =
      "MemTotal:        7802876 kB\n"
      "MemFree:         5120884 kB\n"
      "MemAvailable:    6338072 kB\n"
      "Buffers:           37428 kB\n"
      "Cached:          1246084 kB\n"
      "SwapCached:          320 kB\n"
      "Active(file):     412376 kB\n"
      "Inactive(file):   792212 kB\n"
      "SwapTotal:       3901436 kB\n"
      "SwapFree:        3608572 kB\n"
      "SReclaimable:      61708 kB\n"
      "HugePages_Total:       0\n";
  const auto meminfo = ParseMeminfo(text);
  ASSERT_TRUE(meminfo.ok()) << meminfo.status();
  Meminfo expected;
  expected.mem_total_kib = 7802876;
  expected.mem_free_kib = 5120884;
  expected.mem_available_kib = 6338072;
  expected.buffers_kib = 37428;
  expected.cached_kib = 1246084;
  expected.swap_total_kib = 3901436;
  expected.swap_free_kib = 3608572;
  expected.active_file_kib = 412376;
  expected.inactive_file_kib = 792212;
  expected.s_reclaimable_kib = 61708;
  EXPECT_EQ(*meminfo, expected);
  EXPECT_EQ(AvailableKib(*meminfo), 6338072u);
}

TEST(ParseMeminfoTest, GarbledValueIsCorruption) {
  EXPECT_EQ(ParseMeminfo("MemTotal:   12x kB\n").status().code(), StatusCode::kCorruption);
  EXPECT_EQ(ParseMeminfo("MemTotal:\n").status().code(), StatusCode::kCorruption);
}

TEST(ParseMeminfoTest, UnknownAndUnitlessLinesAreSkipped) {
  const auto meminfo = ParseMeminfo("Foo: bar\nno colon here\nMemTotal: 100 kB");
  ASSERT_TRUE(meminfo.ok());
  EXPECT_EQ(meminfo->mem_total_kib, 100u);
  EXPECT_FALSE(meminfo->mem_free_kib.has_value());
}

TEST(AvailableKibTest, EstimatesFromFreeAndFileCacheBefore314) {
  Meminfo m;
  m.mem_total_kib = 1000000;
  m.mem_free_kib = 200000;
  m.buffers_kib = 10000;
  m.cached_kib = 300000;
  m.active_file_kib = 150000;
  m.inactive_file_kib = 140000;
  m.s_reclaimable_kib = 20000;
  EXPECT_EQ(AvailableKib(m), 200000u + 150000u + 140000u + 20000u);
}

TEST(AvailableKibTest, FallsBackToBuffersAndCachedOnVeryOldKernels) {
  Meminfo m;
  m.mem_total_kib = 1000000;
  m.mem_free_kib = 200000;
  m.buffers_kib = 10000;
  m.cached_kib = 300000;
  EXPECT_EQ(AvailableKib(m), 510000u);
}

TEST(AvailableKibTest, IsCappedAtTotalAndNeedsMemFree) {
  Meminfo m;
  m.mem_total_kib = 1000;
  m.mem_free_kib = 900;
  m.buffers_kib = 500;
  EXPECT_EQ(AvailableKib(m), 1000u);
  EXPECT_EQ(AvailableKib(Meminfo{}), std::nullopt);
}

}  // namespace
}  // namespace edgemond::collectors::internal
