#include "collectors/memory_collector.h"

#include <gtest/gtest.h>

#include "collectors/collector_test_util.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::collectors {
namespace {

using testing::ExpectSamples;
using testing::Missing;
using testing::Wants;

constexpr double kKib = 1024.0;

class MemoryCollectorTest : public ::testing::Test {
 protected:
  Result<std::vector<Sample>> CollectFrom(const std::string& root) {
    auto fs = RootedFs::Open(root);
    EXPECT_TRUE(fs.ok()) << fs.status();
    if (!fs.ok()) return fs.status();
    fs_.emplace(std::move(*fs));
    collector_.emplace(*fs_);
    return collector_->Collect(clock_.WallNow());
  }

  edgemond::testing::FakeClock clock_;
  std::optional<RootedFs> fs_;
  std::optional<MemoryCollector> collector_;
};

TEST_F(MemoryCollectorTest, X86Desktop) {
  const auto samples = CollectFrom(edgemond::testing::FixturePath("devices/x86-desktop"));
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{
                    {"edgemond_memory_total_bytes", 16248856 * kKib},
                    {"edgemond_memory_free_bytes", 6914380 * kKib},
                    {"edgemond_memory_available_bytes", 11287640 * kKib},
                    {"edgemond_memory_used_bytes", (16248856 - 11287640) * kKib},
                    {"edgemond_memory_buffers_bytes", 402116 * kKib},
                    {"edgemond_memory_cached_bytes", 4325532 * kKib},
                    {"edgemond_swap_total_bytes", 2097148 * kKib},
                    {"edgemond_swap_used_bytes", (2097148 - 1835004) * kKib},
                    {"edgemond_swap_free_bytes", 1835004 * kKib},
                },
                clock_.WallNow(), &*collector_);
}

TEST_F(MemoryCollectorTest, JetsonOrinJp6) {
  const auto samples = CollectFrom(edgemond::testing::FixturePath("devices/jetson-orin-jp6"));
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{
                    {"edgemond_memory_total_bytes", 7802876 * kKib},
                    {"edgemond_memory_free_bytes", 5120884 * kKib},
                    {"edgemond_memory_available_bytes", 6338072 * kKib},
                    {"edgemond_memory_used_bytes", (7802876 - 6338072) * kKib},
                    {"edgemond_memory_buffers_bytes", 37428 * kKib},
                    {"edgemond_memory_cached_bytes", 1246084 * kKib},
                    {"edgemond_swap_total_bytes", 3901436 * kKib},
                    {"edgemond_swap_used_bytes", (3901436 - 3608572) * kKib},
                    {"edgemond_swap_free_bytes", 3608572 * kKib},
                },
                clock_.WallNow(), &*collector_);
}

TEST_F(MemoryCollectorTest, EstimatesAvailableOnKernelsBefore314) {
  edgemond::testing::FakeSysfs fs;
  fs.Write("proc/meminfo",
           "MemTotal:        2048000 kB\n"
           "MemFree:          500000 kB\n"
           "Buffers:           20000 kB\n"
           "Cached:           600000 kB\n"
           "Active(file):     300000 kB\n"
           "Inactive(file):   250000 kB\n"
           "SwapTotal:             0 kB\n"
           "SwapFree:              0 kB\n"
           "SReclaimable:      40000 kB\n");
  const auto samples = CollectFrom(fs.path());
  ASSERT_TRUE(samples.ok()) << samples.status();
  const double available = (500000 + 300000 + 250000 + 40000) * kKib;
  ExpectSamples(*samples,
                Wants{
                    {"edgemond_memory_total_bytes", 2048000 * kKib},
                    {"edgemond_memory_free_bytes", 500000 * kKib},
                    {"edgemond_memory_available_bytes", available},
                    {"edgemond_memory_used_bytes", 2048000 * kKib - available},
                    {"edgemond_memory_buffers_bytes", 20000 * kKib},
                    {"edgemond_memory_cached_bytes", 600000 * kKib},
                    {"edgemond_swap_total_bytes", 0},
                    {"edgemond_swap_used_bytes", 0},
                    {"edgemond_swap_free_bytes", 0},
                },
                clock_.WallNow(), &*collector_);
}

