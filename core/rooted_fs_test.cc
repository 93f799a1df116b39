#include "core/rooted_fs.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>

#include "tests/testing/temp_dir.h"

namespace edgemond {
namespace {

using testing::FakeSysfs;

TEST(RootedFsTest, ReadsFilesBelowTheRoot) {
  FakeSysfs fs;
  fs.Write("sys/class/thermal/thermal_zone0/temp", "45000\n");
  auto root = RootedFs::Open(fs.path());
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(root->ReadFile("/sys/class/thermal/thermal_zone0/temp").value(), "45000\n");
  EXPECT_EQ(root->ReadFile("sys/class/thermal/thermal_zone0/temp").value(), "45000\n");
}

TEST(RootedFsTest, MissingRootIsAClearError) {
  auto root = RootedFs::Open("/nonexistent/edgemond/root");
  ASSERT_FALSE(root.ok());
  EXPECT_TRUE(root.status().IsNotFound());
  EXPECT_NE(root.status().message().find("/nonexistent/edgemond/root"), std::string::npos);
}

TEST(RootedFsTest, ErrorsNameTheDevicePathNotTheHostPath) {
  FakeSysfs fs;
  fs.Mkdir("sys");
  auto root = RootedFs::Open(fs.path());
  ASSERT_TRUE(root.ok());
  const auto missing = root->ReadFile("/sys/missing");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsNotFound());
  EXPECT_EQ(missing.status().message().find(fs.path()), std::string::npos);
  EXPECT_NE(missing.status().message().find("/sys/missing"), std::string::npos);
}

TEST(RootedFsTest, ListsDirectoriesSorted) {
  FakeSysfs fs;
  fs.Write("sys/class/hwmon/hwmon2/name", "b\n");
  fs.Write("sys/class/hwmon/hwmon10/name", "c\n");
  fs.Write("sys/class/hwmon/hwmon0/name", "a\n");
  auto root = RootedFs::Open(fs.path());
  ASSERT_TRUE(root.ok());
  const auto names = root->ListDir("/sys/class/hwmon");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"hwmon0", "hwmon10", "hwmon2"}));
}

// Link resolution runs through openat2 on this kernel and through the user-space walk that kernels
// before 5.6 get; both must give the same answers.
class RootedFsLinkTest : public ::testing::TestWithParam<RootedFs::LinkResolution> {
 protected:
  RootedFs OpenRoot(const FakeSysfs& fs) {
    auto root = RootedFs::Open(fs.path(), GetParam());
    EXPECT_TRUE(root.ok()) << root.status();
    return std::move(root).value();
  }
};

TEST_P(RootedFsLinkTest, ResolvesRelativeLinksInsideTheRoot) {
  FakeSysfs fs;
  fs.Write("sys/devices/platform/coretemp.0/hwmon/hwmon2/name", "coretemp\n");
  fs.Symlink("sys/class/hwmon/hwmon2", "../../devices/platform/coretemp.0/hwmon/hwmon2");
  const RootedFs root = OpenRoot(fs);
  EXPECT_EQ(root.ReadFile("/sys/class/hwmon/hwmon2/name").value(), "coretemp\n");
  EXPECT_EQ(root.RealPath("/sys/class/hwmon/hwmon2").value(),
            "/sys/devices/platform/coretemp.0/hwmon/hwmon2");
  EXPECT_EQ(root.ReadLink("/sys/class/hwmon/hwmon2").value(),
            "../../devices/platform/coretemp.0/hwmon/hwmon2");
  EXPECT_EQ(root.ListDir("/sys/class/hwmon/hwmon2").value(), (std::vector<std::string>{"name"}));
  EXPECT_TRUE(root.IsDirectory("/sys/class/hwmon/hwmon2"));
}

TEST_P(RootedFsLinkTest, AbsoluteLinksStayInsideTheRoot) {
  FakeSysfs fs;
  fs.Write("sys/firmware/devicetree/base/model", std::string("NVIDIA Jetson\0", 14));
  fs.Symlink("proc/device-tree", "/sys/firmware/devicetree/base");
  const RootedFs root = OpenRoot(fs);
  const auto model = root.ReadFile("/proc/device-tree/model");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(*model, std::string("NVIDIA Jetson\0", 14));
  EXPECT_EQ(root.RealPath("/proc/device-tree").value(), "/sys/firmware/devicetree/base");
}

TEST_P(RootedFsLinkTest, DotDotStopsAtTheRoot) {
  FakeSysfs fs;
  fs.Write("etc/hostname", "inside\n");
  fs.Symlink("sys/escape", "../../../../../../etc");
  const RootedFs root = OpenRoot(fs);
  EXPECT_EQ(root.ReadFile("/sys/escape/hostname").value(), "inside\n");
  EXPECT_EQ(root.ReadFile("/../../etc/hostname").value(), "inside\n");
  EXPECT_EQ(root.ReadFile("/sys/./../etc//hostname").value(), "inside\n");
}

