#include "collectors/internal/tick_files.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "tests/testing/temp_dir.h"

namespace edgemond::collectors::internal {
namespace {

constexpr std::string_view kInput = "/sys/class/hwmon/hwmon1/in1_input";

class TickFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sysfs_.Write("sys/class/hwmon/hwmon1/in1_input", "5040\n");
    sysfs_.Write("sys/class/hwmon/hwmon1/curr1_input", "312\n");
    auto fs = RootedFs::Open(sysfs_.path());
    ASSERT_TRUE(fs.ok()) << fs.status();
    fs_.emplace(std::move(*fs));
  }

  static std::string Read(TickFile& file) {
    std::string text;
    const Status status = file.ReadInto(text);
    return status.ok() ? text : "error: " + status.ToString();
  }

  edgemond::testing::FakeSysfs sysfs_;
  std::optional<RootedFs> fs_;
};

TEST_F(TickFilesTest, TwoReadersOfAPathGetOneReadPerTick) {
  TickFiles files(*fs_);
  TickFile hwmon = files.Open(std::string(kInput));
  TickFile power_rail = files.Open(std::string(kInput));
  EXPECT_EQ(files.live_files(), 1u);

  EXPECT_EQ(Read(hwmon), "5040\n");
  sysfs_.Write("sys/class/hwmon/hwmon1/in1_input", "5100\n");
  // Same tick: the second reader gets what the first read, not the device's new value.
  EXPECT_EQ(Read(power_rail), "5040\n");
  EXPECT_EQ(Read(hwmon), "5040\n");

  files.StartTick();
  EXPECT_EQ(Read(power_rail), "5100\n");
  EXPECT_EQ(Read(hwmon), "5100\n");
}

TEST_F(TickFilesTest, DifferentPathsAreDifferentFiles) {
  TickFiles files(*fs_);
  TickFile volts = files.Open(std::string(kInput));
  TickFile amps = files.Open("/sys/class/hwmon/hwmon1/curr1_input");
  EXPECT_EQ(files.live_files(), 2u);
  EXPECT_EQ(Read(volts), "5040\n");
  EXPECT_EQ(Read(amps), "312\n");
  EXPECT_EQ(volts.path(), kInput);
}

TEST_F(TickFilesTest, AFailedReadIsTriedAgainByTheNextReader) {
  TickFiles files(*fs_);
  TickFile first = files.Open("/sys/class/hwmon/hwmon1/power1_input");
  TickFile second = files.Open("/sys/class/hwmon/hwmon1/power1_input");
  std::string text;
  EXPECT_TRUE(first.ReadInto(text).IsNotFound());
  sysfs_.Write("sys/class/hwmon/hwmon1/power1_input", "1575000\n");
  EXPECT_EQ(Read(second), "1575000\n");
  EXPECT_EQ(Read(first), "1575000\n");  // Now kept for the rest of the tick.
}

TEST_F(TickFilesTest, AFileIsClosedWhenItsLastHandleGoes) {
  TickFiles files(*fs_);
  std::optional<TickFile> a = files.Open(std::string(kInput));
  std::optional<TickFile> b = files.Open(std::string(kInput));
  ASSERT_EQ(Read(*a), "5040\n");
  a.reset();
  EXPECT_EQ(files.live_files(), 1u);
  b.reset();
  EXPECT_EQ(files.live_files(), 0u);
  // Opened again: a new file, read from the device even within the same tick.
  sysfs_.Write("sys/class/hwmon/hwmon1/in1_input", "5100\n");
  TickFile c = files.Open(std::string(kInput));
  EXPECT_EQ(Read(c), "5100\n");
}

TEST_F(TickFilesTest, ManyOpensAndClosesDoNotAccumulate) {
  TickFiles files(*fs_);
  TickFile kept = files.Open(std::string(kInput));
  for (int i = 0; i < 1000; ++i) {
    TickFile gone = files.Open("/sys/class/hwmon/hwmon1/in" + std::to_string(i + 2) + "_input");
  }
  EXPECT_EQ(files.live_files(), 1u);
  EXPECT_EQ(Read(kept), "5040\n");
}

TEST_F(TickFilesTest, AHandleOutlivingItsTickFilesStillReads) {
  std::optional<TickFiles> files(std::in_place, *fs_);
  TickFile file = files->Open(std::string(kInput));
  files.reset();
  EXPECT_EQ(Read(file), "5040\n");
}

TEST_F(TickFilesTest, CollectorFilesOfItsOwnReadAgainAtEveryCollection) {
  CollectorFiles files(*fs_, nullptr);
  TickFile a = files.Open(std::string(kInput));
  TickFile b = files.Open(std::string(kInput));
  files.StartCollection();
  EXPECT_EQ(Read(a), "5040\n");
  sysfs_.Write("sys/class/hwmon/hwmon1/in1_input", "5100\n");
  EXPECT_EQ(Read(b), "5040\n");  // One collection is one tick.
  files.StartCollection();
  EXPECT_EQ(Read(b), "5100\n");
}

TEST_F(TickFilesTest, SharedCollectorFilesFollowTheRunnersTicks) {
  TickFiles shared(*fs_);
  CollectorFiles hwmon(*fs_, &shared);
  CollectorFiles power_rail(*fs_, &shared);
  TickFile a = hwmon.Open(std::string(kInput));
  TickFile b = power_rail.Open(std::string(kInput));
  EXPECT_EQ(shared.live_files(), 1u);
  shared.StartTick();
  hwmon.StartCollection();
  EXPECT_EQ(Read(a), "5040\n");
  sysfs_.Write("sys/class/hwmon/hwmon1/in1_input", "5100\n");
  power_rail.StartCollection();  // Not a tick of the shared files: the runner starts those.
  EXPECT_EQ(Read(b), "5040\n");
  shared.StartTick();
  EXPECT_EQ(Read(b), "5100\n");
}

}  // namespace
}  // namespace edgemond::collectors::internal