TEST_F(MemoryCollectorTest, AbsentLinesAreMissingNotZero) {
  edgemond::testing::FakeSysfs fs;
  fs.Write("proc/meminfo", "MemTotal:        1000 kB\nMemFree:  100 kB\nMemAvailable: 400 kB\n");
  const auto samples = CollectFrom(fs.path());
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{
                    {"edgemond_memory_total_bytes", 1000 * kKib},
                    {"edgemond_memory_free_bytes", 100 * kKib},
                    {"edgemond_memory_available_bytes", 400 * kKib},
                    {"edgemond_memory_used_bytes", 600 * kKib},
                    {"edgemond_memory_buffers_bytes", Missing("not in /proc/meminfo")},
                    {"edgemond_memory_cached_bytes", Missing("not in /proc/meminfo")},
                    {"edgemond_swap_total_bytes", Missing("not in /proc/meminfo")},
                    {"edgemond_swap_used_bytes", Missing("not in /proc/meminfo")},
                    {"edgemond_swap_free_bytes", Missing("not in /proc/meminfo")},
                },
                clock_.WallNow(), &*collector_);
}

TEST_F(MemoryCollectorTest, SwapTrafficFromVmstatInBytes) {
  edgemond::testing::FakeSysfs fs;
  fs.Write("proc/meminfo",
           "MemTotal: 1000 kB\nMemFree: 100 kB\nMemAvailable: 400 kB\n"
           "Buffers: 1 kB\nCached: 2 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n");
  fs.Write("proc/vmstat", "nr_free_pages 1234\npswpin 300\npswpout 1000\npgfault 99\n");
  auto root = RootedFs::Open(fs.path());
  ASSERT_TRUE(root.ok());
  MemoryCollector collector(*root, /*page_size_bytes=*/16384);
  const auto samples = collector.Collect(clock_.WallNow());
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{
                    {"edgemond_memory_total_bytes", 1000 * kKib},
                    {"edgemond_memory_free_bytes", 100 * kKib},
                    {"edgemond_memory_available_bytes", 400 * kKib},
                    {"edgemond_memory_used_bytes", 600 * kKib},
                    {"edgemond_memory_buffers_bytes", 1 * kKib},
                    {"edgemond_memory_cached_bytes", 2 * kKib},
                    {"edgemond_swap_total_bytes", 0},
                    {"edgemond_swap_used_bytes", 0},
                    {"edgemond_swap_free_bytes", 0},
                    {"edgemond_swap_in_bytes_total", 300 * 16384.0},
                    {"edgemond_swap_out_bytes_total", 1000 * 16384.0},
                },
                clock_.WallNow(), &collector);
  fs.Write("proc/vmstat", "nr_free_pages 1234\n");  // A kernel without swap accounting.
  const auto without = collector.Collect(clock_.WallNow());
  ASSERT_TRUE(without.ok());
  for (const Sample& sample : *without) {
    if (sample.desc->name == "edgemond_swap_in_bytes_total") {
      EXPECT_EQ(sample.missing_reason, "not in /proc/vmstat");
    }
  }
}

TEST_F(MemoryCollectorTest, AnAbsentVmstatIsLookedForOnlyOnRescans) {
  edgemond::testing::FakeSysfs fs;
  fs.Write("proc/meminfo", "MemTotal: 1000 kB\nMemFree: 100 kB\nMemAvailable: 400 kB\n");
  auto root = RootedFs::Open(fs.path());
  ASSERT_TRUE(root.ok());
  MemoryCollector collector(*root, /*page_size_bytes=*/4096, /*rescan_every_ticks=*/3);
  const auto has_swap_in = [&] {
    const auto samples = collector.Collect(clock_.WallNow());
    EXPECT_TRUE(samples.ok()) << samples.status();
    for (const Sample& sample : *samples) {
      if (sample.desc->name == "edgemond_swap_in_bytes_total") return true;
    }
    return false;
  };
  EXPECT_FALSE(has_swap_in());  // Tick 1: looked, absent.
  fs.Write("proc/vmstat", "pswpin 1\npswpout 2\n");
  EXPECT_FALSE(has_swap_in());  // Ticks 2 and 3: not looked for.
  EXPECT_FALSE(has_swap_in());
  EXPECT_TRUE(has_swap_in());  // Tick 4: the rescan finds it.
  EXPECT_TRUE(has_swap_in());  // Present: read every tick.
}

TEST_F(MemoryCollectorTest, UnreadableOrGarbledMeminfoFailsTheCollector) {
  edgemond::testing::FakeSysfs fs;
  fs.Mkdir("proc");
  EXPECT_TRUE(CollectFrom(fs.path()).status().IsNotFound());
  fs.Write("proc/meminfo", "MemTotal: lots\n");
  EXPECT_EQ(collector_->Collect(clock_.WallNow()).status().code(), StatusCode::kCorruption);
  fs.Write("proc/meminfo", "MemFree: 100 kB\n");
  EXPECT_EQ(collector_->Collect(clock_.WallNow()).status().code(), StatusCode::kCorruption);
  fs.Write("proc/meminfo", "MemTotal: 100 kB\n");
  EXPECT_TRUE(collector_->Collect(clock_.WallNow()).ok());
}

}  // namespace
}  // namespace edgemond::collectors