TEST_P(RootedFsLinkTest, LinkLoopsAndDanglingLinksAreErrors) {
  FakeSysfs fs;
  fs.Symlink("sys/a", "b");
  fs.Symlink("sys/b", "a");
  fs.Symlink("sys/dangling", "/sys/nowhere");
  const RootedFs root = OpenRoot(fs);
  const auto loop = root.ReadFile("/sys/a");
  ASSERT_FALSE(loop.ok());
  EXPECT_EQ(loop.status().error_number(), ELOOP);
  const auto dangling = root.ReadFile("/sys/dangling");
  ASSERT_FALSE(dangling.ok());
  EXPECT_TRUE(dangling.status().IsNotFound());
  EXPECT_FALSE(root.Exists("/sys/dangling"));
}

TEST_P(RootedFsLinkTest, AFileInThePathIsNotADirectory) {
  FakeSysfs fs;
  fs.Write("sys/file", "x\n");
  const RootedFs root = OpenRoot(fs);
  const auto read = root.ReadFile("/sys/file/child");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().error_number(), ENOTDIR);
}

INSTANTIATE_TEST_SUITE_P(Resolutions, RootedFsLinkTest,
                         ::testing::Values(RootedFs::LinkResolution::kAuto,
                                           RootedFs::LinkResolution::kUserspaceWalk),
                         [](const ::testing::TestParamInfo<RootedFs::LinkResolution>& param_info) {
                           return param_info.param == RootedFs::LinkResolution::kAuto
                                      ? "Auto"
                                      : "UserspaceWalk";
                         });

TEST(RootedFsTest, UnreadableFileIsPermissionDenied) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads mode-0000 files";
  FakeSysfs fs;
  fs.Write("sys/class/powercap/intel-rapl:0/energy_uj", "1\n", 0000);
  auto root = RootedFs::Open(fs.path());
  ASSERT_TRUE(root.ok());
  EXPECT_TRUE(
      root->ReadFile("/sys/class/powercap/intel-rapl:0/energy_uj").status().IsPermissionDenied());
}

TEST(RootedFsTest, LargeFilesAreReadToTheEnd) {
  FakeSysfs fs;
  std::string big(50000, 'x');
  big += "end\n";
  fs.Write("proc/stat", big);
  auto root = RootedFs::Open(fs.path());
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(root->ReadFile("/proc/stat").value(), big);
  EXPECT_EQ(root->ReadFile("/proc/stat", 1000).status().code(), StatusCode::kResourceExhausted);
}

TEST(PolledFileTest, RereadsTheSameFdAndReopensAfterTheFileIsReplaced) {
  FakeSysfs fs;
  fs.Write("sys/class/hwmon/hwmon0/temp1_input", "40000\n");
  auto root = RootedFs::Open(fs.path());
  ASSERT_TRUE(root.ok());
  PolledFile file(*root, "/sys/class/hwmon/hwmon0/temp1_input");
  EXPECT_EQ(file.Read().value(), "40000\n");
  // Rewriting in place is what a sensor update looks like through one open fd.
  fs.Write("sys/class/hwmon/hwmon0/temp1_input", "41000\n");
  EXPECT_EQ(file.Read().value(), "41000\n");
  fs.Remove("sys/class/hwmon/hwmon0");
  // The old fd still reads the unlinked inode; a vanished device shows up as ENODEV on sysfs.
  // What matters here is that a missing path is reported, not hidden, once it is reopened.
  PolledFile gone(*root, "/sys/class/hwmon/hwmon0/temp1_input");
  EXPECT_TRUE(gone.Read().status().IsNotFound());
}

// A sysfs attribute's poll stops at the first short read; a file longer than one read, under
// /sys or /proc, is still read whole.
TEST(PolledFileTest, ReadsWholeFilesLongerThanOneRead) {
  FakeSysfs fs;
  std::string big;
  for (int i = 0; big.size() < 10000; ++i) big += "line " + std::to_string(i) + "\n";
  fs.Write("sys/devices/big", big);
  fs.Write("proc/big", big);
  fs.Write("sys/devices/small", "1\n");
  fs.Write("sys/devices/empty", "");
  auto root = RootedFs::Open(fs.path());
  ASSERT_TRUE(root.ok());
  PolledFile sys_big(*root, "/sys/devices/big");
  PolledFile proc_big(*root, "/proc/big");
  PolledFile small(*root, "/sys/devices/small");
  PolledFile empty(*root, "/sys/devices/empty");
  for (int poll = 0; poll < 2; ++poll) {
    EXPECT_EQ(sys_big.Read().value(), big);
    EXPECT_EQ(proc_big.Read().value(), big);
    EXPECT_EQ(small.Read().value(), "1\n");
    EXPECT_EQ(empty.Read().value(), "");
  }
}

}  // namespace
}  // namespace edgemond
